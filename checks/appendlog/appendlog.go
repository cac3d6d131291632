package appendlog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// Name is the append-log check as scenarios name it.
const Name = "append-log"

func init() {
	checks.Register(Name, func() checks.Checker { return New() })
}

// opAppend is Append Block as runner/blob records it: In.Value the record
// sent, In.AppendPos the position condition, Out.AppendOffset the offset
// the service acknowledged.
const opAppend = "blob.append"

// Violation kinds.
const (
	kindMissing   = "acknowledged append missing"
	kindOffset    = "offset mismatch"
	kindPosition  = "append position ignored"
	kindDuplicate = "duplicate append"
	kindRetried   = "retried append landed twice"
	kindRefused   = "refused append landed"
	kindGap       = "gap"
	kindForeign   = "foreign bytes"
)

// attempt is one recorded Append Block attempt.
type attempt struct {
	op checks.Op
	// append numbers the logical append (one Do: its first attempt and
	// its retries) the attempt belongs to.
	append int
	// landed: the record was found in the log, at offset at.
	landed bool
	at     int64
}

// log is one append blob's attempts and final read.
type log struct {
	attempts []*attempt
	final    *checks.Op
}

// Check is the append-log check: from the history alone, the final content
// of each append blob is exactly its acknowledged appends, each once, at
// the offset the service acknowledged (x-ms-blob-append-offset), with no
// gap and no byte no append sent; an append of unknown outcome appears at
// most once, and every append that landed landed at the position its
// condition named; no two attempts of one append (a retry) both landed; an
// append refused (412, or an error that certainly did not apply) never
// appears.
type Check struct {
	logs map[string]*log
	// current is each actor's logical append (a first attempt opens one,
	// a retry continues it).
	current map[string]int
	appends int
}

// New returns a fresh append-log check.
func New() *Check { return &Check{logs: map[string]*log{}, current: map[string]int{}} }

// Name is the check's name.
func (c *Check) Name() string { return Name }

func (c *Check) log(key string) *log {
	l := c.logs[key]
	if l == nil {
		l = &log{}
		c.logs[key] = l
	}
	return l
}

// Observe takes the next operation.
func (c *Check) Observe(op *checks.Op) {
	switch {
	case op.Kind == opAppend:
		who := op.Workload + "/" + fmt.Sprint(op.Actor)
		if op.Attempt <= 1 {
			c.appends++
			c.current[who] = c.appends
		}
		c.log(op.Key).attempts = append(c.log(op.Key).attempts, &attempt{op: *op, append: c.current[who]})
	case op.Kind == checks.KindBlobReadLog && op.Actor == checks.ActorFinal && (op.Outcome == checks.OK || op.Out.Status == 404):
		// A 404 (no blob, no container) reads as the empty log: what
		// was acknowledged is missing from it.
		o := *op
		c.log(op.Key).final = &o
	}
}

// totals are what Finish counts over every log.
type totals struct {
	logs, attempts, decided, landed int
	noFinal                         int
	unknown                         checks.UnknownWrites
}

// Finish concludes.
func (c *Check) Finish() checks.Result {
	var v checks.Violations
	var t totals
	keys := make([]string, 0, len(c.logs))
	for k := range c.logs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c.logs[k].judge(k, &v, &t)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s, %d landed",
		checks.Plural(t.attempts, "append attempt", "append attempts"), checks.Plural(t.logs, "log", "logs"), t.landed)
	var undecided []string
	if t.attempts == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if t.noFinal > 0 {
		undecided = append(undecided, "no final read of "+checks.Plural(t.noFinal, "log", "logs"))
	}
	r := v.Conclude(Name, &b, undecided, "every acknowledged append once, at its offset, nothing else", "")
	r.Unknown = &t.unknown
	return r.WithDecided(t.decided).Of(t.attempts)
}

