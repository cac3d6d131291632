package reports

import (
	"io"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
)

// UnitLatencies reads a run's history once more and sets the latency
// percentiles (corrected: from the intended start) of the units the report
// lists: those that kept their per-second series (the busiest of each
// workload and kind). Every attempt on the unit counts, throttled ones
// included, so throttling shows in the unit's latency. Other units keep no
// latency: a histogram per blob of a million-blob run would not fit.
func UnitLatencies(history io.Reader, units []UnitSummary) error {
	hists := map[unitKey]*hdrhistogram.Histogram{}
	for _, u := range units {
		if u.PerSecond != nil && u.Kind != UnitAccount && u.Name != OtherUnits {
			hists[unitKey{u.Workload, u.Kind, u.Name}] = newHistogram()
		}
	}
	if len(hists) == 0 {
		return nil
	}
	var sums = map[unitKey]*[2]int64{} // sum and max of the corrected latency, ns
	err := checks.ReadHistory(history, func(op *checks.Op) error {
		if op.IsHarness() {
			return nil
		}
		us, ok := usageOf(op)
		if !ok {
			return nil
		}
		k := unitKey{op.Workload, us.kind, us.name}
		h := hists[k]
		if h == nil {
			return nil
		}
		cor := max(op.CorrectedLatency(), op.Latency(), 0)
		_ = h.RecordValue(micros(cor))
		sm := sums[k]
		if sm == nil {
			sm = &[2]int64{}
			sums[k] = sm
		}
		sm[0] += cor
		sm[1] = max(sm[1], cor)
		return nil
	})
	for i := range units {
		u := &units[i]
		k := unitKey{u.Workload, u.Kind, u.Name}
		if h := hists[k]; h != nil && h.TotalCount() > 0 {
			p := percentiles(h, h.TotalCount(), sums[k][0], sums[k][1])
			u.Latency = &p
		}
	}
	return err
}
