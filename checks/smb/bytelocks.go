package smb

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// ByteRangeLocksName is the byte-range-locks check as scenarios name it.
const ByteRangeLocksName = "byte-range-locks"

func init() {
	checks.Register(ByteRangeLocksName, func() checks.Checker { return NewByteRangeLocks() })
}

// Op kinds and lock flags (MS-SMB2 2.2.26.1) the check reads.
const (
	opLock   = "files.lock"
	opUnlock = "files.unlock"

	lockShared          = 0x1
	lockExclusive       = 0x2
	lockFailImmediately = 0x10
)

// brlHandle is one granted open: who holds it and its locks.
type brlHandle struct {
	id    int
	locks []*brlLock
}

// brlLock is one granted lock, certainly held from its return to held
// (the call of its unlock or of its handle's close when answered; else the
// last answered call on the handle).
type brlLock struct {
	h    *brlHandle
	op   checks.Op
	held int64
	open bool // no unlock seen yet
}

func (l *brlLock) exclusive() bool { return l.op.In.Flags&lockExclusive != 0 }

func overlaps(aOff, aLen, bOff, bLen int64) bool {
	return aLen > 0 && bLen > 0 && aOff < bOff+bLen && bOff < aOff+aLen
}

// ByteRangeLocks is the byte-range-locks check: from the history alone,
// (1) two locks granted to different handles on overlapping ranges of one
// file, not both shared, were never certainly held at the same time (a
// waiting lock granted while the conflicting one was still held is named
// as such), and (2) a read or write answered OK never lay inside another
// handle's exclusive lock while that lock was certainly held.
type ByteRangeLocks struct {
	held  map[heldKey]*brlHandle
	locks map[string][]*brlLock
	io    map[string][]ioOp
	n     int
	ops   int
}

type ioOp struct {
	h  *brlHandle
	op checks.Op
}

// NewByteRangeLocks makes the check.
func NewByteRangeLocks() *ByteRangeLocks {
	return &ByteRangeLocks{held: map[heldKey]*brlHandle{}, locks: map[string][]*brlLock{}, io: map[string][]ioOp{}}
}

func (c *ByteRangeLocks) Name() string { return ByteRangeLocksName }

func (c *ByteRangeLocks) Observe(op *checks.Op) {
	hk := heldKey{op.Actor, op.Key}
	h := c.held[hk]
	switch op.Kind {
	case opOpen:
		delete(c.held, hk)
		if op.Outcome == checks.OK {
			c.n++
			c.held[hk] = &brlHandle{id: c.n}
		}
		return
	case opLock:
		c.ops++
		if h != nil && op.Outcome == checks.OK {
			l := &brlLock{h: h, op: *op, held: op.Return, open: true}
			h.locks = append(h.locks, l)
			c.locks[op.Key] = append(c.locks[op.Key], l)
		}
	case opUnlock:
		if h != nil {
			for _, l := range h.locks {
				if l.open && l.op.In.Offset == op.In.Offset && l.op.In.Length == op.In.Length {
					l.open = false
					if alive(op) {
						l.held = max(l.held, op.Call)
					}
					break
				}
			}
		}
		return
	case opRead, opWrite:
		c.ops++
		if h != nil && op.Outcome == checks.OK {
			c.io[op.Key] = append(c.io[op.Key], ioOp{h: h, op: *op})
		}
	case opClose:
		if h != nil {
			for _, l := range h.locks {
				if l.open {
					l.open = false
					if alive(op) {
						l.held = max(l.held, op.Call)
					}
				}
			}
			delete(c.held, hk)
		}
		return
	}
	if h != nil && alive(op) {
		for _, l := range h.locks {
			if l.open {
				l.held = max(l.held, op.Call)
			}
		}
	}
}

func (c *ByteRangeLocks) Finish() checks.Result {
	var v checks.Violations
	pairs, ios := 0, 0
	for _, k := range sortedKeys(c.locks) {
		ls := c.locks[k]
		sort.Slice(ls, func(i, j int) bool { return ls[i].op.Return < ls[j].op.Return })
		prefixHeld := make([]int64, len(ls)) // the latest held among ls[:i+1]
		for i, a := range ls {
			prefixHeld[i] = a.held
			if i > 0 {
				prefixHeld[i] = max(a.held, prefixHeld[i-1])
			}
			for _, b := range ls[i+1:] {
				if b.op.Return >= a.held {
					break // b, and every later one, granted after a was last known held
				}
				if a.h == b.h || !overlaps(a.op.In.Offset, a.op.In.Length, b.op.In.Offset, b.op.In.Length) {
					continue
				}
				pairs++
				if !a.exclusive() && !b.exclusive() {
					continue
				}
				what := "two conflicting locks were held at the same time"
				if b.op.In.Flags&lockFailImmediately == 0 && b.op.Call >= a.op.Return {
					what = "a waiting lock was granted while the conflicting lock was still held (before its release was sent)"
				}
				v.Add(k, fmt.Sprintf("%s: %s and %s", what, lockDesc(a.op), lockDesc(b.op)), a.op, b.op)
			}
		}
		// I/O inside another handle's exclusive range, while certainly held.
		for _, o := range c.io[k] {
			j := sort.Search(len(ls), func(i int) bool { return ls[i].op.Return > o.op.Call }) - 1
			for ; j >= 0 && prefixHeld[j] >= o.op.Return; j-- {
				l := ls[j]
				if l.h == o.h || !l.exclusive() || !overlaps(l.op.In.Offset, l.op.In.Length, o.op.In.Offset, o.op.In.Length) {
					continue
				}
				if o.op.Call >= l.op.Return && o.op.Return <= l.held {
					v.Add(k, fmt.Sprintf("%s of [%d,%d) answered OK inside another handle's exclusive lock %s (want STATUS_FILE_LOCK_CONFLICT)",
						strings.TrimPrefix(o.op.Kind, "files."), o.op.In.Offset, o.op.In.Offset+o.op.In.Length, lockDesc(l.op)), l.op, o.op)
					break
				}
			}
		}
		ios += len(c.io[k])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d locks and I/O calls, %d overlapping lock pairs and %d granted I/O calls judged", ByteRangeLocksName, c.ops, pairs, ios)
	r := v.Conclude(ByteRangeLocksName, &b, nil, "no conflicting locks held at once, no I/O inside another handle's exclusive lock", "")
	return r.WithDecided(pairs + ios).Of(c.ops)
}

func lockDesc(op checks.Op) string {
	kind := "shared"
	if op.In.Flags&lockExclusive != 0 {
		kind = "exclusive"
	}
	wait := ", waiting"
	if op.In.Flags&lockFailImmediately != 0 {
		wait = ""
	}
	return fmt.Sprintf("actor %d %s [%d,%d)%s", op.Actor, kind, op.In.Offset, op.In.Offset+op.In.Length, wait)
}
