package smb

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// LeaseBreaksName is the lease-breaks check as scenarios name it.
const LeaseBreaksName = "lease-breaks"

func init() {
	checks.Register(LeaseBreaksName, func() checks.Checker { return NewLeaseBreaks() })
}

// Op kinds the lease-breaks check reads.
const (
	opBreak = "files.break"
	opAck   = "files.ack"
)

// BreakTimeoutFloor is the shortest lease break timeout the check allows a
// server: an open may complete without the holder's acknowledgement only
// this long after the lease was asked for (Samba and Windows wait 30 s or
// more; MS-SMB2 leaves it to the implementation).
const BreakTimeoutFloor = 30 * time.Second

// writeCaching reports whether a granted open's Out.Value ("lease RWH",
// "oplock batch"...) lets its holder cache writes.
func writeCaching(v string) bool {
	if s, ok := strings.CutPrefix(v, "lease "); ok {
		return strings.Contains(s, "W")
	}
	return v == "oplock batch" || v == "oplock exclusive"
}

// lbGrant is one open granted with write caching, certainly keeping it
// from its return until end: the call of the first acknowledgement after
// the open's call that gave the write caching up, or, if sooner or that
// acknowledgement got no answer, of its holder's last answered call on it
// (its close, if answered).
type lbGrant struct {
	op     checks.Op
	hk     heldKey
	end    int64
	closed bool // close sent
}

// ack is one acknowledgement giving write caching up: its call, and
// whether the server answered it.
type ack struct {
	call     int64
	answered bool
}

// LeaseBreaks is the lease-breaks check: from the history alone, an open
// of a file by another client never completed while a lease (or batch or
// exclusive oplock) caching writes was certainly held and not yet given up
// by its holder's acknowledgement or close, unless the server's break
// timeout (at least BreakTimeoutFloor) could have passed.
type LeaseBreaks struct {
	held   map[heldKey]*lbGrant
	gaveUp map[heldKey][]ack // acknowledgements giving write caching up
	grants map[string][]*lbGrant
	opens  map[string][]checks.Op
	breaks int
	acks   int
	n      int
}

// NewLeaseBreaks makes the check.
func NewLeaseBreaks() *LeaseBreaks {
	return &LeaseBreaks{held: map[heldKey]*lbGrant{}, gaveUp: map[heldKey][]ack{}, grants: map[string][]*lbGrant{}, opens: map[string][]checks.Op{}}
}

func (c *LeaseBreaks) Name() string { return LeaseBreaksName }

func (c *LeaseBreaks) Observe(op *checks.Op) {
	hk := heldKey{op.Actor, op.Key}
	g := c.held[hk]
	switch op.Kind {
	case opOpen:
		c.n++
		delete(c.held, hk)
		if op.Outcome != checks.OK {
			return
		}
		if op.In.Access&dataAccess != 0 {
			c.opens[op.Key] = append(c.opens[op.Key], *op)
		}
		if writeCaching(op.Out.Value) {
			g = &lbGrant{op: *op, end: op.Return, hk: hk}
			c.held[hk] = g
			c.grants[op.Key] = append(c.grants[op.Key], g)
		}
		return
	case opBreak:
		c.breaks++
		return
	case opAck:
		c.acks++
		if !writeCaching(op.In.Value) {
			// A break may come, and be acknowledged, before the open's own
			// answer is recorded: Finish matches acknowledgements by call.
			c.gaveUp[hk] = append(c.gaveUp[hk], ack{op.Call, alive(op)})
		}
		return
	case opClose:
		if g != nil && !g.closed && alive(op) {
			g.end = max(g.end, op.Call)
		}
		if g != nil {
			g.closed = true
		}
		delete(c.held, hk)
		return
	}
	if g != nil && !g.closed && alive(op) {
		g.end = max(g.end, op.Call)
	}
}

func (c *LeaseBreaks) Finish() checks.Result {
	var v checks.Violations
	judged := 0
	floor := BreakTimeoutFloor.Nanoseconds()
	for _, k := range sortedKeys(c.grants) {
		opens := c.opens[k]
		sort.Slice(opens, func(i, j int) bool { return opens[i].Return < opens[j].Return })
		byCall := slices.Clone(opens)
		sort.Slice(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
		for _, g := range c.grants[k] {
			// Write caching is held until the first acknowledgement giving
			// it up was sent, as long as the handle is known open: up to its
			// last answered call (its close, if answered), or that
			// acknowledgement if it was answered and no close was sent.
			first := ack{call: math.MaxInt64}
			for _, a := range c.gaveUp[g.hk] {
				if a.call >= g.op.Call && a.call < first.call {
					first = a
				}
			}
			switch {
			case first.call == math.MaxInt64:
			case first.answered && !g.closed:
				g.end = first.call
			default:
				g.end = min(g.end, first.call)
			}
			// Opens called while the grant was certainly held had to wait
			// for its break to be acknowledged.
			j := sort.Search(len(byCall), func(i int) bool { return byCall[i].Call >= g.op.Return })
			for ; j < len(byCall) && byCall[j].Call < g.end; j++ {
				if byCall[j].Actor != g.op.Actor {
					judged++
				}
			}
			i := sort.Search(len(opens), func(i int) bool { return opens[i].Return > g.op.Return })
			for ; i < len(opens) && opens[i].Return < g.end; i++ {
				o := opens[i]
				if o.Actor == g.op.Actor {
					continue
				}
				if o.Return-g.op.Call < floor {
					v.Add(k, fmt.Sprintf("actor %d's open completed while actor %d held %s and had not acknowledged its break (nor closed)",
						o.Actor, g.op.Actor, g.op.Out.Value), g.op, o)
				}
			}
		}
	}
	grants := 0
	for _, gs := range c.grants {
		grants += len(gs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d opens, %d granted with write caching, %d breaks, %d acknowledgements; %d opens called while write caching was held",
		LeaseBreaksName, c.n, grants, c.breaks, c.acks, judged)
	r := v.Conclude(LeaseBreaksName, &b, nil, "no open completed before the holder acknowledged its break", "")
	return r.WithDecided(grants).Of(c.n)
}