// judge walks the log's final content record by record and then holds
// every attempt to what was found.
func (l *log) judge(key string, v *checks.Violations, t *totals) {
	t.logs++
	t.attempts += len(l.attempts)
	if l.final == nil || strings.Contains(l.final.Out.Value, "[… ") {
		// No final read, or one whose content the history did not keep.
		t.noFinal++
		for _, a := range l.attempts {
			if a.op.Outcome == checks.Unknown {
				t.unknown.Open++
			}
		}
		return
	}
	byValue := map[string][]*attempt{}
	longest := 0
	for _, a := range l.attempts {
		r := checks.DotRuns(a.op.In.Value)
		byValue[r] = append(byValue[r], a)
		longest = max(longest, len(r))
	}
	byAppend := map[int]*attempt{} // the attempt of each append that landed
	// Both sides in the form the history keeps long values in (a short
	// log, and a short record, are kept byte for byte).
	content := checks.DotRuns(l.final.Out.Value)
	var pos int64 // byte offset of content's head in the blob
	for content != "" {
		line := content
		if i := strings.IndexByte(content, '\n'); i >= 0 {
			line = content[:i+1]
		}
		content = content[len(line):]
		// A line is a record, or bytes no append sent and then a record
		// (a gap before it), or bytes no append sent.
		head, as := line, []*attempt(nil)
		for j := max(0, len(line)-longest); j < len(line); j++ {
			if found := byValue[line[j:]]; found != nil {
				head, as = line[:j], found
				break
			}
		}
		if head != "" {
			n := checks.ExpandedLen(head)
			kind, what := kindForeign, "bytes no append sent"
			if strings.Trim(head, "\x00") == "" {
				kind, what = kindGap, "zero bytes no append wrote"
			}
			v.AddKind(kind, key, fmt.Sprintf("%s: offsets %d..%d of %s hold %s (%q)", kind, pos, pos+n, key, what, checks.ShortValue(head)), *l.final)
			pos += n
		}
		if as == nil {
			continue
		}
		rec := line[len(head):]
		a := as[0]
		for _, x := range as { // the first of equal records not yet placed
			if !x.landed {
				a = x
				break
			}
		}
		l.place(key, a, pos, byAppend, v)
		pos += checks.ExpandedLen(rec)
	}
	for _, a := range l.attempts {
		l.settle(key, a, pos, v, t)
	}
}

// place records that a's record was found at offset at, and reports what
// that contradicts.
func (l *log) place(key string, a *attempt, at int64, byAppend map[int]*attempt, v *checks.Violations) {
	op := &a.op
	if a.landed {
		v.AddKind(kindDuplicate, key, fmt.Sprintf("%s: the record of #%d is in %s twice, at offsets %d and %d", kindDuplicate, op.Seq, key, a.at, at), *op, *l.final)
		return
	}
	a.landed, a.at = true, at
	if other := byAppend[a.append]; other != nil {
		v.AddKind(kindRetried, key, fmt.Sprintf("%s: attempts %d (#%d) and %d (#%d) of one append are both in %s, at offsets %d and %d",
			kindRetried, other.op.Attempt, other.op.Seq, op.Attempt, op.Seq, key, other.at, at), other.op, *op, *l.final)
	} else {
		byAppend[a.append] = a
	}
	switch op.Outcome {
	case checks.Conflict, checks.Error:
		v.AddKind(kindRefused, key, fmt.Sprintf("%s: #%d was answered %s %d %s, yet its record is in %s at offset %d",
			kindRefused, op.Seq, op.Outcome, op.Out.Status, op.Out.ErrorCode, key, at), *op, *l.final)
	case checks.OK:
		if op.Out.AppendOffset != nil && *op.Out.AppendOffset != at {
			v.AddKind(kindOffset, key, fmt.Sprintf("%s: #%d was acknowledged at offset %d, its record is in %s at offset %d",
				kindOffset, op.Seq, *op.Out.AppendOffset, key, at), *op, *l.final)
		}
	}
	if op.In.AppendPos != nil && *op.In.AppendPos != at {
		v.AddKind(kindPosition, key, fmt.Sprintf("%s: #%d was sent with appendpos %d, its record is in %s at offset %d",
			kindPosition, op.Seq, *op.In.AppendPos, key, at), *op, *l.final)
	}
}

// settle judges one attempt once the log is walked; end is the log's
// length.
func (l *log) settle(key string, a *attempt, end int64, v *checks.Violations, t *totals) {
	op := &a.op
	switch {
	case a.landed:
		t.landed++
		t.decided++
		if op.Outcome == checks.Unknown {
			t.unknown.Applied++
		}
	case op.Outcome == checks.OK:
		t.decided++
		at := "at no offset"
		if op.Out.AppendOffset != nil {
			at = fmt.Sprintf("at offset %d", *op.Out.AppendOffset)
		}
		size := fmt.Sprintf("%d bytes", end)
		if l.final.Out.Status == 404 {
			size = "the final read found no blob: " + l.final.Out.ErrorCode
		}
		v.AddKind(kindMissing, key, fmt.Sprintf("%s: #%d was acknowledged %s, its record is not in %s (%s)",
			kindMissing, op.Seq, at, key, size), *op, *l.final)
	case op.Outcome != checks.Unknown:
		t.decided++ // refused, and not in the log
	case op.In.AppendPos != nil && *op.In.AppendPos != end, op.Out.Done:
		// Its position is no longer the log's end: it can never land
		// (or the target ended it before the final read).
		t.decided++
		t.unknown.NotApplied++
	default:
		t.unknown.Open++
	}
}
