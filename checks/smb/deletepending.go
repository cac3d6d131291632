package smb

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// DeletePendingName is the delete-pending check as scenarios name it.
const DeletePendingName = "delete-pending"

func init() {
	checks.Register(DeletePendingName, func() checks.Checker { return NewDeletePending() })
}

// Op kinds, statuses and values the delete-pending check reads.
const (
	opSetDisposition = "files.set-disposition"
	opList           = "files.list"

	statusDeletePending = "STATUS_DELETE_PENDING"
	statusNotFound      = "STATUS_OBJECT_NAME_NOT_FOUND"

	fileOpen          = 1      // FILE_OPEN: never creates
	fileOverwrite     = 4      // FILE_OVERWRITE: never creates either
	fileDeleteOnClose = 0x1000 // create option FILE_DELETE_ON_CLOSE
)

// dpHandle is one granted (or maybe granted) open and what its holder did
// on it.
type dpHandle struct {
	open  checks.Op
	close *checks.Op
	end   int64 // the call of the last answered call on it (its close, if answered)
	sets  []checks.Op
}

// doc reports whether the open asked for FILE_DELETE_ON_CLOSE.
func (h *dpHandle) doc() bool { return h.open.In.Flags&fileDeleteOnClose != 0 }

// dpFile is one file's recorded calls.
type dpFile struct {
	opens   []checks.Op // every open, any outcome
	handles []*dpHandle // OK and unknown opens
	sets    []checks.Op // every set-disposition, any outcome
}

// pending is one moment a delete certainly became pending: a set
// disposition answered OK, or a delete-on-close handle's close answered OK.
type pending struct {
	from  int64 // its return: pending from here on
	sent  int64 // its call: handles granted by then were open when it began
	by    *dpHandle
	op    checks.Op
	clear int64 // the call of the first clear after it (any outcome); MaxInt64 for none
}

// DeletePending is the delete-pending check: from the history alone,
// (1) while a delete is certainly pending and a handle certainly open, every
// new open gets STATUS_DELETE_PENDING (never success, never not found), and
// an open (FILE_OPEN) called after the delete became pending is never
// granted before something could have created the file again;
// (2) once the disposition is cleared (and until a delete is asked for
// again), opens are not refused for a pending delete while the clearing
// handle is open; (3) after the last handle that could keep the file
// closed, and before anyone could have created it again, opens get
// STATUS_OBJECT_NAME_NOT_FOUND and listings leave it out.
type DeletePending struct {
	files map[string]*dpFile
	held  map[heldKey]*dpHandle
	lists []checks.Op
	opens int
}

// NewDeletePending makes the check.
func NewDeletePending() *DeletePending {
	return &DeletePending{files: map[string]*dpFile{}, held: map[heldKey]*dpHandle{}}
}

func (c *DeletePending) Name() string { return DeletePendingName }

func (c *DeletePending) file(k string) *dpFile {
	f := c.files[k]
	if f == nil {
		f = &dpFile{}
		c.files[k] = f
	}
	return f
}

func (c *DeletePending) Observe(op *checks.Op) {
	hk := heldKey{op.Actor, op.Key}
	h := c.held[hk]
	switch op.Kind {
	case opOpen:
		c.opens++
		f := c.file(op.Key)
		f.opens = append(f.opens, *op)
		if op.Outcome == checks.OK || op.Outcome == checks.Unknown {
			h = &dpHandle{open: *op, end: op.Return}
			if op.Outcome == checks.Unknown {
				h.end = math.MaxInt64 // never known closed
			}
			f.handles = append(f.handles, h)
			if op.Outcome == checks.OK {
				c.held[hk] = h
			}
		}
		return
	case opList:
		if op.Outcome == checks.OK {
			c.lists = append(c.lists, *op)
		}
		return
	case opSetDisposition:
		f := c.file(op.Key)
		f.sets = append(f.sets, *op)
		if h != nil {
			h.sets = append(h.sets, *op)
		}
	case opClose:
		if h != nil {
			o := *op
			h.close = &o
			delete(c.held, hk)
		}
	}
	if h != nil && alive(op) {
		h.end = max(h.end, op.Call)
	}
}

