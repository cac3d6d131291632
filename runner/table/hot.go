package table

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// tableHot is table.hot-partition: every iteration inserts one new entity
// (payload_bytes of padding; 1 KiB matches the checklist's figure) into
// the partition the key pattern names:
//   - single: one partition, "hot";
//   - uniform: the workload's keys k0..kN-1, chosen uniformly;
//   - zipf: the same keys, Zipf-distributed (exponent zipf_s): k0 hottest;
//   - append: the current second, yyyymmddhhmmss, so all traffic goes to
//     the newest partition (the checklist's append-only anti-pattern);
//   - prepend: the seconds left until year 2286, so all traffic goes to
//     the lowest partition (prepend-only);
//   - hash-prefix: "hhh-" plus the append key, hhh a 3-digit hash of the
//     row key, the checklist's remedy.
//
// The report's unit table shows entities per second per partition next to
// the 2,000 entities/s partition target.
type tableHot struct{ t *tables }

func init() {
	workload.Register("table.hot-partition", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &tableHot{}, nil })
}

func (w *tableHot) Setup(ctx context.Context, e *workload.Env) (err error) {
	w.t, _, err = tableSetup(ctx, e)
	return err
}

// hotPartition names the partition of a new entity with row key rk.
func hotPartition(pattern string, a *workload.Actor, rk string, now time.Time) string {
	stamp := now.UTC().Format("20060102150405")
	switch pattern {
	case scenarios.KeySingle:
		return "hot"
	case scenarios.KeyAppend:
		return stamp
	case scenarios.KeyPrepend:
		return fmt.Sprintf("%010d", int64(math.MaxInt32)*4-now.Unix())
	case scenarios.KeyZipf:
		z := rand.NewZipf(a.Rand, a.Env.Params.ZipfS, 1, uint64(a.Env.OwnKeys()-1))
		return workload.KeyName(a.Env.KeyLo + int(z.Uint64()))
	case scenarios.KeyHashPrefix:
		h := fnv.New32a()
		h.Write([]byte(rk))
		return fmt.Sprintf("%03d-%s", h.Sum32()%1000, stamp)
	}
	return workload.KeyName(a.Key())
}

func (w *tableHot) Iterate(ctx context.Context, a *workload.Actor) {
	p := a.Env.Params
	rk := a.Tag()
	pk := hotPartition(p.KeyPattern, a, rk, time.Now())
	w.t.write(ctx, a, checks.KindTableInsert, pk, rk, p.PayloadBytes, func() checks.Input {
		return checks.Input{Value: rk}
	}, valueProp)
}

// Final does nothing: every insert is unique, no check reads them back.
func (w *tableHot) Final(context.Context, *workload.Env) error { return nil }
