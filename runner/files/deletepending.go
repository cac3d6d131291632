package files

import (
	"context"
	"fmt"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// deleteRace is files.delete-pending: every actor, on its own SMB
// session, picks one of the workload's files (keys) per iteration. A share
// of the iterations (1 - read_fraction) is a deleter's: it creates the
// file (FILE_CREATE) or, when it exists, opens it (FILE_OPEN) with DELETE
// access, then either sets the delete
// disposition (SET_INFO FileDispositionInformation; a third of those clear
// it again) or opened it with FILE_DELETE_ON_CLOSE, writes, and closes. At
// most one actor of the process is a key's deleter at a time. The other
// iterations open the file without creating it (FILE_OPEN), read, and
// close, or (one in eight) list the share. Every call is recorded with its
// status: an open refused with STATUS_DELETE_PENDING or
// STATUS_OBJECT_NAME_NOT_FOUND is a conflict.
type deleteRace struct {
	s        *sessions
	deleters keyLocks
}

func init() {
	register("files.delete-pending", func(s *sessions) workload.Workload { return &deleteRace{s: s} })
}

// Every open shares everything: the only refusals are the delete's.
const (
	deleterAccess = smb2.FileReadData | smb2.FileWriteData | smb2.FileReadAttributes | smb2.Delete
	openerAccess  = smb2.FileReadData | smb2.FileReadAttributes
)

func (w *deleteRace) Setup(ctx context.Context, e *workload.Env) error { return nil }

func (w *deleteRace) Iterate(ctx context.Context, a *workload.Actor) {
	name, tr, r, ok := w.s.turn(ctx, a)
	if !ok {
		return
	}
	e := a.Env
	if a.Rand.Float64() >= e.Params.ReadFraction {
		if l := w.deleters.of(name); l.TryLock() {
			defer l.Unlock()
			w.delete(ctx, a, r, tr, name)
			return
		}
	}
	if a.Rand.IntN(8) == 0 {
		r.list(ctx, tr, e.Prefix+"-")
		return
	}
	f, _ := r.create(ctx, tr, smb2.CreateRequest{DesiredAccess: openerAccess, ShareAccess: smb2.ShareAll,
		Disposition: smb2.FileOpen, CreateOptions: smb2.FileNonDirectoryFile, Name: name})
	if f == nil {
		return
	}
	defer r.closeFile(ctx, f)
	r.do(ctx, OpRead, name, checks.Input{Offset: 0, Length: counterWidth}, func(ctx context.Context) (string, error) {
		b, err := f.Read(ctx, 0, counterWidth)
		if smb2.IsStatus(err, smb2.StatusEndOfFile) {
			return "", nil
		}
		return string(b), err
	})
}

// delete is one deleter's turn on name.
func (w *deleteRace) delete(ctx context.Context, a *workload.Actor, r recorder, tr *smb2.Tree, name string) {
	opts := smb2.FileNonDirectoryFile
	onClose := a.Rand.IntN(2) == 0
	if onClose {
		opts |= smb2.FileDeleteOnClose
	}
	req := smb2.CreateRequest{DesiredAccess: deleterAccess, ShareAccess: smb2.ShareAll,
		Disposition: smb2.FileCreate, CreateOptions: opts, Name: name}
	f, op := r.create(ctx, tr, req)
	if op.Out.ErrorCode == smb2.StatusObjectNameCollision.String() {
		req.Disposition = smb2.FileOpen
		f, _ = r.create(ctx, tr, req)
	}
	if f == nil {
		return
	}
	defer r.closeFile(ctx, f)
	if !onClose {
		if op := r.setDisposition(ctx, f, true); op.Outcome == checks.OK && a.Rand.IntN(3) == 0 {
			r.writeCounter(ctx, f, int64(a.ID))
			r.setDisposition(ctx, f, false)
		}
	}
	r.writeCounter(ctx, f, int64(a.ID))
}

// Final lists the share once more, after every actor closed.
func (w *deleteRace) Final(ctx context.Context, e *workload.Env) error {
	defer w.s.close()
	tr, err := w.s.tree(ctx, checks.ActorFinal)
	if err != nil {
		return fmt.Errorf("files.delete-pending: final listing: log on: %w", err)
	}
	recorder{e: e, actor: checks.ActorFinal}.list(ctx, tr, e.Prefix+"-")
	return nil
}
