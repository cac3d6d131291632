package lease

import (
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// Evidence: the operations a violation names, collected per resource and reported in history order.

func (m *leaseModel) evidenceOps(first int, more ...int) []checks.Op {
	ops := []*checks.Op{m.Op(first)}
	for _, i := range more {
		if i >= 0 {
			ops = append(ops, m.Op(i))
		}
	}
	return checks.Excerpt(ops...)
}

// flag records a violation about op i unless one was already recorded;
// flush hands them to v in history order.
func (m *leaseModel) flag(i int, kind, msg string, ops []checks.Op) {
	seq := m.Op(i).Seq
	if m.flagged[seq] {
		return
	}
	m.flagged[seq] = true
	m.pending = append(m.pending, pendingViolation{seq: seq, kind: kind, msg: msg, ops: ops})
}

func (m *leaseModel) flush(v *checks.Violations) {
	sort.SliceStable(m.pending, func(a, b int) bool { return m.pending[a].seq < m.pending[b].seq })
	for _, p := range m.pending {
		v.AddKind(p.kind, m.key, p.msg, p.ops...)
	}
	m.pending = nil
}

// leaseShortID shortens a lease id for messages.
func leaseShortID(id string) string {
	if len(id) > 12 {
		return id[:8] + "…"
	}
	return id
}
