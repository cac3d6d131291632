package files

import (
	"context"
	"fmt"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// byteLocks is files.byte-range-locks: every actor, on its own SMB
// session, opens one of the workload's files (keys) per iteration (read and
// write, sharing everything), locks a range of it (shared or exclusive,
// half of them waiting for a conflicting lock to go, half failing at once),
// and when granted reads or writes inside its range and once at a random
// range (which may lie in another handle's lock), unlocks and closes. Every
// lock, unlock, read and write is recorded with its range and status: a
// refused lock (STATUS_LOCK_NOT_GRANTED) or I/O (STATUS_FILE_LOCK_CONFLICT)
// is a conflict.
type byteLocks struct {
	s *sessions
}

func init() {
	register("files.byte-range-locks", func(s *sessions) workload.Workload { return &byteLocks{s: s} })
}

// The files are lockSlots*lockSlot bytes; ranges are one or two slots.
const (
	lockSlot  = 16
	lockSlots = 8
)

func (w *byteLocks) Setup(ctx context.Context, e *workload.Env) error {
	return setupFiles(ctx, e, w.s, "files.byte-range-locks", smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, func(r recorder, f *smb2.File) checks.Op {
		return r.io(ctx, f, true, 0, lockSlots*lockSlot)
	})
}

// slotRange is a random range of one or two slots.
func slotRange(a *workload.Actor) (off, n uint64) {
	s := a.Rand.IntN(lockSlots - 1)
	return uint64(s * lockSlot), uint64((1 + a.Rand.IntN(2)) * lockSlot)
}

func (w *byteLocks) Iterate(ctx context.Context, a *workload.Actor) {
	name, tr, r, ok := w.s.turn(ctx, a)
	if !ok {
		return
	}
	f, _ := r.create(ctx, tr, smb2.CreateRequest{DesiredAccess: smb2.FileReadData | smb2.FileWriteData, ShareAccess: smb2.ShareAll,
		Disposition: smb2.FileOpen, CreateOptions: smb2.FileNonDirectoryFile, Name: name})
	if f == nil {
		return
	}
	defer r.closeFile(ctx, f)
	off, n := slotRange(a)
	flags := smb2.LockShared
	if a.Rand.IntN(2) == 0 {
		flags = smb2.LockExclusive
	}
	if a.Rand.IntN(2) == 0 {
		flags |= smb2.LockFailImmediately
	}
	in := checks.Input{Offset: int64(off), Length: int64(n), Flags: int(flags)}
	lop, _ := r.do(ctx, OpLock, name, in, func(ctx context.Context) (string, error) {
		return "", f.Lock(ctx, smb2.LockElement{Offset: off, Length: n, Flags: flags})
	})
	if lop.Outcome != checks.OK {
		return
	}
	// Inside its own range (a write only under an exclusive lock: a shared
	// lock lets nobody write), then at a random range.
	r.io(ctx, f, flags&smb2.LockExclusive != 0 && a.Rand.IntN(2) == 0, off, n)
	o2, n2 := slotRange(a)
	r.io(ctx, f, a.Rand.IntN(2) == 0, o2, n2)
	in.Flags = int(smb2.LockUnlock)
	r.do(r.e.AfterStop(ctx), OpUnlock, name, in, func(ctx context.Context) (string, error) {
		return "", f.Unlock(ctx, off, n)
	})
}

// io records a read or a write of [off, off+n) on f.
func (r recorder) io(ctx context.Context, f *smb2.File, write bool, off, n uint64) checks.Op {
	in := checks.Input{Offset: int64(off), Length: int64(n)}
	if write {
		in.Value = fmt.Sprintf("%0*d", n, r.actor&0xffff)[:n]
		op, _ := r.do(ctx, OpWrite, f.Name, in, func(ctx context.Context) (string, error) {
			_, err := f.Write(ctx, off, []byte(in.Value))
			return "", err
		})
		return op
	}
	op, _ := r.do(ctx, OpRead, f.Name, in, func(ctx context.Context) (string, error) {
		b, err := f.Read(ctx, off, int(n))
		return string(b), err
	})
	return op
}

func (w *byteLocks) Final(ctx context.Context, e *workload.Env) error {
	w.s.close()
	return nil
}