// pendings lists the moments a delete certainly became pending on f.
func (f *dpFile) pendings() []pending {
	var out []pending
	for _, h := range f.handles {
		for _, s := range h.sets {
			if s.Outcome == checks.OK && s.In.Value == "delete" {
				out = append(out, pending{from: s.Return, sent: s.Call, by: h, op: s})
			}
		}
		if h.doc() && h.close != nil && h.close.Outcome == checks.OK {
			out = append(out, pending{from: h.close.Return, sent: h.close.Call, by: h, op: *h.close})
		}
	}
	for i := range out {
		out[i].clear = math.MaxInt64
		for _, s := range f.sets {
			if s.In.Value == "keep" && s.Call >= out[i].sent && s.Call < out[i].clear {
				out[i].clear = s.Call
			}
		}
	}
	return out
}

// mayCreateAfter is the earliest call of an open that may create f and
// could have done so after t: create-capable, granted or of unknown outcome,
// answered (if at all) after t.
func (f *dpFile) mayCreateAfter(t int64) int64 {
	next := int64(math.MaxInt64)
	for _, o := range f.opens {
		if o.In.Disposition == fileOpen || o.In.Disposition == fileOverwrite {
			continue
		}
		if o.Outcome == checks.Unknown || (o.Outcome == checks.OK && o.Return > t) {
			next = min(next, o.Call)
		}
	}
	return next
}

// asksDelete is the earliest call after t that may make a delete pending
// on f: a set disposition, or a delete-on-close open or close.
func (f *dpFile) asksDelete(t int64) int64 {
	next := int64(math.MaxInt64)
	for _, s := range f.sets {
		if s.In.Value == "delete" && s.Call >= t {
			next = min(next, s.Call)
		}
	}
	for _, h := range f.handles {
		if h.doc() {
			if h.open.Call >= t {
				next = min(next, h.open.Call)
			}
			if h.close != nil && h.close.Call >= t {
				next = min(next, h.close.Call)
			}
		}
	}
	return next
}

