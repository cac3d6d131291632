package files

import (
	"context"
	"fmt"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// shareModes is files.share-modes: every actor, on its own SMB session,
// opens one of the workload's files (keys) per iteration. A share of the
// iterations (read_fraction) opens with one of the mixes below and reads
// the counter when the access allows; the others open exclusively (read
// and write, share none) and, when granted, add one to the counter in the
// file. Every open, close, read and write is recorded; a refused open
// (STATUS_SHARING_VIOLATION) is a conflict.
type shareModes struct {
	s *sessions
}

func init() {
	register("files.share-modes", func(s *sessions) workload.Workload { return &shareModes{s: s} })
}

// mode is one desired access with one share access.
type mode struct{ access, share uint32 }

// exclusive is the holder's open: read/write, nobody else.
var exclusive = mode{smb2.FileReadData | smb2.FileWriteData, smb2.ShareNone}

// mixes are the non-exclusive opens: each conflicts with some of the others
// and with the exclusive open, and the attribute-only one with none.
var mixes = []mode{
	{smb2.FileReadData, smb2.ShareRead},
	{smb2.FileReadData, smb2.ShareRead | smb2.ShareWrite},
	{smb2.FileReadData, smb2.ShareAll},
	{smb2.FileWriteData, smb2.ShareRead},
	{smb2.FileReadData | smb2.FileWriteData, smb2.ShareRead | smb2.ShareWrite},
	{smb2.FileReadData | smb2.Delete, smb2.ShareRead | smb2.ShareDelete},
	{smb2.FileReadAttributes, smb2.ShareNone},
}

func (w *shareModes) Setup(ctx context.Context, e *workload.Env) error {
	return setupFiles(ctx, e, w.s, "files.share-modes", exclusive.access, exclusive.share, func(r recorder, f *smb2.File) checks.Op {
		return r.writeCounter(ctx, f, 0)
	})
}

func (w *shareModes) Iterate(ctx context.Context, a *workload.Actor) {
	e := a.Env
	a.Intended = 0
	m := exclusive
	if a.Rand.Float64() < e.Params.ReadFraction {
		m = mixes[a.Rand.IntN(len(mixes))]
	}
	name := fileName(e, a.Key())
	tr, err := w.s.tree(ctx, a.ID)
	if err != nil {
		a.Pause(ctx, e.Retry.Base) // the server is unreachable: no op was sent
		return
	}
	r := recorder{e: e, actor: a.ID}
	f, _ := r.openFile(ctx, tr, name, m.access, m.share, smb2.FileOpen)
	if f == nil {
		return
	}
	defer r.closeFile(ctx, f)
	if m.access&smb2.FileReadData == 0 {
		return
	}
	v, ok := r.readCounter(ctx, f)
	if ok && m == exclusive {
		r.writeCounter(ctx, f, v+1)
	}
}

// The final read's open waits up to finalRetries × finalRetryGap for a
// sharing violation to clear.
const (
	finalRetries  = 25
	finalRetryGap = 200 * time.Millisecond
)

// Final reads every counter once, on a fresh session, with an open that
// shares everything.
func (w *shareModes) Final(ctx context.Context, e *workload.Env) error {
	defer w.s.close()
	r := recorder{e: e, actor: checks.ActorFinal}
	tr, err := w.s.tree(ctx, checks.ActorFinal)
	if err != nil {
		return fmt.Errorf("files.share-modes: final reads: log on: %w", err)
	}
	for i := range e.Keys {
		if e.KeyN > 0 && (i < e.KeyLo || i >= e.KeyLo+e.KeyN) {
			continue
		}
		f, op := r.openFile(ctx, tr, fileName(e, i), smb2.FileReadData, smb2.ShareAll, smb2.FileOpen)
		// A holder whose connection was lost may keep its exclusive open
		// until the server notices: try again for a few seconds.
		for try := 0; f == nil && op.Outcome == checks.Conflict && try < finalRetries; try++ {
			select {
			case <-ctx.Done():
			case <-time.After(finalRetryGap):
			}
			f, op = r.openFile(ctx, tr, fileName(e, i), smb2.FileReadData, smb2.ShareAll, smb2.FileOpen)
		}
		if f == nil {
			continue
		}
		r.readCounter(ctx, f)
		r.closeFile(ctx, f)
	}
	return nil
}
