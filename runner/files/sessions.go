package files

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// Op kinds the SMB workloads record.
const (
	OpOpen  = "files.open"
	OpClose = "files.close"
	OpRead  = "files.read"
	OpWrite = "files.write"
)

// counterWidth is the size of a counter file: the value in decimal, padded
// with zeros, so a write never leaves a longer old value's tail behind.
const counterWidth = 20

// CounterText is v as a counter file holds it.
func CounterText(v int64) string { return fmt.Sprintf("%0*d", counterWidth, v) }

// sessions keeps one SMB session per actor: each actor is its own client,
// as the share-mode rules are about handles of different opens.
type sessions struct {
	t *target.Target
	// addr, creds, share and opts are how each session logs on.
	addr  string
	creds smb2.Credentials
	share string
	opts  smb2.Options
	mu    sync.Mutex
	trees map[int]*smb2.Tree
	// onBreak, when set, receives each actor's lease and oplock breaks
	// (else they are acknowledged automatically).
	onBreak func(actor int, b *smb2.Break)
}

func newSessions(t *target.Target) (*sessions, error) {
	if t == nil || t.Samba == nil {
		return nil, errors.New("files workloads need an SMB share: use target kind samba")
	}
	inst := t.Samba
	addr := inst.Addr
	if t.SMBAddr != "" {
		addr = t.SMBAddr // through the fault stages
	}
	// A server that requires signing or encryption gets it on every
	// request, and an answer that is not signed (sealed) is refused.
	opts := smb2.Options{RequireSigning: inst.RequireSigning, RequireEncryption: inst.RequireEncryption}
	return &sessions{t: t, addr: addr, creds: smb2.Credentials{User: inst.User, Password: inst.Password}, share: inst.Share,
		opts: opts, trees: map[int]*smb2.Tree{}}, nil
}

// tree returns actor's tree, logging on again when its connection broke.
func (s *sessions) tree(ctx context.Context, actor int) (*smb2.Tree, error) {
	s.mu.Lock()
	tr := s.trees[actor]
	s.mu.Unlock()
	if tr != nil && tr.Session().Conn().Err() == nil {
		return tr, nil
	}
	if tr != nil {
		_ = tr.Session().Conn().Close()
	}
	opts := s.opts
	if s.onBreak != nil {
		opts.OnBreak = func(b *smb2.Break) { s.onBreak(actor, b) }
	}
	c, err := smb2.Dial(ctx, s.addr, opts)
	if err != nil {
		return nil, err
	}
	sess, err := c.SessionSetup(ctx, s.creds)
	if err == nil {
		tr, err = sess.TreeConnect(ctx, s.share)
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	s.mu.Lock()
	s.trees[actor] = tr
	s.mu.Unlock()
	return tr, nil
}

// close ends every session.
func (s *sessions) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, tr := range s.trees {
		_ = tr.Session().Conn().Close()
		delete(s.trees, id)
	}
}

// recorder records one SMB call as an op of actor (an actor id, or
// checks.ActorSetup / checks.ActorFinal).
type recorder struct {
	e     *workload.Env
	actor int
}

// do runs fn under the scenario's attempt timeout and records it: outcome
// from the error (see outcomeOf), in as sent, out's value as fn set it.
func (r recorder) do(ctx context.Context, kind, key string, in checks.Input, fn func(ctx context.Context) (string, error)) (checks.Op, string) {
	e := r.e
	call := e.Rec.Now()
	actx, cancel := ctx, context.CancelFunc(func() {})
	if e.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, e.Timeout)
	}
	v, err := fn(actx)
	cancel()
	op := checks.Op{Actor: r.actor, Workload: e.Name, Kind: kind, Key: key, Attempt: 1, Intended: call, Call: call,
		Return: e.Rec.Now(), In: in}
	op.Outcome, op.Out = outcomeOf(err)
	if err == nil {
		op.Out.Value = v
	}
	e.Rec.Record(&op)
	return op, v
}

// documentedRefusal are the statuses a lost race gets by design: a sharing
// violation, an open of a delete-pending or deleted file, a create of a
// file that exists, a byte-range
// lock not granted, I/O inside another handle's locked range.
var documentedRefusal = map[smb2.Status]bool{
	smb2.StatusSharingViolation:    true,
	smb2.StatusDeletePending:       true,
	smb2.StatusObjectNameNotFound:  true,
	smb2.StatusObjectNameCollision: true,
	smb2.StatusLockNotGranted:      true,
	smb2.StatusFileLockConflict:    true,
}

// outcomeOf classifies an SMB call's error: none is ok; a documented
// refusal (above) is a conflict; any other status the server answered is an
// error (it refused, nothing happened); no answer at all (a broken
// connection, a timeout) is unknown.
func outcomeOf(err error) (checks.Outcome, checks.Output) {
	if err == nil {
		return checks.OK, checks.Output{}
	}
	st, answered := smb2.StatusOf(err)
	switch {
	case answered && documentedRefusal[st]:
		return checks.Conflict, checks.Output{ErrorCode: st.String()}
	case answered:
		return checks.Error, checks.Output{ErrorCode: st.String(), Err: err.Error()}
	}
	return checks.Unknown, checks.Output{Err: err.Error()}
}

// fileName is key i's file in the share.
func fileName(e *workload.Env, i int) string { return e.Prefix + "-" + workload.KeyName(i) + ".txt" }

// openFile records an open of name with access and share; nil file unless
// granted.
func (r recorder) openFile(ctx context.Context, tr *smb2.Tree, name string, access, share uint32, disp smb2.CreateDisposition) (*smb2.File, checks.Op) {
	var f *smb2.File
	op, _ := r.do(ctx, OpOpen, name, checks.Input{Access: int(access), Share: int(share)}, func(ctx context.Context) (string, error) {
		var err error
		f, err = tr.OpenFile(ctx, name, access, share, disp)
		return "", err
	})
	return f, op
}

// closeFile records the close of f. A holder closes even once the load
// stopped: then under the run's stopping stage (Env.AfterStop), one
// deadline for every such call, cut by the next Ctrl-C.
func (r recorder) closeFile(ctx context.Context, f *smb2.File) checks.Op {
	op, _ := r.do(r.e.AfterStop(ctx), OpClose, f.Name, checks.Input{}, func(ctx context.Context) (string, error) {
		return "", f.Close(ctx)
	})
	return op
}

// readCounter records a read of f's counter; ok when it read a number.
func (r recorder) readCounter(ctx context.Context, f *smb2.File) (int64, bool) {
	op, v := r.do(ctx, OpRead, f.Name, checks.Input{}, func(ctx context.Context) (string, error) {
		b, err := f.Read(ctx, 0, counterWidth)
		return string(b), err
	})
	if op.Outcome != checks.OK {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// writeCounter records a write of v as f's counter.
func (r recorder) writeCounter(ctx context.Context, f *smb2.File, v int64) checks.Op {
	text := CounterText(v)
	op, _ := r.do(ctx, OpWrite, f.Name, checks.Input{Value: text}, func(ctx context.Context) (string, error) {
		_, err := f.Write(ctx, 0, []byte(text))
		return "", err
	})
	return op
}
