package smb2_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

// events records what happened, in order, across goroutines.
type events struct {
	mu  sync.Mutex
	got []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	e.got = append(e.got, s)
	e.mu.Unlock()
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

func rw(t *testing.T, c *client, name string, share uint32, disp smb2.CreateDisposition) (*smb2.File, error) {
	t.Helper()
	return c.tree.OpenFile(ctxT(t), name, smb2.FileReadData|smb2.FileWriteData|smb2.FileReadAttributes, share, disp)
}

// TestSambaShareModes: an open whose access conflicts with a holder's
// share mode gets STATUS_SHARING_VIOLATION, and succeeds once the holder
// closes; compatible opens coexist.
func TestSambaShareModes(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	a := connect(t, inst, smb2.Options{})
	b := connect(t, inst, smb2.Options{})
	ctx := ctxT(t)

	holder, err := rw(t, a, "shared", smb2.ShareRead, smb2.FileOverwriteIf)
	must(t, "holder open (share read)", err)
	_, err = rw(t, b, "shared", smb2.ShareAll, smb2.FileOpen)
	wantStatus(t, "second writer while the holder shares read only", err, smb2.StatusSharingViolation)
	_, err = b.tree.OpenFile(ctx, "shared", smb2.FileReadData, smb2.ShareRead, smb2.FileOpen)
	wantStatus(t, "reader that denies write to a writer", err, smb2.StatusSharingViolation)
	r, err := b.tree.OpenFile(ctx, "shared", smb2.FileReadData, smb2.ShareRead|smb2.ShareWrite, smb2.FileOpen)
	must(t, "reader that shares read and write", err)
	must(t, "close reader", r.Close(ctx))
	must(t, "holder close", holder.Close(ctx))
	second, err := rw(t, b, "shared", smb2.ShareNone, smb2.FileOpen)
	must(t, "second writer after the holder closed", err)
	_, err = a.tree.OpenFile(ctx, "shared", smb2.FileReadData, smb2.ShareAll, smb2.FileOpen)
	wantStatus(t, "any data open against share none", err, smb2.StatusSharingViolation)
	must(t, "close", second.Close(ctx))
}

// TestSambaDeletePending: once a handle sets the delete disposition, new
// opens get STATUS_DELETE_PENDING (never success, never not-found) while
// any handle is open; clearing it restores opens; after the last close the
// file is gone.
func TestSambaDeletePending(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	a := connect(t, inst, smb2.Options{})
	b := connect(t, inst, smb2.Options{})
	ctx := ctxT(t)
	open := func(c *client) (*smb2.File, error) {
		return c.tree.OpenFile(ctx, "doomed", smb2.FileReadData|smb2.FileReadAttributes|smb2.Delete, smb2.ShareAll, smb2.FileOpenIf)
	}
	deleter, err := open(a)
	must(t, "deleter open", err)
	other, err := open(b)
	must(t, "other open", err)

	must(t, "set delete disposition", deleter.SetDeleteOnClose(ctx, true))
	st, err := other.Stat(ctx)
	must(t, "stat", err)
	if !st.DeletePending {
		t.Fatalf("the other handle's standard information says DeletePending false")
	}
	_, err = open(b)
	wantStatus(t, "open while delete is pending", err, smb2.StatusDeletePending)

	must(t, "clear delete disposition", deleter.SetDeleteOnClose(ctx, false))
	again, err := open(b)
	must(t, "open after clearing the disposition", err)
	must(t, "close", again.Close(ctx))

	must(t, "set delete disposition again", deleter.SetDeleteOnClose(ctx, true))
	must(t, "deleter close", deleter.Close(ctx))
	_, err = open(a)
	wantStatus(t, "open after the deleter closed, another handle still open", err, smb2.StatusDeletePending)
	ents, err := a.tree.ReadDir(ctx, "")
	must(t, "list", err)
	_ = ents // Samba still lists a delete-pending file; the Azure Files REST promise is checked elsewhere
	must(t, "last close", other.Close(ctx))
	_, err = b.tree.OpenFile(ctx, "doomed", smb2.FileReadAttributes, smb2.ShareAll, smb2.FileOpen)
	wantStatus(t, "open after the last close", err, smb2.StatusObjectNameNotFound)
	ents, err = a.tree.ReadDir(ctx, "")
	must(t, "list", err)
	if slices.ContainsFunc(ents, func(e smb2.DirEntry) bool { return e.Name == "doomed" }) {
		t.Fatal("the file is still listed after its last close")
	}

	// Delete-on-close at create time behaves the same.
	doc, err := a.tree.Create(ctx, smb2.CreateRequest{
		DesiredAccess: smb2.FileReadData | smb2.Delete, ShareAccess: smb2.ShareAll,
		Disposition: smb2.FileCreate, CreateOptions: smb2.FileNonDirectoryFile | smb2.FileDeleteOnClose, Name: "doc",
	})
	must(t, "create delete-on-close", err)
	must(t, "close", doc.Close(ctx))
	_, err = b.tree.OpenFile(ctx, "doc", smb2.FileReadAttributes, smb2.ShareAll, smb2.FileOpen)
	wantStatus(t, "open after a delete-on-close handle closed", err, smb2.StatusObjectNameNotFound)
}

// TestSambaByteRangeLocks: conflicting locks get STATUS_LOCK_NOT_GRANTED,
// I/O inside another handle's exclusive range STATUS_FILE_LOCK_CONFLICT,
// shared locks coexist, and a blocking lock is granted only after the
// holder unlocks.
func TestSambaByteRangeLocks(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	a := connect(t, inst, smb2.Options{})
	b := connect(t, inst, smb2.Options{})
	ctx := ctxT(t)
	fa, err := rw(t, a, "locked", smb2.ShareAll, smb2.FileOverwriteIf)
	must(t, "open a", err)
	fb, err := rw(t, b, "locked", smb2.ShareAll, smb2.FileOpen)
	must(t, "open b", err)
	_, err = fa.Write(ctx, 0, make([]byte, 200))
	must(t, "write", err)

	excl := func(off, n uint64) smb2.LockElement {
		return smb2.LockElement{Offset: off, Length: n, Flags: smb2.LockExclusive | smb2.LockFailImmediately}
	}
	shared := func(off, n uint64) smb2.LockElement {
		return smb2.LockElement{Offset: off, Length: n, Flags: smb2.LockShared | smb2.LockFailImmediately}
	}
	must(t, "a locks [0,10) exclusive", fa.Lock(ctx, excl(0, 10)))
	wantStatus(t, "b locks [5,15) exclusive", fb.Lock(ctx, excl(5, 10)), smb2.StatusLockNotGranted)
	wantStatus(t, "b locks [9,10) shared", fb.Lock(ctx, shared(9, 1)), smb2.StatusLockNotGranted)
	must(t, "b locks [10,20) exclusive (adjacent)", fb.Lock(ctx, excl(10, 10)))
	_, err = fb.Read(ctx, 2, 4)
	wantStatus(t, "b reads inside a's range", err, smb2.StatusFileLockConflict)
	_, err = fb.Write(ctx, 8, []byte("xyz"))
	wantStatus(t, "b writes across a's range", err, smb2.StatusFileLockConflict)
	_, err = fa.Read(ctx, 2, 4)
	must(t, "a reads inside its own range", err)

	must(t, "a locks [100,110) shared", fa.Lock(ctx, shared(100, 10)))
	must(t, "b locks [100,110) shared too", fb.Lock(ctx, shared(100, 10)))
	wantStatus(t, "b locks [105,106) exclusive over two shared", fb.Lock(ctx, excl(105, 1)), smb2.StatusLockNotGranted)
	_, err = fb.Read(ctx, 100, 10)
	must(t, "b reads in a shared range", err)

	// A blocking lock waits (the server answers STATUS_PENDING) and is
	// granted after the holder unlocks.
	var ev events
	pending := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		tctx := smb2.WithTrace(ctx, &smb2.Trace{Pending: func(uint64) { ev.add("pending"); close(pending) }})
		err := fb.Lock(tctx, smb2.LockElement{Offset: 0, Length: 10, Flags: smb2.LockExclusive})
		ev.add("granted")
		done <- err
	}()
	select {
	case <-pending:
	case err := <-done:
		t.Fatalf("the blocking lock returned (%v) before the holder unlocked, without going pending", err)
	}
	ev.add("unlock")
	must(t, "a unlocks [0,10)", fa.Unlock(ctx, 0, 10))
	must(t, "blocking lock", <-done)
	if got, want := ev.list(), []string{"pending", "unlock", "granted"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	wantStatus(t, "a locks what b now holds", fa.Lock(ctx, excl(0, 1)), smb2.StatusLockNotGranted)

	// A cancelled blocking lock is withdrawn: after the holder unlocks, the
	// range is free.
	must(t, "a locks [50,60)", fa.Lock(ctx, excl(50, 10)))
	cctx, cancel := context.WithCancel(ctx)
	pending2 := make(chan struct{})
	done2 := make(chan error, 1)
	go func() {
		tctx := smb2.WithTrace(cctx, &smb2.Trace{Pending: func(uint64) { close(pending2) }})
		done2 <- fb.Lock(tctx, smb2.LockElement{Offset: 50, Length: 10, Flags: smb2.LockExclusive})
	}()
	select {
	case <-pending2:
	case err := <-done2:
		t.Fatalf("the blocking lock returned (%v) without going pending", err)
	}
	cancel()
	if err := <-done2; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled blocking lock: %v, want context.Canceled", err)
	}
	must(t, "a unlocks [50,60)", fa.Unlock(ctx, 50, 10))
	must(t, "a locks [50,60) again (b's cancelled lock was withdrawn)", fa.Lock(ctx, excl(50, 10)))
	must(t, "echo after the cancel", b.conn.Echo(ctx))
}