func (c *DeletePending) Finish() checks.Result {
	var v checks.Violations
	flagged := map[uint64]bool{}
	flag := func(k string, o checks.Op, msg string, cause checks.Op) {
		if !flagged[o.Seq] {
			flagged[o.Seq] = true
			v.Add(k, msg, cause, o)
		}
	}
	decided, unplaced := 0, 0
	for _, k := range sortedKeys(c.files) {
		f := c.files[k]
		sort.Slice(f.opens, func(i, j int) bool { return f.opens[i].Call < f.opens[j].Call })
		opensIn := func(from, to int64, fn func(o checks.Op)) {
			i := sort.Search(len(f.opens), func(i int) bool { return f.opens[i].Call >= from })
			for ; i < len(f.opens) && f.opens[i].Call < to; i++ {
				if f.opens[i].Return <= to {
					fn(f.opens[i])
				}
			}
		}
		for _, p := range f.pendings() {
			// (1) pending, and a handle granted before it began still open.
			open := int64(math.MinInt64)
			for _, h := range f.handles {
				if h.open.Outcome == checks.OK && h.open.Return <= p.sent && h.end > open && !(h == p.by && h.doc()) {
					open = h.end
				}
			}
			if to := min(open, p.clear); to > p.from {
				decided++
				opensIn(p.from, to, func(o checks.Op) {
					switch {
					case o.Outcome == checks.OK:
						flag(k, o, fmt.Sprintf("an open was granted while the file's delete was pending and a handle open (%s answered at %s)", p.op.Kind, ms(p.from)), p.op)
					case o.Out.ErrorCode == statusNotFound:
						flag(k, o, "an open got STATUS_OBJECT_NAME_NOT_FOUND while the file's delete was pending and a handle still open (want STATUS_DELETE_PENDING)", p.op)
					}
				})
			}
			// (3) gone after the last close.
			if p.clear == math.MaxInt64 || p.clear > p.from {
				// A delete whose last close the history cannot place (a handle
				// lost with its connection) is not judged, as an open of unknown
				// outcome is not.
				switch judged, why := c.gone(k, f, p, flag); {
				case why != "":
					unplaced++
				case judged:
					decided++
				}
			}
			// (1b) whether the last handle closed or not, a FILE_OPEN called
			// after the delete became pending finds the file pending or gone,
			// until something that could create it again was sent.
			if to := min(p.clear, f.mayCreateAfter(p.sent)); to > p.from {
				opensIn(p.from, to, func(o checks.Op) {
					if o.Outcome == checks.OK && o.In.Disposition == fileOpen {
						flag(k, o, fmt.Sprintf("an open (FILE_OPEN) called after the file's delete became pending (%s answered at %s) was granted, with no create that could have made the file again", p.op.Kind, ms(p.from)), p.op)
					}
				})
			}
		}
		// (2) cleared: not pending while the clearing handle is open.
		for _, h := range f.handles {
			for _, s := range h.sets {
				if s.Outcome != checks.OK || s.In.Value != "keep" {
					continue
				}
				to := min(h.end, f.asksDelete(s.Return))
				if to <= s.Return {
					continue
				}
				decided++
				opensIn(s.Return, to, func(o checks.Op) {
					if o.Out.ErrorCode == statusDeletePending || o.Out.ErrorCode == statusNotFound {
						flag(k, o, fmt.Sprintf("an open got %s after the delete disposition was cleared, with the clearing handle still open", o.Out.ErrorCode), s)
					}
				})
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d opens, %d claims decided", DeletePendingName, c.opens, decided)
	if unplaced > 0 {
		fmt.Fprintf(&b, " (%d deletes not judged for what follows their last close: a handle's close is unknown)", unplaced)
	}
	r := v.Conclude(DeletePendingName, &b, nil, "opens refused with STATUS_DELETE_PENDING while a delete was pending, restored when cleared, and the file gone after its last close", "")
	return r.WithDecided(decided).Of(c.opens)
}

// gone judges what follows pending p's last close: judged when it did, or
// why it could not (nothing to judge when the delete was cleared first).
func (c *DeletePending) gone(k string, f *dpFile, p pending, flag func(string, checks.Op, string, checks.Op)) (judged bool, why string) {
	last := int64(math.MinInt64)
	var lastClose checks.Op
	for changed := true; changed; {
		changed = false
		for _, h := range f.handles {
			if h.open.Call >= max(p.from, last) && h != p.by {
				continue // opened after the file could be gone
			}
			if h.close != nil && h.close.Return < p.sent {
				continue // closed before the delete was asked for
			}
			if h.open.Outcome != checks.OK || h.close == nil || h.close.Outcome != checks.OK {
				return false, "a handle that may keep the file has no known close"
			}
			if h.close.Return > last {
				last, lastClose, changed = h.close.Return, *h.close, true
			}
		}
	}
	if p.clear < last {
		return false, ""
	}
	// Nobody could have created the file again before the earliest call
	// of an open that may create it and was not over by then.
	until := int64(math.MaxInt64)
	for _, o := range f.opens {
		ret := o.Return
		if o.Outcome == checks.Unknown {
			ret = math.MaxInt64
		}
		if o.In.Disposition != fileOpen && o.In.Disposition != fileOverwrite && ret > last {
			until = min(until, o.Call)
		}
	}
	for _, o := range f.opens {
		if o.Call <= last || o.Return >= until || o.In.Disposition != fileOpen {
			continue
		}
		switch {
		case o.Outcome == checks.OK:
			flag(k, o, fmt.Sprintf("the file could still be opened after its delete was pending and its last handle closed (at %s)", ms(last)), lastClose)
		case o.Out.ErrorCode == statusDeletePending:
			flag(k, o, fmt.Sprintf("STATUS_DELETE_PENDING after the last handle closed (at %s): the file should be gone", ms(last)), lastClose)
		}
	}
	for _, l := range c.lists {
		if l.Call > last && l.Return < until && containsLine(l.Out.Value, k) {
			flag(k, l, fmt.Sprintf("the file was still listed after its delete was pending and its last handle closed (at %s)", ms(last)), lastClose)
		}
	}
	return true, ""
}

func containsLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// ms renders a history time (ns) in milliseconds.
func ms(ns int64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }
