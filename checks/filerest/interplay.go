package filerest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// InterplayName is the files-interplay check as scenarios name it.
const InterplayName = "files-interplay"

func init() {
	checks.Register(InterplayName, func() checks.Checker { return NewInterplay() })
}

// The SMB access bits that make an open take part in share modes
// (MS-SMB2 2.2.13), and the status names runner/files records.
const (
	accessData           = 0x1 | 0x2 | 0x4 | 0x20 | 0x10000
	statusDeletePending  = "STATUS_DELETE_PENDING"
	codeSharingViolation = "SharingViolation"
	codeFileLockConflict = "FileLockConflict"
)

// fileState is what one actor's SMB handles and REST calls certainly left
// on one of its files (files.interplay gives every actor files of its own,
// so nothing else changes them).
type fileState struct {
	shareNone     *checks.Op // a granted open sharing nothing, not yet closed
	deletePending *checks.Op // the delete disposition set on an open handle
	locked        *checks.Op // a granted byte-range lock, not yet released
	deleted       *checks.Op // a REST delete or the close of a delete-pending handle, acknowledged
	// unsure: an SMB call on the file had no certain outcome (an open that
	// may hold the file, a close or unlock that may not have happened), so
	// what the file's handles hold is not known any more: nothing on it is
	// judged again.
	unsure bool
}

type stateKey struct {
	actor int
	key   string
}

// Interplay is the files-interplay check (see the package doc).
type Interplay struct {
	state   map[stateKey]*fileState
	judged  int
	calls   int
	pending map[string]int // how a delete-pending file was answered: error code -> count
	vs      checks.Violations
}

// NewInterplay makes the check.
func NewInterplay() *Interplay {
	return &Interplay{state: map[stateKey]*fileState{}, pending: map[string]int{}}
}

func (c *Interplay) Name() string { return InterplayName }

// answered reports whether op has the service's answer (a status), which
// the rules judge; no answer, a 5xx or a timeout says nothing.
func answered(op *checks.Op) bool { return op.Out.Status > 0 && op.Out.Status < 500 }

func (c *Interplay) Observe(op *checks.Op) {
	c.calls++
	sk := stateKey{op.Actor, op.Key}
	st := c.state[sk]
	if st == nil {
		st = &fileState{}
		c.state[sk] = st
	}
	ok := op.Outcome == checks.OK
	switch op.Kind {
	case opOpen, opSetDelete, opLock:
		st.unsure = st.unsure || op.Outcome == checks.Unknown
	case opClose, opUnlock:
		st.unsure = st.unsure || !ok
	}
	if st.unsure {
		return
	}
	switch op.Kind {
	case opCreate:
		if ok {
			*st = fileState{}
		}
	case opOpen:
		if ok && op.In.Share == 0 && op.In.Access&accessData != 0 {
			o := *op
			st.shareNone = &o
		}
		if st.deleted != nil && (ok || op.Out.ErrorCode != "") {
			c.judged++
			if op.Out.ErrorCode == statusDeletePending {
				c.v().Add(op.Key, "delete left pending: an SMB open after the file was deleted got STATUS_DELETE_PENDING (a REST delete is atomic, an SMB delete completes at the last close)", *st.deleted, *op)
			} else if ok {
				c.v().Add(op.Key, "deleted file opened: an SMB open of a file whose deletion was acknowledged succeeded", *st.deleted, *op)
			}
		}
	case opClose:
		if st.deletePending != nil && ok {
			o := *op
			st.deleted = &o
		}
		st.shareNone, st.deletePending, st.locked = nil, nil, nil
	case opSetDelete:
		if ok {
			o := *op
			st.deletePending = &o
		}
	case opLock:
		if ok {
			o := *op
			st.locked = &o
		}
	case opUnlock:
		st.locked = nil
	case opDelete:
		if ok {
			o := *op
			st.deleted = &o
		}
	case opGet, opPutRange, opGetProps, opList:
		c.rest(op, st)
	}
}

// rest judges a REST call against what the actor's SMB handles hold.
func (c *Interplay) rest(op *checks.Op, st *fileState) {
	if !answered(op) {
		return
	}
	got := fmt.Sprintf("%d %s", op.Out.Status, op.Out.ErrorCode)
	switch {
	case st.deletePending != nil && op.Kind == opList:
		c.judged++
		if op.Outcome == checks.OK && strings.Contains(" "+op.Out.Value+" ", " "+op.Key+" ") {
			c.v().Add(op.Key, "delete-pending file listed: List Directories and Files returned a file whose delete is pending", *st.deletePending, *op)
		}
	case st.deletePending != nil:
		c.judged++
		if op.Out.Status == http.StatusConflict && (op.Out.ErrorCode == "SMBDeletePending" || op.Out.ErrorCode == "DeletePending") {
			c.pending[op.Out.ErrorCode]++
			return
		}
		c.v().Add(op.Key, fmt.Sprintf("delete-pending file answered: %s got %s while its delete was pending (want 409 SMBDeletePending or DeletePending, never 404 or success)", op.Kind, got), *st.deletePending, *op)
	case st.shareNone != nil && op.Kind != opList:
		c.judged++
		if op.Out.Status != http.StatusConflict || op.Out.ErrorCode != codeSharingViolation {
			c.v().Add(op.Key, fmt.Sprintf("sharing violation missed: %s got %s while an SMB handle that shares nothing was open (want 409 SharingViolation)", op.Kind, got), *st.shareNone, *op)
		}
	case st.locked != nil && op.Kind == opPutRange:
		c.judged++
		if op.Out.Status != http.StatusConflict || op.Out.ErrorCode != codeFileLockConflict {
			c.v().Add(op.Key, fmt.Sprintf("lock conflict missed: Put Range inside another handle's byte-range lock (%s) got %s (want 409 FileLockConflict)", st.locked.In.Value, got), *st.locked, *op)
		}
	case st.deleted != nil && op.Kind == opGetProps:
		c.judged++
		if op.Out.Status != http.StatusNotFound {
			c.v().Add(op.Key, fmt.Sprintf("deleted file answered: Get File Properties got %s after the file's deletion was acknowledged (want 404)", got), *st.deleted, *op)
		}
	}
}

func (c *Interplay) v() *checks.Violations { return &c.vs }

func (c *Interplay) Finish() checks.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d calls, %d judged", InterplayName, c.calls, c.judged)
	suffix := ""
	if n := c.pending["SMBDeletePending"] + c.pending["DeletePending"]; n > 0 {
		suffix = fmt.Sprintf(" (delete-pending answered SMBDeletePending %d, DeletePending %d)", c.pending["SMBDeletePending"], c.pending["DeletePending"])
	}
	r := c.vs.Conclude(InterplayName, &b, nil, "every REST call on a file an SMB client holds refused as documented", suffix)
	return r.WithDecided(c.judged).Of(c.judged)
}