// TestSambaLeaseBreak: a lease RWH held by A is broken to RH (or R) when B
// opens the file for write, and B's open completes only after A
// acknowledged the break.
func TestSambaLeaseBreak(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	for _, d := range []smb2.Dialect{smb2.Dialect311, smb2.Dialect210} {
		t.Run(d.String(), func(t *testing.T) { leaseBreak(t, inst, d) })
	}
}

func leaseBreak(t *testing.T, inst *samba.Instance, d smb2.Dialect) {
	ctx := ctxT(t)
	var ev events
	breaks := make(chan *smb2.Break, 4)
	a := connect(t, inst, smb2.Options{Dialects: []smb2.Dialect{d}, OnBreak: func(b *smb2.Break) { breaks <- b }})
	b := connect(t, inst, smb2.Options{Dialects: []smb2.Dialect{d}})
	name := "leased-" + d.String()

	lease := smb2.Lease{Version: 2, State: smb2.LeaseRead | smb2.LeaseWrite | smb2.LeaseHandle}
	if d == smb2.Dialect210 {
		lease.Version = 1
	}
	copy(lease.Key[:], name)
	fa, err := a.tree.Create(ctx, smb2.CreateRequest{
		OplockLevel: smb2.OplockLease, DesiredAccess: smb2.FileReadData | smb2.FileWriteData,
		ShareAccess: smb2.ShareAll, Disposition: smb2.FileOverwriteIf, CreateOptions: smb2.FileNonDirectoryFile,
		Name: name, Contexts: []smb2.CreateContext{smb2.LeaseContext(lease)},
	})
	must(t, "a opens with a lease", err)
	got, ok := fa.Create.Lease()
	if !ok || got.State != lease.State || got.Key != lease.Key {
		t.Fatalf("granted lease %+v (present %v), want state %v", got, ok, lease.State)
	}

	pending := make(chan struct{})
	opened := make(chan error, 1)
	go func() {
		tctx := smb2.WithTrace(ctx, &smb2.Trace{Pending: func(uint64) { ev.add("b pending"); close(pending) }})
		f, err := b.tree.OpenFile(tctx, name, smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, smb2.FileOpen)
		ev.add("b opened")
		if err == nil {
			f.Close(tctx)
		}
		opened <- err
	}()
	var br *smb2.Break
	select {
	case br = <-breaks:
		ev.add("a break")
	case err := <-opened:
		t.Fatalf("b's open returned (%v) before a's lease was broken", err)
	}
	if br.Lease == nil || br.Lease.Key != lease.Key || br.Lease.CurrentState != lease.State || !br.Lease.AckRequired() {
		t.Fatalf("break %+v, want an acknowledged break of lease %x from %v", br.Lease, lease.Key, lease.State)
	}
	if ns := br.Lease.NewState; ns != smb2.LeaseRead|smb2.LeaseHandle && ns != smb2.LeaseRead {
		t.Fatalf("lease broken to %v, want RH or R", ns)
	}
	// Hold the acknowledgement until the server has parked b's open (or
	// b's open returns, which would be the broken promise).
	select {
	case <-pending:
	case err := <-opened:
		t.Fatalf("b's open returned (%v) before a acknowledged the break", err)
	}
	ev.add("a ack")
	st, err := a.tree.AckBreak(ctx, br)
	must(t, "ack", err)
	if st != br.Lease.NewState {
		t.Fatalf("after the ack the server says %v, want %v", st, br.Lease.NewState)
	}
	must(t, "b's open", <-opened)
	if got, want := ev.list(), []string{"a break", "b pending", "a ack", "b opened"}; !slices.Equal(got, want) {
		// "b pending" may come before "a break": both orders are fine.
		alt := []string{"b pending", "a break", "a ack", "b opened"}
		if !slices.Equal(got, alt) {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	must(t, "close", fa.Close(ctx))
}
