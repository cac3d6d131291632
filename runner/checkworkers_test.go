package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
	"github.com/stormcheck/stormcheck/internal/synthhist"
	"github.com/stormcheck/stormcheck/scenarios"
)

// CheckHistory feeds each checker on a goroutine of its own; the results
// must be exactly those of feeding them one operation at a time on one
// goroutine, as it did before: the same verdicts, summaries, counts and
// violation lists (excerpts included), on a history with violations of
// several kinds, checked whole and in key groups.
func TestCheckHistoryWorkersAreSequential(t *testing.T) {
	defer func(b time.Duration) { consistency.LinearizableBudget = b }(consistency.LinearizableBudget)
	consistency.LinearizableBudget = time.Hour
	dir := t.TempDir()
	cfg := synthhist.Config{Ops: 12_000, CounterKeys: 120, LWWKeys: 60, Seed: 5, PlantFork: true}
	synth, sc, _ := writeSynthetic(t, dir, cfg)
	var ops []checks.Op
	if err := checks.ReadHistoryFile(synth, func(op *checks.Op) error { ops = append(ops, *op); return nil }); err != nil {
		t.Fatal(err)
	}
	// Plant more: phantom reads and duplicate ETags among the counter's
	// keys, and request ids of every shape the checkers keep.
	for i := range ops {
		op := &ops[i]
		switch i % 3 {
		case 0:
			op.Out.RequestID = fmt.Sprint(1_000_000 + i)
		case 1:
			op.Out.RequestID = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		}
		if op.Workload != "counter" || op.Actor < 0 || op.Outcome != checks.OK || i%401 != 0 {
			continue
		}
		if op.Kind == checks.KindBlobGet {
			op.Out.Value = checks.CounterValue{N: 99_999, Tag: fmt.Sprintf("phantom-%d", i)}.Format(0)
		} else if op.Kind == checks.KindBlobPut {
			op.Out.ETag = op.In.IfMatch
		}
	}
	path := filepath.Join(dir, "mutated.jsonl")
	var buf []byte
	for i := range ops {
		buf = ops[i].AppendJSONLine(buf)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	defer func(b int64) { CheckGroupBytes = b }(CheckGroupBytes)
	for _, groupBytes := range []int64{1 << 40, fi.Size() / 8 / 6} {
		CheckGroupBytes = groupBytes
		groups := checkGroups(path)
		got, err := CheckHistory(path, sc)
		if err != nil {
			t.Fatal(err)
		}
		want := checkSequentially(t, ops, sc.Checks, sc.Workloads, groups)
		if len(got) != len(want) || len(got) != 6 {
			t.Fatalf("%d groups: %d results, want %d", groups, len(got), len(want))
		}
		failed := 0
		for i := range want {
			if want[i].Verdict == checks.Fail {
				failed++
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%d groups: %s on %s:\ngot  %s (%d violations)\nwant %s (%d violations)", groups, want[i].Check, want[i].Workload,
					got[i].Summary, got[i].Total, want[i].Summary, want[i].Total)
			}
		}
		if failed < 3 || groups > 1 && groups < 5 {
			t.Errorf("%d groups, %d checks failed: the planted violations are not what is compared", groups, failed)
		}
	}
}

// checkSequentially is what CheckHistory did before its checkers had
// goroutines of their own: every checker fed on one goroutine, the
// key-local ones group by group (the groups CheckHistory makes) when there
// is more than one.
func checkSequentially(t *testing.T, ops []checks.Op, names []string, wls []scenarios.Workload, groups int) []checks.Result {
	t.Helper()
	var all []boundCheck
	for _, name := range names {
		for _, w := range wls {
			if !scenarios.AppliesTo(name, w.Kind) {
				continue
			}
			c, err := checks.New(name)
			if err != nil {
				t.Fatal(err)
			}
			if kl, ok := c.(checks.KeyLocal); ok {
				kl.Groups(groups)
			}
			all = append(all, boundCheck{w.Name, c})
		}
	}
	grouped := func(b boundCheck) bool {
		_, ok := b.c.(checks.KeyLocal)
		return ok && groups > 1
	}
	for i := range ops {
		for _, b := range all {
			if !grouped(b) && b.workload == ops[i].Workload {
				b.c.Observe(&ops[i])
			}
		}
	}
	if groups > 1 {
		sp := &spill{files: make([]*os.File, groups)}
		for g := range groups {
			for i := range ops {
				if sp.groupOf(&ops[i]) != g {
					continue
				}
				for _, b := range all {
					if grouped(b) && b.workload == ops[i].Workload {
						b.c.Observe(&ops[i])
					}
				}
			}
			for _, b := range all {
				if grouped(b) {
					b.c.(checks.KeyLocal).EndGroup()
				}
			}
		}
	}
	out := make([]checks.Result, len(all))
	for i, b := range all {
		out[i] = b.c.Finish()
		out[i].Workload = b.workload
	}
	return out
}
