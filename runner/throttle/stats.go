package throttle

import (
	"sort"
	"time"
)

// UnitStats is one unit's account of a proxy's life.
type UnitStats struct {
	Kind UnitKind
	// Name is path-style: blob "account/container/blob", partition
	// "account/table/PartitionKey" (table lower-cased), queue
	// "account/queue", account "account". OtherUnits gathers units
	// forgotten to bound memory.
	Name string
	// Admitted is the amount forwarded, in the unit's measure: requests for
	// a blob, entities for a partition, messages for a queue; for the
	// account, requests, except table requests, which count their entities.
	Admitted int64
	// Throttled counts the requests this unit's own bucket refused.
	Throttled int64
	// FirstThrottle is when it first refused one (zero: never).
	FirstThrottle time.Time
}

// OtherUnits is the name of the line per kind that gathers the figures of
// units the proxy stopped tracking (see MaxUnits).
const OtherUnits = "(other units)"

// MaxUnits bounds the units (accounts included) tracked at once. When it is
// reached, idle units whose buckets are back to the state of a new one are
// forgotten (at most one sweep a second; their figures go to OtherUnits);
// if none is, further new units are not tracked until a sweep makes room:
// they are limited by their account alone and counted under OtherUnits (a
// new account then shares one bucket, named OtherUnits).
const MaxUnits = 1 << 16

// unit is one tracked unit.
type unit struct {
	key      unitKey
	b        *bucket // nil: unlimited
	inflight int     // forwarded requests not yet settled
	stats    UnitStats
}

func (u *unit) throttled(now time.Time) (first bool) {
	u.stats.Throttled++
	if u.stats.FirstThrottle.IsZero() {
		u.stats.FirstThrottle = now
		return true
	}
	return false
}

// registry holds the units; the Proxy's mutex guards it.
type registry struct {
	limits        Limits
	burst, warmup time.Duration
	max           int

	units     map[unitKey]*unit
	other     map[UnitKind]*UnitStats
	lastSweep time.Time
}

func newRegistry(l Limits, burst, warmup time.Duration) *registry {
	return &registry{limits: l, burst: burst, warmup: warmup, max: MaxUnits,
		units: map[unitKey]*unit{}, other: map[UnitKind]*UnitStats{}}
}

// target is the limit for a kind of unit (0: unlimited).
func (g *registry) target(k UnitKind) float64 {
	switch k {
	case KindBlob:
		return g.limits.BlobRequests
	case KindPartition:
		return g.limits.PartitionEntities
	case KindQueue:
		return g.limits.QueueMessages
	case KindAccount:
		return g.limits.AccountRequests
	}
	return 0
}

// get returns the unit for k, creating it; nil when the registry is full
// and nothing can be forgotten.
func (g *registry) get(k unitKey, now time.Time) *unit {
	if u := g.units[k]; u != nil {
		return u
	}
	if len(g.units) >= g.max {
		if now.Sub(g.lastSweep) < time.Second {
			return nil
		}
		g.lastSweep = now
		g.sweep(now)
		if len(g.units) >= g.max {
			return nil
		}
	}
	return g.add(k, now)
}

// account returns the account unit for name; when the registry is full,
// a shared account unit named OtherUnits stands in (every request needs
// an account bucket).
func (g *registry) account(name string, now time.Time) *unit {
	if u := g.get(unitKey{KindAccount, name}, now); u != nil {
		return u
	}
	k := unitKey{KindAccount, OtherUnits}
	if u := g.units[k]; u != nil {
		return u
	}
	return g.add(k, now)
}

// add creates and tracks the unit k.
func (g *registry) add(k unitKey, now time.Time) *unit {
	u := &unit{key: k, stats: UnitStats{Kind: k.kind, Name: k.name}}
	if t := g.target(k.kind); t > 0 {
		warm := g.warmup
		if k.kind == KindAccount {
			warm = 0 // an account's limits are provisioned, not load-balanced
		}
		u.b = newBucket(t, g.burst, warm, now)
	}
	g.units[k] = u
	return u
}

// sweep forgets idle units that a new unit would replace exactly.
func (g *registry) sweep(now time.Time) {
	for k, u := range g.units {
		if u.inflight > 0 || (u.b != nil && !u.b.fresh(now)) || k.name == OtherUnits {
			continue
		}
		o := g.otherFor(k.kind)
		o.Admitted += u.stats.Admitted
		o.Throttled += u.stats.Throttled
		if !u.stats.FirstThrottle.IsZero() && (o.FirstThrottle.IsZero() || u.stats.FirstThrottle.Before(o.FirstThrottle)) {
			o.FirstThrottle = u.stats.FirstThrottle
		}
		delete(g.units, k)
	}
}

func (g *registry) otherFor(k UnitKind) *UnitStats {
	o := g.other[k]
	if o == nil {
		o = &UnitStats{Kind: k, Name: OtherUnits}
		g.other[k] = o
	}
	return o
}

// stats returns every unit's figures, by kind then name.
func (g *registry) stats() []UnitStats {
	out := make([]UnitStats, 0, len(g.units)+len(g.other))
	others := map[UnitKind]UnitStats{}
	for _, o := range g.other {
		others[o.Kind] = *o
	}
	for _, u := range g.units {
		if u.key.name != OtherUnits {
			out = append(out, u.stats)
			continue
		}
		o := others[u.key.kind] // the shared account bucket: one line with the forgotten accounts
		o.Kind, o.Name = u.key.kind, OtherUnits
		o.Admitted += u.stats.Admitted
		o.Throttled += u.stats.Throttled
		if f := u.stats.FirstThrottle; !f.IsZero() && (o.FirstThrottle.IsZero() || f.Before(o.FirstThrottle)) {
			o.FirstThrottle = f
		}
		others[u.key.kind] = o
	}
	for _, o := range others {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}
