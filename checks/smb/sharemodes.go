package smb

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// ShareModesName is the share-modes check as scenarios name it.
const ShareModesName = "share-modes"

func init() {
	checks.Register(ShareModesName, func() checks.Checker { return NewShareModes() })
}

// Op kinds the check reads (recorded by runner/files).
const (
	opOpen  = "files.open"
	opClose = "files.close"
	opRead  = "files.read"
	opWrite = "files.write"
)

// Access and share bits of MS-SMB2 2.2.13 the share access check reads.
const (
	fileReadData   = 0x1
	fileWriteData  = 0x2
	fileAppendData = 0x4
	fileExecute    = 0x20
	accessDelete   = 0x10000
	shareRead      = 0x1
	shareWrite     = 0x2
	shareDelete    = 0x4

	dataAccess = fileReadData | fileExecute | fileWriteData | fileAppendData | accessDelete
)

// Conflict reports whether two opens of one file, with these desired
// accesses and share accesses, may not be granted at the same time:
// MS-FSA 2.1.5.1.2.2. Only opens whose access includes reading, executing,
// writing, appending or deleting take part; then either one's access
// needs the share bit the other withheld.
func Conflict(accessA, shareA, accessB, shareB int) bool {
	if accessA&dataAccess == 0 || accessB&dataAccess == 0 {
		return false
	}
	refused := func(access, otherShare int) bool {
		return (access&(fileReadData|fileExecute) != 0 && otherShare&shareRead == 0) ||
			(access&(fileWriteData|fileAppendData) != 0 && otherShare&shareWrite == 0) ||
			(access&accessDelete != 0 && otherShare&shareDelete == 0)
	}
	return refused(accessA, shareB) || refused(accessB, shareA)
}

// exclusiveAccess is an open that grants its holder the file alone for
// the counter's read-modify-write: read and write data, share nothing.
func exclusiveOpen(op *checks.Op) bool {
	return op.In.Access&(fileReadData|fileWriteData) == fileReadData|fileWriteData && op.In.Share == 0
}

// handle is one granted open: certainly held from its grant's return to
// end, the call of its close, or, when the history holds no answered close
// (none, or its connection broke), the call of its holder's last answered
// read or write on it (or the grant itself): never longer than the truth,
// so every overlap found is real.
type handle struct {
	open checks.Op
	end  int64
}

// counter is one file's counter under exclusive opens.
type counter struct {
	initial      *checks.Op
	okWrites     []checks.Op
	maybeWrites  int
	final        *checks.Op
	byValue      map[string]checks.Op
	lastExclOpen map[int]bool // actor -> its held open is exclusive
}

// ShareModes is the share-modes check: from the history alone, (1) no two
// granted opens of one file whose access and share modes conflict (MS-FSA)
// were held at the same time, and (2) no counter increment made under an
// exclusive open was lost: no two acknowledged writes stored the same
// value, and the final value read lies between the acknowledged increments
// and those plus the writes of unknown outcome.
type ShareModes struct {
	handles  map[string][]*handle // key -> granted opens
	held     map[heldKey]*handle  // the open each actor holds on each key
	counters map[string]*counter  // key -> its counter
	opens    int
}

type heldKey struct {
	actor int
	key   string
}

// NewShareModes makes the check.
func NewShareModes() *ShareModes {
	return &ShareModes{handles: map[string][]*handle{}, held: map[heldKey]*handle{}, counters: map[string]*counter{}}
}

func (c *ShareModes) Name() string { return ShareModesName }

func (c *ShareModes) counter(k string) *counter {
	ct := c.counters[k]
	if ct == nil {
		ct = &counter{byValue: map[string]checks.Op{}}
		c.counters[k] = ct
	}
	return ct
}

