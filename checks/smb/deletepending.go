package smb

import (
	"fmt"
	"maps"
	"math"
	"slices"
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
	opSetDelete = "files.set-delete"
	opList      = "files.list"

	statusDeletePending = "STATUS_DELETE_PENDING"
	statusNotFound      = "STATUS_OBJECT_NAME_NOT_FOUND"

	fileOpen          = 1      // FILE_OPEN: never creates
	fileCreate        = 2      // FILE_CREATE: only creates
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
	// uncertain: against Samba, granted while the last close was in flight
	// and maybe on the unlinked file (see dropRaced); never certainly open.
	uncertain bool
}

// doc reports whether the open asked for FILE_DELETE_ON_CLOSE.
func (h *dpHandle) doc() bool { return h.open.In.Flags&fileDeleteOnClose != 0 }

// dpFile is one file's recorded calls.
type dpFile struct {
	opens   []checks.Op          // every open, any outcome
	handles []*dpHandle          // OK and unknown opens
	bySeq   map[uint64]*dpHandle // every handle by its open's Seq (dropRaced drops none of these)
	sets    []checks.Op          // every set-delete, any outcome

	// Indexes (index).
	creators     []creator
	creatorCall  []int64 // earliest call of creators[i:]
	byReturn     []*dpHandle
	endByReturn  []int64 // latest end of byReturn[:i+1]
	byCall       []*dpHandle
	closedByCall []int64 // latest closedAt of byCall[:i+1]
	placedByCall []int64 // latest closedAt of byCall[:i+1] that is known (MinInt64: none)
	longestOpen  int64   // the longest answered open (Return - Call)

	// racedOps are the opens dropRaced found of Samba's race shape: the
	// last close, the open, the open that found no file.
	racedOps map[uint64][3]checks.Op
}

// creator is an open that may have created the file: its call, and its
// answer's return (MaxInt64 when it got none).
type creator struct{ call, ret int64 }

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
//
// Against the managed Samba (target kind samba), one shape of violation of
// (1b) is Samba's known race rather than a broken promise (see
// racedLastClose): it is counted as a known divergence of Samba, not a
// violation. Against any other target it is a violation.
type DeletePending struct {
	files  map[string]*dpFile
	held   map[heldKey]*dpHandle
	lists  []checks.Op
	opens  int
	target string
}

// SetTarget tells the check which kind of target the history ran against.
func (c *DeletePending) SetTarget(kind string) { c.target = kind }

// Samba's known race, as the check names and classifies it.
const (
	targetSamba    = "samba"
	sambaKnown     = "known divergence of Samba (not Azure Files behaviour)"
	racedCloseKind = "open granted racing the last close"
)

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
			if f.bySeq == nil {
				f.bySeq = map[uint64]*dpHandle{}
			}
			f.bySeq[op.Seq] = h
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
	case opSetDelete:
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
	i := sort.Search(len(f.creators), func(i int) bool { return f.creators[i].ret > t })
	if i == len(f.creators) {
		return math.MaxInt64
	}
	return f.creatorCall[i]
}

// index sorts what Finish searches: opens by call, handles by the return
// and by the call of their open (with running maxima of how long each is
// known open), the creates by their answer (with the earliest call of
// those answered later).
func (f *dpFile) index() {
	f.creators, f.byReturn, f.byCall = nil, nil, nil
	sort.Slice(f.opens, func(i, j int) bool { return f.opens[i].Call < f.opens[j].Call })
	f.longestOpen = 0
	for _, o := range f.opens {
		if o.Outcome != checks.Unknown {
			f.longestOpen = max(f.longestOpen, o.Return-o.Call)
		}
	}
	for _, o := range f.opens {
		if o.In.Disposition == fileOpen || o.In.Disposition == fileOverwrite || (o.Outcome != checks.OK && o.Outcome != checks.Unknown) {
			continue
		}
		ret := o.Return
		if o.Outcome == checks.Unknown {
			ret = math.MaxInt64
		}
		f.creators = append(f.creators, creator{call: o.Call, ret: ret})
	}
	sort.Slice(f.creators, func(i, j int) bool { return f.creators[i].ret < f.creators[j].ret })
	f.creatorCall = make([]int64, len(f.creators))
	for i := len(f.creators) - 1; i >= 0; i-- {
		f.creatorCall[i] = f.creators[i].call
		if i+1 < len(f.creators) {
			f.creatorCall[i] = min(f.creatorCall[i], f.creatorCall[i+1])
		}
	}
	for _, h := range f.handles {
		if h.open.Outcome == checks.OK && !h.uncertain {
			f.byReturn = append(f.byReturn, h)
		}
	}
	sort.Slice(f.byReturn, func(i, j int) bool { return f.byReturn[i].open.Return < f.byReturn[j].open.Return })
	f.endByReturn = runningMax(f.byReturn, func(h *dpHandle) int64 { return h.end })
	f.byCall = append([]*dpHandle(nil), f.handles...)
	sort.Slice(f.byCall, func(i, j int) bool { return f.byCall[i].open.Call < f.byCall[j].open.Call })
	f.closedByCall = runningMax(f.byCall, (*dpHandle).closedAt)
	f.placedByCall = runningMax(f.byCall, func(h *dpHandle) int64 {
		if c := h.closedAt(); c != math.MaxInt64 {
			return c
		}
		return math.MinInt64
	})
}

