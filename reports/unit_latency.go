package reports

import (
	"io"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
)

// UnitLatencyCollector gathers the latency percentiles (corrected: from the
// intended start) of the units the report lists: those that kept their
// per-second series (the busiest of each workload and kind). Every attempt
// on the unit counts, throttled ones included, so throttling shows in the
// unit's latency. Other units keep no latency: a histogram per blob of a
// million-blob run would not fit. It observes the history in the same pass
// as the checks, so the history is read once.
type UnitLatencyCollector struct {
	units []UnitSummary
	hists map[unitKey]*hdrhistogram.Histogram
	sums  map[unitKey]*[2]int64 // sum and max of the corrected latency, ns
}

// NewUnitLatencyCollector prepares a histogram for each listed unit;
// Apply writes the percentiles into units.
func NewUnitLatencyCollector(units []UnitSummary) *UnitLatencyCollector {
	c := &UnitLatencyCollector{units: units, hists: map[unitKey]*hdrhistogram.Histogram{}, sums: map[unitKey]*[2]int64{}}
	for _, u := range units {
		if u.PerSecond != nil && u.Kind != UnitAccount && u.Name != OtherUnits {
			c.hists[unitKey{u.Workload, u.Kind, u.Name}] = NewHistogram()
		}
	}
	return c
}

// Observe takes one recorded attempt.
func (c *UnitLatencyCollector) Observe(op *checks.Op) {
	if len(c.hists) == 0 || op.IsHarness() {
		return
	}
	us, ok := UsageOf(op)
	if !ok {
		return
	}
	k := unitKey{op.Workload, us.Kind, us.Name}
	h := c.hists[k]
	if h == nil {
		return
	}
	cor := max(op.CorrectedLatency(), op.Latency(), 0)
	_ = h.RecordValue(Micros(cor))
	sm := c.sums[k]
	if sm == nil {
		sm = &[2]int64{}
		c.sums[k] = sm
	}
	sm[0] += cor
	sm[1] = max(sm[1], cor)
}

// Apply sets the percentiles of the units that recorded attempts.
func (c *UnitLatencyCollector) Apply() {
	for i := range c.units {
		u := &c.units[i]
		k := unitKey{u.Workload, u.Kind, u.Name}
		if h := c.hists[k]; h != nil && h.TotalCount() > 0 {
			p := PercentilesOf(h, h.TotalCount(), c.sums[k][0], c.sums[k][1])
			u.Latency = &p
		}
	}
}

// UnitLatencies reads a history (plain or compressed) and sets the units'
// latency percentiles, as NewUnitLatencyCollector describes.
func UnitLatencies(history io.Reader, units []UnitSummary) error {
	c := NewUnitLatencyCollector(units)
	err := checks.ReadHistory(history, func(op *checks.Op) error { c.Observe(op); return nil })
	c.Apply()
	return err
}