func (c *ShareModes) Observe(op *checks.Op) {
	hk := heldKey{op.Actor, op.Key}
	h := c.held[hk]
	switch op.Kind {
	case opOpen:
		c.opens++
		if op.Outcome != checks.OK {
			return // refused; or unknown: it may have been granted, but nothing bounds when it was held
		}
		h = &handle{open: *op, end: op.Return}
		c.handles[op.Key] = append(c.handles[op.Key], h)
		c.held[hk] = h
	case opClose:
		if h != nil {
			if alive(op) {
				h.end = max(h.end, op.Call)
			}
			delete(c.held, hk)
		}
	case opRead:
		if op.Actor == checks.ActorFinal && op.Outcome == checks.OK {
			o := *op
			c.counter(op.Key).final = &o
		}
		if h != nil && alive(op) {
			h.end = max(h.end, op.Call)
		}
	case opWrite:
		ct := c.counter(op.Key)
		switch {
		case op.Actor == checks.ActorSetup:
			if op.Outcome == checks.OK {
				o := *op
				ct.initial = &o
			}
		case h != nil && exclusiveOpen(&h.open):
			if op.Outcome == checks.OK {
				ct.okWrites = append(ct.okWrites, *op)
			} else {
				ct.maybeWrites++ // no answer, or an error: it may have applied
			}
		}
		if h != nil && alive(op) {
			h.end = max(h.end, op.Call)
		}
	}
}

func (c *ShareModes) Finish() checks.Result {
	var v checks.Violations
	granted := 0
	for _, k := range sortedKeys(c.handles) {
		hs := c.handles[k]
		sort.Slice(hs, func(i, j int) bool { return hs[i].open.Return < hs[j].open.Return })
		granted += len(hs)
		for i, a := range hs {
			for _, b := range hs[i+1:] {
				if b.open.Return >= a.end {
					break // b was granted after a was last known held; so were the later ones
				}
				if Conflict(a.open.In.Access, a.open.In.Share, b.open.In.Access, b.open.In.Share) {
					v.Add(k, fmt.Sprintf("two opens whose access and share modes conflict were held at the same time: %s, granted and not yet closed when %s was granted",
						modes(&a.open), modes(&b.open)), a.open, b.open)
				}
			}
		}
	}
	judged, undecided := 0, []string{}
	for _, k := range sortedKeys(c.counters) {
		ct := c.counters[k]
		for _, w := range ct.okWrites {
			if prev, dup := ct.byValue[w.In.Value]; dup {
				v.Add(k, fmt.Sprintf("lost update: two acknowledged writes under exclusive opens both stored %s (both read the same value)", w.In.Value), prev, w)
				continue
			}
			ct.byValue[w.In.Value] = w
		}
		if ct.final == nil || ct.initial == nil {
			undecided = append(undecided, k+": no set-up write or final read")
			continue
		}
		judged++
		start, err1 := strconv.ParseInt(ct.initial.In.Value, 10, 64)
		final, err2 := strconv.ParseInt(ct.final.Out.Value, 10, 64)
		if err1 != nil || err2 != nil {
			v.Add(k, fmt.Sprintf("the counter is not a number: set up as %q, read at the end as %q", ct.initial.In.Value, ct.final.Out.Value), *ct.initial, *ct.final)
			continue
		}
		lo, hi := start+int64(len(ct.okWrites)), start+int64(len(ct.okWrites)+ct.maybeWrites)
		if final < lo || final > hi {
			ops := []checks.Op{*ct.initial, *ct.final}
			if n := len(ct.okWrites); n > 0 {
				ops = append(ops, ct.okWrites[n-1])
			}
			what := "lost update"
			if final > hi {
				what = "more increments than were made"
			}
			v.Add(k, fmt.Sprintf("%s: the counter ends at %d; from %d with %d acknowledged increments and %d of unknown outcome it must end within %d..%d",
				what, final, start, len(ct.okWrites), ct.maybeWrites, lo, hi), ops...)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d opens, %d granted, %d counters judged", ShareModesName, c.opens, granted, judged)
	r := v.Conclude(ShareModesName, &b, undecided, "no conflicting opens held at once, no update lost", "")
	return r.WithDecided(granted).Of(c.opens)
}

// alive reports whether op's answer shows its handle was still open when
// the server took it: an answer of success or a documented refusal. A
// call with no answer (its connection broke: the server closes the
// session's handles at some unknown time) or another error shows nothing.
func alive(op *checks.Op) bool { return op.Outcome == checks.OK || op.Outcome == checks.Conflict }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// modes renders an open's access and share masks.
func modes(op *checks.Op) string {
	return fmt.Sprintf("actor %d access=%#x share=%#x", op.Actor, op.In.Access, op.In.Share)
}
