package azurite

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// blobClient is a shared-key client of inst with the SDK's retries off.
func blobClient(t *testing.T, inst *Instance) *azblob.Client {
	cred, err := azblob.NewSharedKeyCredential(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := azblob.NewClientWithSharedKeyCredential(inst.BlobURL, cred, &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: inst.HTTPClient(), Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readBlob(ctx context.Context, c *azblob.Client, name string) (string, error) {
	resp, err := c.DownloadStream(ctx, "ctr", name, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// A paused Azurite answers nothing; resumed, it answers again.
func TestPauseResume(t *testing.T) {
	inst := startT(t, Options{WorkDir: t.TempDir()})
	c := blobClient(t, inst)
	ctx := testCtx(t, time.Minute)
	if _, err := c.CreateContainer(ctx, "ctr", nil); err != nil {
		t.Fatal(err)
	}
	if err := inst.Pause(); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err := c.UploadBuffer(short, "ctr", "b", []byte("v"), nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a paused Azurite answered: %v", err)
	}
	if err := inst.Resume(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadBuffer(ctx, "ctr", "b", []byte("v"), nil); err != nil {
		t.Fatalf("after resume: %v", err)
	}
}

// A clean stop keeps what was acknowledged; a crash restarts too, on the
// same ports and workspace. What the crash lost is not asserted: LokiJS
// saves every 5 s, so it depends on timing.
func TestHaltRestart(t *testing.T) {
	inst := startT(t, Options{WorkDir: t.TempDir()})
	c := blobClient(t, inst)
	ctx := testCtx(t, 3*time.Minute)
	if _, err := c.CreateContainer(ctx, "ctr", nil); err != nil {
		t.Fatal(err)
	}
	url := inst.BlobURL
	for _, crash := range []bool{false, true} {
		name := map[bool]string{false: "clean", true: "crash"}[crash]
		if _, err := c.UploadBuffer(ctx, "ctr", name, []byte(name+"-v1"), nil); err != nil {
			t.Fatal(err)
		}
		pid := inst.PID
		if err := inst.Halt(crash); err != nil {
			t.Fatalf("%s: halt: %v", name, err)
		}
		if _, err := c.UploadBuffer(ctx, "ctr", "while-down", []byte("x"), nil); err == nil {
			t.Fatalf("%s: a halted Azurite answered", name)
		}
		if err := inst.Restart(ctx); err != nil {
			t.Fatalf("%s: restart: %v", name, err)
		}
		if inst.BlobURL != url || inst.PID == pid {
			t.Fatalf("%s: restarted at %s (pid %d), want %s and a new pid", name, inst.BlobURL, inst.PID, url)
		}
		got, err := readBlob(ctx, c, name)
		switch {
		case !crash && (err != nil || got != name+"-v1"):
			t.Fatalf("clean stop lost an acknowledged write: %q, %v", got, err)
		case crash && err != nil && !strings.Contains(err.Error(), "BlobNotFound") && !strings.Contains(err.Error(), "ContainerNotFound"):
			t.Fatalf("after a crash: %v", err)
		}
	}
	log, _ := os.ReadFile(inst.LogPath)
	for _, want := range []string{"stopped (SIGTERM) on purpose", "crashed (SIGKILL) on purpose", "restarting on the same workspace and ports"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log does not say %q", want)
		}
	}
}
