package delivery

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// ExclusiveVisibilityName is the name scenarios use for the
// exclusive-visibility check.
const ExclusiveVisibilityName = "exclusive-visibility"

func init() {
	checks.Register(ExclusiveVisibilityName, func() checks.Checker { return NewExclusiveVisibility() })
}

// ExclusiveVisibility checks that a dequeued message stays hidden for its
// visibility timeout (see queuemsgs.go for the clock model). Per queue and
// message, each of these opens a window over which the message is certainly
// invisible:
//
//   - a get answered OK that returned it with visibility timeout v:
//     [return, call + v(1-rho) - 1s];
//   - an update answered OK with visibility timeout v: the same;
//   - a put answered OK with an initial visibility timeout v: the same.
//
// A violation is another delivery of the message, by any actor, sent and
// answered inside a window, unless an update of the message that may have
// applied (answered OK, or with an unknown outcome) was sent before that
// delivery returned and may have taken effect after the window's opening
// call was sent: it may have made the message visible sooner (visibility 0).
// An OK update opens its own window, which is checked in turn. A get or
// update sent without a visibility timeout opens no window; a delete is
// pop-receipt's business.
type ExclusiveVisibility struct {
	qs qQueues
}

// NewExclusiveVisibility returns a fresh checker.
func NewExclusiveVisibility() *ExclusiveVisibility {
	return &ExclusiveVisibility{qs: newQQueues(func(k qKind, op *checks.Op) bool {
		switch k {
		case qPut:
			return op.In.Visibility != nil && *op.In.Visibility > 0
		case qUpdate:
			return !checks.Refused(op)
		}
		return k == qDeliver
	})}
}

// Name implements Checker.
func (c *ExclusiveVisibility) Name() string { return ExclusiveVisibilityName }

// Observe implements Checker.
func (c *ExclusiveVisibility) Observe(op *checks.Op) { c.qs.observe(op) }

type evTotals struct {
	queues, msgs, deliveries, windows, redeliveries, noVisibility, excused int
}

// Finish implements Checker.
func (c *ExclusiveVisibility) Finish() checks.Result {
	var v checks.Violations
	var t evTotals
	for _, q := range c.qs.order {
		t.queues++
		for _, m := range q.order {
			q.checkVisibility(m, &v, &t)
		}
	}
	var b strings.Builder
	if t.queues == 0 {
		b.WriteString("no queue operations in the history")
	} else {
		fmt.Fprintf(&b, "%s, %s, %s, %s, %s", checks.Plural(t.queues, "queue", "queues"), checks.Plural(t.msgs, "message", "messages"),
			checks.Plural(t.deliveries, "delivery", "deliveries"), checks.Plural(t.windows, "invisibility window", "invisibility windows"),
			checks.Plural(t.redeliveries, "redelivery", "redeliveries"))
	}
	if t.noVisibility > 0 {
		fmt.Fprintf(&b, " (%s without a visibility timeout)", checks.Plural(t.noVisibility, "delivery or update", "deliveries and updates"))
	}
	switch {
	case v.Total > 0:
		b.WriteString(": " + checks.Plural(v.Total, "violation", "violations"))
	case t.windows == 0:
		b.WriteString(": undecided, nothing to check")
	default:
		b.WriteString(": no delivery inside an invisibility window")
		if t.excused > 0 {
			fmt.Fprintf(&b, " (%d inside one explained by an update)", t.excused)
		}
	}
	r := v.Result(ExclusiveVisibilityName, b.String())
	if t.windows == 0 { // nothing checked: decided(0) makes a Pass Undecided
		return r.WithDecided(0).Of(t.deliveries)
	}
	return r.WithDecided(t.deliveries).Of(t.deliveries)
}

// evWindow is a span over which a message is certainly invisible.
type evWindow struct {
	start, end int64
	by         *qEv
	v          int
}

func (q *qQueue) checkVisibility(m *qMsg, v *checks.Violations, t *evTotals) {
	var dels, ups []*qEv
	var wins []evWindow
	for i := range m.evs {
		e := &m.evs[i]
		r := q.rec(e)
		switch e.kind {
		case qDeliver:
			dels = append(dels, e)
		case qUpdate:
			ups = append(ups, e)
			if r.outcome != checks.OK {
				continue
			}
		}
		vis, ok := r.vis()
		if !ok {
			t.noVisibility++
			continue
		}
		if w := (evWindow{start: e.ret, end: qCertainEnd(e.call, vis), by: e, v: vis}); w.end >= w.start {
			wins = append(wins, w)
		}
	}
	if len(dels) == 0 {
		return
	}
	t.msgs++
	t.deliveries += len(dels)
	t.redeliveries += len(dels) - 1
	t.windows += len(wins)
	if len(wins) == 0 {
		return
	}
	qByCall(dels)
	qByCall(ups)
	reported, excused := make(map[*qEv]bool), make(map[*qEv]bool)
	for _, w := range wins {
		// Deliveries sent inside the window, in call order.
		i := sort.Search(len(dels), func(i int) bool { return dels[i].call >= w.start })
		for ; i < len(dels) && dels[i].call <= w.end; i++ {
			d := dels[i]
			if d == w.by || d.ret > w.end || reported[d] {
				continue
			}
			if u := q.visibleSooner(ups, w.by, d); u != nil {
				if !excused[d] {
					excused[d] = true
					t.excused++
				}
				continue
			}
			reported[d] = true
			opener := "delivered by"
			switch w.by.kind {
			case qUpdate:
				opener = "updated by"
			case qPut:
				opener = "put by"
			}
			v.AddKind("delivered again while invisible", q.key, fmt.Sprintf("message %s was delivered again by #%d inside its invisibility window: %s #%d with visibility %ds, certainly invisible over %s..%s, and no update made it visible in between",
				m.id, q.seq(d), opener, q.seq(w.by), w.v, qSecs(w.start), qSecs(w.end)),
				checks.Excerpt(q.show(w.by), q.show(d))...)
		}
	}
}

// visibleSooner returns an update (other than the window's opener) that may
// have applied between the opener and the delivery d, or nil. ups are the
// message's updates that were not refused, in call order.
func (q *qQueue) visibleSooner(ups []*qEv, opener, d *qEv) *qEv {
	for _, u := range ups {
		if u.call >= d.ret {
			break
		}
		if u == opener {
			continue
		}
		if q.rec(u).latestEffect() > opener.call {
			return u
		}
	}
	return nil
}
