package files

import (
	"context"
	"sync"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// leases is files.leases: every actor, on its own SMB session, opens one
// of the workload's files (keys) per iteration. A share of the iterations
// (1 - read_fraction) is a holder's: it opens the file (read and write,
// sharing everything) asking for a read-write-handle lease under a key of
// its own (or, one in four, a batch oplock), reads, writes and closes. The
// others open it with no lease (read, or read and write), read and close:
// such an open breaks a holder's write caching, and the server must hold it
// until the holder acknowledged the break. Each actor records the breaks
// it receives (files.break: current state in, new state out) and its
// acknowledgements (files.ack), which it sends at once.
type leases struct {
	s *sessions

	mu     sync.Mutex
	e      *workload.Env
	names  map[[16]byte]string // lease key -> file name
	fids   map[smb2.FileID]*oplockHeld
	closed bool
	acking sync.WaitGroup
}

func init() {
	register("files.leases", func(s *sessions) workload.Workload {
		w := &leases{s: s, names: map[[16]byte]string{}, fids: map[smb2.FileID]*oplockHeld{}}
		s.onBreak = w.onBreak
		return w
	})
}

const holderLease = smb2.LeaseRead | smb2.LeaseWrite | smb2.LeaseHandle

// oplockHeld is a holder's oplock: its file and current level.
type oplockHeld struct {
	name  string
	level uint8
}

func (w *leases) Setup(ctx context.Context, e *workload.Env) error {
	w.mu.Lock()
	w.e = e
	w.mu.Unlock()
	return setupFiles(ctx, e, w.s, "files.leases", smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, func(r recorder, f *smb2.File) checks.Op {
		return r.writeCounter(ctx, f, 0)
	})
}

func (w *leases) Iterate(ctx context.Context, a *workload.Actor) {
	name, tr, r, ok := w.s.turn(ctx, a)
	if !ok {
		return
	}
	e := a.Env
	req := smb2.CreateRequest{DesiredAccess: smb2.FileReadData, ShareAccess: smb2.ShareAll,
		Disposition: smb2.FileOpen, CreateOptions: smb2.FileNonDirectoryFile, Name: name}
	holder := a.Rand.Float64() >= e.Params.ReadFraction
	var key [16]byte
	switch {
	case holder && a.Rand.IntN(4) == 0:
		req.DesiredAccess |= smb2.FileWriteData
		req.OplockLevel = smb2.OplockBatch
	case holder:
		req.DesiredAccess |= smb2.FileWriteData
		req.OplockLevel = smb2.OplockLease
		for i := range key {
			key[i] = byte(a.Rand.IntN(256))
		}
		req.Contexts = []smb2.CreateContext{smb2.LeaseContext(smb2.Lease{Version: leaseVersion(tr), Key: key, State: holderLease})}
		w.mu.Lock()
		w.names[key] = name
		w.mu.Unlock()
		defer func() { w.mu.Lock(); delete(w.names, key); w.mu.Unlock() }()
	case a.Rand.IntN(2) == 0:
		req.DesiredAccess |= smb2.FileWriteData
	}
	f, _ := r.create(ctx, tr, req)
	if f == nil {
		return
	}
	if lvl := f.Create.OplockLevel; req.OplockLevel == smb2.OplockBatch && lvl != smb2.OplockNone {
		w.mu.Lock()
		w.fids[f.ID] = &oplockHeld{name: name, level: lvl}
		w.mu.Unlock()
		defer func() { w.mu.Lock(); delete(w.fids, f.ID); w.mu.Unlock() }()
	}
	defer r.closeFile(ctx, f)
	v, ok := r.readCounter(ctx, f)
	if ok && holder {
		r.writeCounter(ctx, f, v+1)
	}
}

// leaseVersion is 2 on SMB 3.x, 1 on 2.1.
func leaseVersion(tr *smb2.Tree) int {
	if tr.Session().Conn().Dialect >= smb2.Dialect300 {
		return 2
	}
	return 1
}

// onBreak records a break actor's session received and acknowledges it at
// once (when the server asks for an acknowledgement).
func (w *leases) onBreak(actor int, b *smb2.Break) {
	w.mu.Lock()
	e := w.e
	if w.closed || e == nil {
		w.mu.Unlock()
		return
	}
	w.acking.Add(1)
	defer w.acking.Done()
	var name, cur, next string
	var ack bool
	switch {
	case b.Lease != nil:
		name, cur, next = w.names[b.Lease.Key], "lease "+b.Lease.CurrentState.String(), "lease "+b.Lease.NewState.String()
		ack = b.Lease.AckRequired()
	case b.Oplock != nil:
		o := w.fids[b.Oplock.FileID]
		if o == nil {
			break
		}
		name, cur, next = o.name, oplockNames[o.level], oplockNames[b.Oplock.OplockLevel]
		if next == "" {
			next = "oplock none"
		}
		// A break from level II is not acknowledged (MS-SMB2 3.2.5.19.1).
		ack = o.level != smb2.OplockII
		o.level = b.Oplock.OplockLevel
	}
	w.mu.Unlock()
	w.s.mu.Lock()
	tr := w.s.trees[actor]
	w.s.mu.Unlock()
	if name == "" || tr == nil {
		return // a handle already closed
	}
	r := recorder{e: e, actor: actor}
	ctx := context.Background()
	r.do(ctx, OpBreak, name, checks.Input{Value: cur}, func(context.Context) (string, error) { return next, nil })
	if !ack {
		return
	}
	r.do(ctx, OpAck, name, checks.Input{Value: next}, func(ctx context.Context) (string, error) {
		st, err := tr.AckBreak(ctx, b)
		if b.Lease != nil && err == nil {
			return "lease " + st.String(), nil
		}
		return "", err
	})
}

// Final closes every session once no acknowledgement is under way.
func (w *leases) Final(ctx context.Context, e *workload.Env) error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.s.close()
	w.acking.Wait()
	return nil
}
