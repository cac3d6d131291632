package smb2_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

// TestSambaOpenRacingTheLastCloseOfADeletePendingFile documents a race of
// the managed Samba (4.17) that the delete-pending check classifies as a
// known divergence of that target: a FILE_OPEN sent while the last handle of
// a delete-pending file is being closed is either refused
// (STATUS_DELETE_PENDING: the close had not begun; STATUS_OBJECT_NAME_NOT_FOUND:
// it was over) or, when it lands inside the close, granted a handle on the
// file that close unlinks. Windows and Azure Files never grant it (the
// open is refused with STATUS_DELETE_PENDING until the last close is over).
//
// Each round: a creates the file, b opens it, a sets the delete
// disposition and closes (b now holds the last handle); then b's close and
// c's FILE_OPEN are sent together. Every round must end in one of the three
// shapes, and a granted open must show the file gone: its handle says no
// delete is pending and the file has no link left, an open by name right
// after gets not found. A server that kept the file (the broken promise)
// fails the test. How often each shape happens depends on scheduling and
// is only logged.
func TestSambaOpenRacingTheLastCloseOfADeletePendingFile(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	a := connect(t, inst, smb2.Options{})
	b := connect(t, inst, smb2.Options{})
	c := connect(t, inst, smb2.Options{})
	ctx := ctxT(t)
	const rounds = 200
	access := smb2.FileReadData | smb2.FileReadAttributes | smb2.Delete
	shapes := map[string]int{}
	closes := map[string]int{}
	for i := range rounds {
		name := fmt.Sprintf("race-%d", i)
		deleter, err := a.tree.Create(ctx, smb2.CreateRequest{DesiredAccess: access, ShareAccess: smb2.ShareAll,
			Disposition: smb2.FileCreate, CreateOptions: smb2.FileNonDirectoryFile, Name: name})
		must(t, "create", err)
		last, err := b.tree.OpenFile(ctx, name, access, smb2.ShareAll, smb2.FileOpen)
		must(t, "second handle", err)
		must(t, "set delete disposition", deleter.SetDeleteOnClose(ctx, true))
		must(t, "deleter close", deleter.Close(ctx))

		var wg sync.WaitGroup
		var closeErr, openErr error
		var opened *smb2.File
		start := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-start; closeErr = last.Close(ctx) }()
		go func() {
			defer wg.Done()
			<-start
			opened, openErr = c.tree.OpenFile(ctx, name, smb2.FileReadData|smb2.FileReadAttributes, smb2.ShareAll, smb2.FileOpen)
		}()
		close(start)
		wg.Wait()
		closes[statusName(closeErr)]++

		switch {
		case openErr == nil:
			st, err := opened.Stat(ctx)
			must(t, "stat of the granted handle", err)
			_, byName := a.tree.OpenFile(ctx, name, smb2.FileReadAttributes, smb2.ShareAll, smb2.FileOpen)
			if !smb2.IsStatus(byName, smb2.StatusObjectNameNotFound) {
				t.Fatalf("round %d: an open granted during the last close, then an open by name got %v: the file was kept (want STATUS_OBJECT_NAME_NOT_FOUND)", i, byName)
			}
			if st.DeletePending || st.NumberOfLinks != 0 {
				t.Fatalf("round %d: the granted handle's standard information %+v: want no delete pending and no link (a handle on the unlinked file)", i, st)
			}
			shapes["granted, file gone"]++
			closes["(granted handle) "+statusName(opened.Close(ctx))]++
		case smb2.IsStatus(openErr, smb2.StatusDeletePending), smb2.IsStatus(openErr, smb2.StatusObjectNameNotFound):
			shapes[statusName(openErr)]++
		default:
			t.Fatalf("round %d: FILE_OPEN racing the last close: %v", i, openErr)
		}
		if _, err := b.tree.OpenFile(ctx, name, smb2.FileReadAttributes, smb2.ShareAll, smb2.FileOpen); !smb2.IsStatus(err, smb2.StatusObjectNameNotFound) {
			t.Fatalf("round %d: after every handle closed, open got %v, want STATUS_OBJECT_NAME_NOT_FOUND", i, err)
		}
	}
	t.Logf("%d rounds, FILE_OPEN racing the last close: %v; closes: %v", rounds, shapes, closes)
}

func statusName(err error) string {
	if err == nil {
		return "STATUS_SUCCESS"
	}
	if st, ok := smb2.StatusOf(err); ok {
		return st.String()
	}
	return err.Error()
}
