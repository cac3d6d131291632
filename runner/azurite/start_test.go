package azurite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/connstr"
)

// TestStartRoundTripStop starts a real Azurite, uses blob, queue and table
// with shared-key auth, stops it, and checks that the process group and
// the ports are gone, the workspace removed and the log kept.
func TestStartRoundTripStop(t *testing.T) {
	inst := startT(t, Options{}) // default WorkDir: a new temp dir
	t.Cleanup(func() { inst.Stop(); os.RemoveAll(inst.WorkDir) })
	ctx := testCtx(t, time.Minute)
	copts := azcore.ClientOptions{Transport: inst.HTTPClient()}

	for _, u := range []string{inst.BlobURL, inst.QueueURL, inst.TableURL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/"+DevAccount) {
			t.Fatalf("URL %q not http://127.0.0.1:PORT/%s", u, DevAccount)
		}
	}
	if s := fmt.Sprintf("%v %+v %#v %s", inst, inst, inst, inst); strings.Contains(s, inst.Key) {
		t.Fatalf("formatting an Instance prints the key")
	}

	// Blob round trip.
	bcred, err := azblob.NewSharedKeyCredential(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	blob, err := azblob.NewClientWithSharedKeyCredential(inst.BlobURL, bcred, &azblob.ClientOptions{ClientOptions: copts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blob.CreateContainer(ctx, "ctr1", nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	payload := bytes.Repeat([]byte("stormcheck "), 1000)
	if _, err := blob.UploadBuffer(ctx, "ctr1", "b1", payload, nil); err != nil {
		t.Fatalf("upload: %v", err)
	}
	resp, err := blob.DownloadStream(ctx, "ctr1", "b1", nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("downloaded %d bytes (err %v), want the %d uploaded", len(got), err, len(payload))
	}

	// Queue: the connection string must work as well, read as stormcheck
	// reads it.
	cs, err := connstr.Parse(inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	queueURL, named, err := cs.Endpoint(connstr.Queue)
	if err != nil || !named || queueURL != inst.QueueURL || cs.Auth != connstr.SharedKey || cs.AccountName != inst.Account || cs.AccountKey != inst.Key {
		t.Fatalf("the connection string reads as queue endpoint %s (named %v, err %v), auth %d, account %s", queueURL, named, err, cs.Auth, cs.AccountName)
	}
	qcred, err := azqueue.NewSharedKeyCredential(cs.AccountName, cs.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	qsvc, err := azqueue.NewServiceClientWithSharedKeyCredential(queueURL, qcred, &azqueue.ClientOptions{ClientOptions: copts})
	if err != nil {
		t.Fatal(err)
	}
	q := qsvc.NewQueueClient("queue1")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatalf("create queue: %v", err)
	}
	if _, err := q.EnqueueMessage(ctx, "hello", nil); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	deq, err := q.DequeueMessage(ctx, nil)
	if err != nil || len(deq.Messages) != 1 || *deq.Messages[0].MessageText != "hello" {
		t.Fatalf("dequeue = %+v, %v", deq, err)
	}

	// Table.
	tcred, err := aztables.NewSharedKeyCredential(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	tsvc, err := aztables.NewServiceClientWithSharedKey(inst.TableURL, tcred, &aztables.ClientOptions{ClientOptions: copts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tsvc.CreateTable(ctx, "table1", nil); err != nil {
		t.Fatalf("create table: %v", err)
	}
	tc := tsvc.NewClient("table1")
	if _, err := tc.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r","N":1}`), nil); err != nil {
		t.Fatalf("add entity: %v", err)
	}
	ent, err := tc.GetEntity(ctx, "p", "r", nil)
	if err != nil || !bytes.Contains(ent.Value, []byte(`"N":1`)) {
		t.Fatalf("get entity = %s, %v", ent.Value, err)
	}

	// Stop (with the clients' keep-alive connections still open, as a
	// harness would leave them), and check everything is gone.
	// Two concurrent callers, as with a signal handler racing the main path.
	t0 := time.Now()
	var wg sync.WaitGroup
	stopErrs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { stopErrs[i] = inst.Stop() })
	}
	wg.Wait()
	if err := errors.Join(stopErrs...); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("stop took %s", time.Since(t0).Round(time.Millisecond))
	if err := syscall.Kill(inst.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) after Stop = %v, want ESRCH", inst.PID, err)
	}
	if err := syscall.Kill(-inst.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0) after Stop = %v, want ESRCH (process group left)", inst.PID, err)
	}
	for _, u := range []string{inst.BlobURL, inst.QueueURL, inst.TableURL} {
		if c, err := net.DialTimeout("tcp", hostPort(t, u), time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after Stop", u)
		}
	}
	if _, err := os.Stat(inst.dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("workspace %s still there: %v", inst.dataDir, err)
	}
	log, err := os.ReadFile(inst.LogPath)
	if err != nil {
		t.Fatalf("log not kept: %v", err)
	}
	for _, want := range []string{"successfully listening", "PUT /devstoreaccount1/ctr1/b1", "successfully closed"} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("log lacks %q", want)
		}
	}
	if bytes.Contains(log, []byte(inst.Key)) {
		t.Errorf("log contains the account key")
	}
	if err := inst.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// TestStopAfterProcessDied: Stop after Azurite was SIGKILLed behind our back
// succeeds and still cleans up; Done reports the death.
func TestStopAfterProcessDied(t *testing.T) {
	inst := startT(t, Options{WorkDir: t.TempDir()})
	if err := syscall.Kill(inst.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inst.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed 10s after SIGKILL")
	}
	if err := inst.Stop(); err != nil {
		t.Fatalf("Stop after death: %v", err)
	}
	if _, err := os.Stat(inst.dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("workspace %s still there: %v", inst.dataDir, err)
	}
	entries, _ := os.ReadDir(inst.WorkDir)
	if len(entries) != 1 || entries[0].Name() != "azurite.log" {
		t.Errorf("WorkDir after Stop holds %v, want only azurite.log", entries)
	}
}

// TestStartFailureShowsLog: when Azurite exits during start (here: a
// certificate file that does not exist), Start fails promptly with
// Azurite's own last words and leaves nothing running.
func TestStartFailureShowsLog(t *testing.T) {
	sharedBin(t)
	dir := t.TempDir()
	t0 := time.Now()
	_, err := Start(testCtx(t, time.Minute), Options{
		WorkDir:   dir,
		ExtraArgs: []string{"--cert", filepath.Join(dir, "missing.pem"), "--key", filepath.Join(dir, "missing.key")},
	})
	if err == nil {
		t.Fatal("Start succeeded with a missing certificate")
	}
	t.Logf("failed after %s: %v", time.Since(t0).Round(time.Millisecond), err)
	if !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "missing.pem") {
		t.Errorf("error lacks the exit and Azurite's message: %v", err)
	}
	// "exited" in the error is Start noticing the exit (not waiting out its
	// readiness timeout); how long that took depends on the machine.
	left, _ := filepath.Glob(filepath.Join(dir, "data-*"))
	if len(left) != 0 {
		t.Errorf("workspace left behind: %v", left)
	}
}

// TestParseListening and TestRedact are cheap unit checks of the parsers.
func TestParseListening(t *testing.T) {
	a, ok := parseListening("Azurite Queue service is successfully listening at https://127.0.0.1:46751")
	if !ok || a != (listenAddr{"Queue", "https", "46751"}) {
		t.Errorf("got %+v, %v", a, ok)
	}
	if _, ok := parseListening("Azurite Blob service is starting at http://127.0.0.1:0"); ok {
		t.Error("'starting' line accepted")
	}
}

func TestRedact(t *testing.T) {
	in := `127.0.0.1 - - "GET /devstoreaccount1/c?sv=2020&sig=abc%2Bdef&se=1 HTTP/1.1" 200 AccountKey=xyz;Blob Authorization: Bearer eyJqwe.rty.`
	out := redact(in)
	if strings.Contains(out, "abc") || strings.Contains(out, "xyz") || strings.Contains(out, "eyJ") || !strings.Contains(out, "se=1") {
		t.Errorf("redact(%q) = %q", in, out)
	}
}