// closedAt is when h is known closed: its answered close's return (an
// error too: the server took the close), or never (a close with no answer
// may not have reached the server).
func (h *dpHandle) closedAt() int64 {
	if h.close == nil || h.close.Outcome == checks.Unknown {
		return math.MaxInt64
	}
	return h.close.Return
}

func runningMax(hs []*dpHandle, of func(*dpHandle) int64) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = of(h)
		if i > 0 {
			out[i] = max(out[i], out[i-1])
		}
	}
	return out
}

// openUntil is the latest end of a handle granted by t (MinInt64: none).
func (f *dpFile) openUntil(t int64) int64 {
	i := sort.Search(len(f.byReturn), func(i int) bool { return f.byReturn[i].open.Return > t })
	if i == 0 {
		return math.MinInt64
	}
	return f.endByReturn[i-1]
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
	// Opens of the shape of Samba's race (by Seq), judged known at the end
	// unless another rule flags them.
	type knownOp struct {
		key string
		msg string
		ops []checks.Op // the last close, the open, the open that found no file
	}
	var raced []knownOp
	decided, unplaced := 0, 0
	sort.Slice(c.lists, func(i, j int) bool { return c.lists[i].Call < c.lists[j].Call })
	for _, k := range sortedKeys(c.files) {
		f := c.files[k]
		f.index()
		if c.target == targetSamba {
			// A handle granted by Samba's race is on the file its last
			// close unlinked: it keeps nothing of the name (finding one can
			// show the next, hence the rounds).
			for range 4 {
				if !f.dropRaced() {
					break
				}
			}
		}
		for _, s := range slices.Sorted(maps.Keys(f.racedOps)) {
			ops := f.racedOps[s]
			raced = append(raced, knownOp{k, racedMessage(ops[1], ops[2]), ops[:]})
		}
		opensIn := f.opensIn
		for _, p := range f.pendings() {
			// (1) pending, and a handle granted before it began still open.
			// (A delete-on-close handle's own end is its close's call, before
			// p.from: it never makes the window. A delete asked for on a
			// handle that may be on an unlinked file has no certain holder.)
			if to := min(f.openUntil(p.sent), p.clear); to > p.from && !p.by.uncertain {
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
			// (1) for handles whose open was in flight with the delete.
			decided += f.judgeInFlightHolders(k, p, c.target == targetSamba, flag)
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
					if o.Outcome != checks.OK || o.In.Disposition != fileOpen {
						return
					}
					if c.target == targetSamba {
						if lc, gone, ok := f.racedLastClose(p, o); ok {
							raced = append(raced, knownOp{k, racedMessage(o, gone), []checks.Op{lc, o, gone}})
							return
						}
					}
					flag(k, o, fmt.Sprintf("an open (FILE_OPEN) called after the file's delete became pending (%s answered at %s) was granted, with no create that could have made the file again", p.op.Kind, ms(p.from)), p.op)
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
	var known []checks.KnownDivergence
	for _, r := range raced {
		if o := r.ops[1]; !flagged[o.Seq] {
			flagged[o.Seq] = true
			known = checks.AddKnown(known, sambaKnown, racedCloseKind, r.key, r.msg, r.ops...)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d opens, %d claims decided", DeletePendingName, c.opens, decided)
	if unplaced > 0 {
		fmt.Fprintf(&b, " (%d deletes not judged for what follows their last close: a handle's close is unknown)", unplaced)
	}
	suffix := ""
	for _, k := range known {
		suffix += "; " + k.Line()
	}
	r := v.Conclude(DeletePendingName, &b, nil, "opens refused with STATUS_DELETE_PENDING while a delete was pending, restored when cleared, and the file gone after its last close", suffix)
	r.Known = known
	return r.WithDecided(decided).Of(c.opens)
}

// opensIn calls fn with each open of f sent at or after from and sent and
// answered before to, in the order they were sent.
func (f *dpFile) opensIn(from, to int64, fn func(o checks.Op)) {
	i := sort.Search(len(f.opens), func(i int) bool { return f.opens[i].Call >= from })
	for ; i < len(f.opens) && f.opens[i].Call < to; i++ {
		if f.opens[i].Return <= to {
			fn(f.opens[i])
		}
	}
}

// dropRaced removes from f's handles those Samba's race granted on the
// file its last close unlinked (FILE_OPENs of racedLastClose's shape): they
// keep nothing of the name. An open granted while the last close was in
// flight that the history cannot place (answered after a create was sent,
// or nothing shows the file gone) may hold the file or the unlinked one: it
// is marked uncertain, so no claim counts on it holding the file, while it
// still may keep it. It re-indexes and reports whether anything changed.
func (f *dpFile) dropRaced() bool {
	raced, racing := map[uint64]bool{}, map[uint64]bool{}
	for _, p := range f.pendings() {
		create := f.mayCreateAfter(p.sent)
		// An open of the shape is sent before the last placed close of a
		// handle opened before p.from was answered.
		j := sort.Search(len(f.byCall), func(i int) bool { return f.byCall[i].open.Call >= p.from }) - 1
		if j < 0 {
			continue
		}
		// Opens answered once the delete was asked for: sent after it, or
		// before it and still in flight (a delayed open lands as well).
		to := min(p.clear, f.placedByCall[j])
		for i := sort.Search(len(f.opens), func(i int) bool { return f.opens[i].Call >= p.sent-f.longestOpen }); i < len(f.opens) && f.opens[i].Call < to; i++ {
			o := f.opens[i]
			if o.Outcome != checks.OK || o.Return <= p.sent {
				continue // any granted open: a create racing the last close lands on the old file too
			}
			lc, racingClose := f.racingLastClose(p, o, false)
			if !racingClose {
				lc = p.op
			}
			// Dropped: a handle shown not to hold the name while open.
			// Known but kept as a possible holder: an open sent once the
			// delete was pending, granted as the last close ended, the file
			// found gone only after the handle closed (it may have held the
			// pending file until then).
			g, held := f.goneWhileOpen(o)
			after := false
			if !held && racingClose {
				var gone bool
				g, gone = f.goneAfter(min(lc.Return, o.Return))
				gone = gone && o.Return <= create
				held = gone && g.Return < f.heldUntil(o)
				after = gone && !held && o.Call >= p.from
			}
			if held || after {
				if f.racedOps == nil {
					f.racedOps = map[uint64][3]checks.Op{}
				}
				f.racedOps[o.Seq] = [3]checks.Op{lc, o, g}
			}
			switch {
			case held:
				raced[o.Seq] = true
			case racingClose:
				racing[o.Seq] = true
			}
		}
	}
	changed := false
	kept := f.handles[:0]
	for _, h := range f.handles {
		switch {
		case raced[h.open.Seq]:
			changed = true
			continue
		case racing[h.open.Seq] && !h.uncertain:
			h.uncertain, changed = true, true
		}
		kept = append(kept, h)
	}
	f.handles = kept
	if changed {
		f.index()
	}
	return changed
}

// racedLastClose reports whether granted FILE_OPEN o, called after the
// delete of p became pending, has the shape of Samba 4.17's race (an open
// that lands inside the last close of a delete-pending file gets a handle
// on the file that close unlinks):
//   - every handle that could keep the file (its open sent before the
//     delete was certainly pending, not closed before the delete was asked
//     for) whose close the history places had its close sent before o's
//     answer, and at least one of those closes was in flight together with
//     o (lc, the last of them to answer); opens sent once the delete was
//     pending, o's fellow racers among them, keep nothing here, a handle
//     lost with its connection kept nothing if the file was gone, and one
//     the history does not show held the file (mustHold: its open answered
//     after the delete was sent and maybe inside the last close, or
//     uncertain) may be a fellow racer on the unlinked file: its close
//     coming later does not rule the shape out;
//   - the file was gone afterwards (gone shows it): of the opens sent after
//     the last of those closes or o was answered and before anything could
//     create the file again, every FILE_OPEN was refused not found (one at
//     least), or the first create sent was a FILE_CREATE granted; or one was
//     refused not found while o's own handle was certainly open
//     (goneWhileOpen).
//
// A server that kept the file (the first open after finds it), a handle
// whose close is unknown or came later, or an open sent after every close
// was over, is not this shape.
func (f *dpFile) racedLastClose(p pending, o checks.Op) (lc, gone checks.Op, ok bool) {
	if gone, ok = f.goneWhileOpen(o); ok {
		if lc, ok = f.racingLastClose(p, o, true); !ok {
			lc = p.op // the example names the delete
		}
		return lc, gone, true
	}
	if lc, ok = f.racingLastClose(p, o, true); !ok {
		return lc, gone, false
	}
	// o was sent once the delete was pending ((1b) asks): the file gone
	// after the last close, even once o's handle closed, is the race.
	gone, ok = f.goneAfter(min(lc.Return, o.Return))
	return lc, gone, ok
}

// heldUntil is when o's handle is last known open: its close's call, or
// its last answered call (MinInt64 for an open with no handle).
func (f *dpFile) heldUntil(o checks.Op) int64 {
	h := f.bySeq[o.Seq]
	if h == nil {
		return math.MinInt64
	}
	if h.close != nil {
		return h.close.Call
	}
	return h.end
}

// goneWhileOpen reports whether the name of f was found gone while o's
// handle was certainly open (an open sent after o's answer and answered
// before o's close was sent: a FILE_OPEN refused not found, or a
// FILE_CREATE granted): o's handle did not hold the name, which a handle
// granted on the file always does until it closes, whatever the server
// does with a delete; only a handle on a file already unlinked does not.
// That open is returned.
func (f *dpFile) goneWhileOpen(o checks.Op) (gone checks.Op, found bool) {
	until := f.heldUntil(o)
	for i := sort.Search(len(f.opens), func(i int) bool { return f.opens[i].Call > o.Return }); i < len(f.opens) && f.opens[i].Call < until; i++ {
		e := f.opens[i]
		notFound := e.In.Disposition == fileOpen && e.Out.ErrorCode == statusNotFound
		created := e.In.Disposition == fileCreate && e.Outcome == checks.OK
		if e.Return < until && (notFound || created) {
			return e, true
		}
	}
	return gone, false
}

// racingLastClose is the first half of racedLastClose: o was sent once
// the delete was pending and answered while the last close of the handles
// that could keep the file was in flight (lc, the last of them to answer).
// With certainOnly, a handle closed after o's answer rules that out only
// if it must have held the file (mustHold); dropRaced, which decides which
// handles are such possible racers, asks without it.
func (f *dpFile) racingLastClose(p pending, o checks.Op, certainOnly bool) (lc checks.Op, ok bool) {
	inFlight := false
	for _, h := range f.handles {
		if h.open.Seq == o.Seq || h.open.Call >= p.from || h.closedAt() < p.sent {
			continue // an open sent once the delete was pending keeps nothing: this check judges it
		}
		if h.open.Outcome != checks.OK || h.close == nil || h.close.Outcome == checks.Unknown {
			// A handle the history cannot place (lost with its connection):
			// racedLastClose asks goneAfter, and a file found gone kept by
			// nothing; on its own it never makes the shape (one placed close
			// must be in flight with o).
			continue
		}
		if h.close.Call >= o.Return {
			if certainOnly && !f.mustHold(p, h) {
				continue
			}
			return lc, false
		}
		inFlight = inFlight || h.close.Return > o.Call
		if h.close.Return > lc.Return {
			lc = *h.close
		}
	}
	return lc, inFlight
}

// goneAfter reports whether f was gone after t (the earlier of the last
// close's answer and the granted open's: the file went with the closes,
// it was not kept), and the open that shows it.
func (f *dpFile) goneAfter(t int64) (gone checks.Op, found bool) {
	// Until something could have created the file again: every FILE_OPEN
	// answered by then found no file (one at least), or the first create
	// sent after t was a FILE_CREATE granted.
	create := f.mayCreateAfter(t)
	i := sort.Search(len(f.opens), func(i int) bool { return f.opens[i].Call > t })
	for ; i < len(f.opens) && f.opens[i].Call <= create; i++ {
		e := f.opens[i]
		switch {
		case e.Call == create && e.In.Disposition == fileCreate && e.Outcome == checks.OK:
			if !found {
				gone, found = e, true
			}
		case e.Return >= create || e.In.Disposition != fileOpen:
		case e.Outcome == checks.OK || e.Outcome == checks.Unknown || e.Out.ErrorCode == statusDeletePending:
			return gone, false // the file was still there, or may have been
		case e.Out.ErrorCode == statusNotFound && !found:
			gone, found = e, true
		}
	}
	return gone, found
}

// racedMessage is the message of an open of Samba's race shape, gone the
// open that found no file afterwards.
func racedMessage(o, gone checks.Op) string {
	return fmt.Sprintf("%s: an open (%s) in flight while the last handle of the delete-pending file was being closed was granted a handle on the file that close unlinked: an open after it found no file (%s)", racedCloseKind, dispositionName(o.In.Disposition), goneText(gone))
}

// dispositionName names a CREATE disposition (MS-SMB2 2.2.13).
func dispositionName(d int) string {
	if names := []string{"FILE_SUPERSEDE", "FILE_OPEN", "FILE_CREATE", "FILE_OPEN_IF", "FILE_OVERWRITE", "FILE_OVERWRITE_IF"}; d >= 0 && d < len(names) {
		return names[d]
	}
	return fmt.Sprintf("disposition %d", d)
}

// goneText says how open o found no file.
func goneText(o checks.Op) string {
	if o.Outcome == checks.OK {
		return "FILE_CREATE granted"
	}
	return "FILE_OPEN " + o.Out.ErrorCode
}

// gone judges what follows pending p's last close: judged when it did, or
// why it could not (nothing to judge when the delete was cleared first).
func (c *DeletePending) gone(k string, f *dpFile, p pending, flag func(string, checks.Op, string, checks.Op)) (judged bool, why string) {
	last := int64(math.MinInt64)
	var lastClose checks.Op
	for limit := p.from; ; {
		// Handles opened before limit and not closed before the delete
		// was asked for (the running maximum of their close skips the rest).
		j := sort.Search(len(f.byCall), func(i int) bool { return f.byCall[i].open.Call >= limit }) - 1
		for ; j >= 0 && f.closedByCall[j] >= p.sent; j-- {
			h := f.byCall[j]
			if h.closedAt() < p.sent {
				continue // closed before the delete was asked for
			}
			if h.open.Outcome != checks.OK || h.closedAt() == math.MaxInt64 {
				return false, "a handle that may keep the file has no known close"
			}
			if h.close.Return > last {
				last, lastClose = h.close.Return, *h.close
			}
		}
		if last <= limit {
			break
		}
		limit = last // a handle opened before the last close may keep it too
	}
	if p.clear < last {
		return false, ""
	}
	// Nobody could have created the file again before the earliest call
	// of an open that may create it and was not over by then.
	until := f.mayCreateAfter(last)
	i := sort.Search(len(f.opens), func(i int) bool { return f.opens[i].Call > last })
	for ; i < len(f.opens) && f.opens[i].Call < until; i++ {
		o := f.opens[i]
		if o.Return >= until || o.In.Disposition != fileOpen {
			continue
		}
		switch {
		case o.Outcome == checks.OK:
			flag(k, o, fmt.Sprintf("the file could still be opened after its delete was pending and its last handle closed (at %s)", ms(last)), lastClose)
		case o.Out.ErrorCode == statusDeletePending:
			flag(k, o, fmt.Sprintf("STATUS_DELETE_PENDING after the last handle closed (at %s): the file should be gone", ms(last)), lastClose)
		}
	}
	for i := sort.Search(len(c.lists), func(i int) bool { return c.lists[i].Call > last }); i < len(c.lists) && c.lists[i].Call < until; i++ {
		if l := c.lists[i]; l.Return < until && containsLine(l.Out.Value, k) {
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
