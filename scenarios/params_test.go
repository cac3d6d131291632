package scenarios

import (
	"testing"
	"time"
)

// TestTableQueueParamDefaults: absent params take their defaults, and an
// explicit 0 for a fraction that may be switched off stays 0.
func TestTableQueueParamDefaults(t *testing.T) {
	s, err := Parse("p.yaml", []byte(`
name: p
duration: 5s
workloads:
  - {name: work, kind: queue.work, actors: 6}
  - {name: calm, kind: queue.work, actors: 6, params: {crash_fraction: 0, update_fraction: 0, producers: 1}}
  - {name: batch, kind: table.batch, params: {batch_size: 30}}
  - {name: counter, kind: table.etag-counter, params: {merge_fraction: 0}}
  - {name: hot, kind: table.hot-partition}
`))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workloads
	if p := w[0].Params; p.CrashFraction != 0.05 || p.UpdateFraction != 0.2 || p.Visibility != 2*time.Second || p.MessagesPerGet != 8 || p.Producers != 3 {
		t.Errorf("queue.work defaults: %+v", p)
	}
	if p := w[1].Params; p.CrashFraction != 0 || p.UpdateFraction != 0 || p.Producers != 1 {
		t.Errorf("explicit zeros: %+v", p)
	}
	if p := w[2].Params; p.BatchSize != 30 || p.Rows != 30 || p.FailFraction != 0.1 || p.ReadFraction != 0.5 {
		t.Errorf("table.batch: rows default to at least batch_size: %+v", p)
	}
	if p := w[3].Params; p.MergeFraction != 0 {
		t.Errorf("merge_fraction: 0 must stay 0: %+v", p)
	}
	if p := w[4].Params; p.KeyPattern != KeyUniform {
		t.Errorf("key_pattern default: %q", p.KeyPattern)
	}
}
