package files

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// Op kinds the Files REST workloads record (File service REST calls, made
// with the azfile SDK; every attempt recorded like the other services').
const (
	OpRESTShareCreate = "files.rest.share.create"
	OpRESTShareDelete = "files.rest.share.delete"
	OpRESTCreate      = "files.rest.create"
	OpRESTPutRange    = "files.rest.put-range"
	OpRESTGet         = "files.rest.get"
	OpRESTGetProps    = "files.rest.getprops"
	OpRESTList        = "files.rest.list"
	OpRESTDelete      = "files.rest.delete"
	OpRESTAcquire     = "files.rest.lease.acquire"
	OpRESTRelease     = "files.rest.lease.release"
)

// rest is a workload's File service share: one share per workload of a
// run, named from the run's prefix, created at setup and deleted after the
// final reads.
type rest struct {
	svc   *fileservice.Client
	share *share.Client
	name  string
}

// newREST is the File service of t, or the reason t has none (Azurite and
// Samba have no File REST API: only an account's file endpoint does).
func newREST(kind string, t *target.Target) (*rest, error) {
	svc, err := t.Files()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return &rest{svc: svc}, nil
}

// ShareName is the share a workload with run prefix prefix uses: the
// prefix in lower case with what a share name may not hold (anything but
// letters, digits and single inner hyphens) made a hyphen, cut to 63.
func ShareName(prefix string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(prefix) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if s := b.String(); s != "" && !strings.HasSuffix(s, "-") {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 63 {
		s = s[:63]
	}
	s = strings.Trim(s, "-")
	for len(s) < 3 {
		s += "0"
	}
	return s
}

// open names the workload's share from e's prefix.
func (r *rest) open(e *workload.Env) {
	r.name = ShareName(e.Prefix)
	r.share = r.svc.NewShareClient(r.name)
}

func (r *rest) file(name string) *file.Client {
	return r.share.NewRootDirectoryClient().NewFileClient(name)
}

// createShare records the share's creation as a's (the setup actor's).
func (r *rest) createShare(ctx context.Context, a *workload.Actor) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTShareCreate, Key: r.name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := r.share.Create(ctx, nil)
		return checks.Input{}, "", err
	})
}

// deleteShare deletes the share (with what is in it) once the final reads
// are done, so nothing of the run stays on the account.
func (r *rest) deleteShare(ctx context.Context, a *workload.Actor) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTShareDelete, Key: r.name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := r.share.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: nil})
		return checks.Input{}, "", err
	})
}

// createFile records Create File of name with size bytes.
func (r *rest) createFile(ctx context.Context, a *workload.Actor, name string, size int64) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTCreate, Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := r.file(name).Create(ctx, size, nil)
		return checks.Input{}, "", err
	})
}

// putRange records Put Range of data at off in name, with leaseID when
// set; value is what the op's input records (the write's identity).
func (r *rest) putRange(ctx context.Context, a *workload.Actor, name string, off int64, data []byte, leaseID, value string, conflicts ...workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTPutRange, Key: name, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		var o *file.UploadRangeOptions
		if leaseID != "" {
			o = &file.UploadRangeOptions{LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: &leaseID}}
		}
		_, err := r.file(name).UploadRange(ctx, off, streaming.NopCloser(bytes.NewReader(data)), o)
		return checks.Input{Value: value, LeaseID: leaseID}, "", err
	})
}

// get records Get File of the whole of name; decode turns the bytes into
// the value the op records ("" keeps them as they are).
func (r *rest) get(ctx context.Context, a *workload.Actor, name string, decode func([]byte) string, conflicts ...workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTGet, Key: name, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		resp, err := r.file(name).DownloadStream(ctx, nil)
		if err != nil {
			return checks.Input{}, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return checks.Input{}, "", err
		}
		if decode != nil {
			return checks.Input{}, decode(b), nil
		}
		return checks.Input{}, string(b), nil
	})
}
