package lease

import (
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// Collecting the history: one lease model per resource, fed the operations in Seq order.

// --- collecting the history ---

type leaseKey struct {
	key        string
	ops        checks.Chunked[checks.Op] // never moved: a long history is not copied as it grows
	leaseCalls int
}

// leaseKeys keeps every operation of one namespace per key, until Finish.
type leaseKeys struct {
	sp    *leaseSpace
	keys  map[string]*leaseKey
	order []*leaseKey
}

func newLeaseKeys(sp *leaseSpace) leaseKeys {
	return leaseKeys{sp: sp, keys: map[string]*leaseKey{}}
}

func (ks *leaseKeys) observe(op *checks.Op) {
	if !strings.HasPrefix(op.Kind, ks.sp.prefix) {
		return
	}
	k := ks.keys[op.Key]
	if k == nil {
		k = &leaseKey{key: op.Key}
		ks.keys[op.Key] = k
		ks.order = append(ks.order, k)
	}
	if ks.sp.action(op.Kind) != laNone {
		k.leaseCalls++
	}
	k.ops.Add(checks.CompactOp(op, op.Workload, op.Kind, k.key))
}

// models builds the model of every key: a key without lease calls is
// never leased, which decides the state too.
func (ks *leaseKeys) models() []*leaseModel {
	out := make([]*leaseModel, 0, len(ks.order))
	for _, k := range ks.order {
		m := newLeaseModel(ks.sp, k.key, &k.ops)
		m.leaseCalls = k.leaseCalls
		out = append(out, m)
	}
	return out
}
