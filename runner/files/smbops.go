package files

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Op kinds of the delete-pending, byte-range lock and lease workloads
// (files.lock and files.unlock are interplay.go's OpLock and OpUnlock).
const (
	OpList  = "files.list"
	OpBreak = "files.break"
	OpAck   = "files.ack"
)

// oplockNames name the oplock a CREATE response granted (Out.Value).
var oplockNames = map[uint8]string{
	smb2.OplockII:        "oplock II",
	smb2.OplockExclusive: "oplock exclusive",
	smb2.OplockBatch:     "oplock batch",
}

// create records a CREATE exactly as req says: access, share,
// disposition and create options go in the op's input, the granted lease
// ("lease RWH") or oplock ("oplock batch") in Out.Value; nil file unless
// granted.
func (r recorder) create(ctx context.Context, tr *smb2.Tree, req smb2.CreateRequest) (*smb2.File, checks.Op) {
	var f *smb2.File
	in := checks.Input{Access: int(req.DesiredAccess), Share: int(req.ShareAccess), Disposition: int(req.Disposition), Flags: int(req.CreateOptions)}
	op, _ := r.do(ctx, OpOpen, req.Name, in, func(ctx context.Context) (string, error) {
		var err error
		f, err = tr.Create(ctx, req)
		if err != nil {
			return "", err
		}
		if l, ok := f.Create.Lease(); ok {
			return "lease " + l.State.String(), nil
		}
		return oplockNames[f.Create.OplockLevel], nil
	})
	return f, op
}

// setDisposition records a SET_INFO FileDispositionInformation on f as
// OpSetDelete: In.Value "delete" sets the delete disposition, "keep"
// clears it.
func (r recorder) setDisposition(ctx context.Context, f *smb2.File, del bool) checks.Op {
	v := "keep"
	if del {
		v = "delete"
	}
	op, _ := r.do(ctx, OpSetDelete, f.Name, checks.Input{Value: v}, func(ctx context.Context) (string, error) {
		return "", f.SetDeleteOnClose(ctx, del)
	})
	return op
}

// list records a listing of the share's root; Out.Value holds the names
// that start with prefix, sorted, one per line.
func (r recorder) list(ctx context.Context, tr *smb2.Tree, prefix string) checks.Op {
	op, _ := r.do(ctx, OpList, "", checks.Input{}, func(ctx context.Context) (string, error) {
		es, err := tr.ReadDir(ctx, "")
		if err != nil {
			return "", err
		}
		var names []string
		for _, e := range es {
			if strings.HasPrefix(e.Name, prefix) {
				names = append(names, e.Name)
			}
		}
		sort.Strings(names)
		return strings.Join(names, "\n"), nil
	})
	return op
}

// keyLocks lets at most one actor of this process play a role on a key
// at a time (the harness's own coordination, not what is checked).
type keyLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

func (k *keyLocks) of(key string) *sync.Mutex {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]*sync.Mutex{}
	}
	l := k.m[key]
	if l == nil {
		l = &sync.Mutex{}
		k.m[key] = l
	}
	return l
}

// register registers an SMB workload kind made from the target's sessions.
func register(kind string, mk func(s *sessions) workload.Workload) {
	workload.Register(kind, func(_ scenarios.Workload, t *target.Target) (workload.Workload, error) {
		s, err := newSessions(t)
		if err != nil {
			return nil, err
		}
		return mk(s), nil
	})
}

// setupFiles creates (or truncates) each key's file as the setup actor,
// with access and share, and stores its first content with fill; kind
// names the workload in errors. Nothing is done for a run that attaches.
func setupFiles(ctx context.Context, e *workload.Env, s *sessions, kind string, access, share uint32, fill func(r recorder, f *smb2.File) checks.Op) error {
	if e.AttachOnly {
		return nil
	}
	r := recorder{e: e, actor: checks.ActorSetup}
	tr, err := s.tree(ctx, checks.ActorSetup)
	if err != nil {
		return fmt.Errorf("%s: log on to %s: %w", kind, s.t.Desc, err)
	}
	for i := range e.Keys {
		f, op := r.create(ctx, tr, smb2.CreateRequest{DesiredAccess: access, ShareAccess: share,
			Disposition: smb2.FileOverwriteIf, CreateOptions: smb2.FileNonDirectoryFile, Name: fileName(e, i)})
		if f == nil {
			return fmt.Errorf("%s: create %s: %s %s", kind, op.Key, op.Outcome, op.Out.ErrorCode+op.Out.Err)
		}
		wop := fill(r, f)
		if cop := r.closeFile(ctx, f); wop.Outcome != checks.OK || cop.Outcome != checks.OK {
			return fmt.Errorf("%s: set up %s: write %s, close %s", kind, op.Key, wop.Outcome, cop.Outcome)
		}
	}
	return nil
}

// turn starts an actor's iteration: the file of the key it picks, its
// session's tree and its recorder; ok is false (after a pause) when the
// server could not be reached, and no op was sent.
func (s *sessions) turn(ctx context.Context, a *workload.Actor) (name string, tr *smb2.Tree, r recorder, ok bool) {
	e := a.Env
	a.Intended = 0
	name = fileName(e, a.Key())
	tr, err := s.tree(ctx, a.ID)
	if err != nil {
		a.Pause(ctx, e.Retry.Base)
		return "", nil, r, false
	}
	return name, tr, recorder{e: e, actor: a.ID}, true
}
