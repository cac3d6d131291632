package compare_test

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/compare"
)

// TestSavedWithholdsTheVerdict: a slowed run is a regression between
// comparable runs; the same pair with the new run's client short of CPU
// (by CPU share or by its pacer) gets no verdict: no change flagged, the
// reason given, every figure still shown.
func TestSavedWithholdsTheVerdict(t *testing.T) {
	d := t.TempDir()
	base := runSummary(t, 1, 200, 5, d+"/a")
	slow := runSummary(t, 3, 200, 25, d+"/c")
	sc := []byte("name: s\nduration: 20s\n")
	o := compare.Options{Tolerance: 0.1}
	if c := compare.Saved(compare.Run{base, sc}, compare.Run{slow, sc}, o); c.Regressions == 0 || len(c.Incomparable) != 0 {
		t.Fatalf("comparable runs: %d regressions, incomparable %v", c.Regressions, c.Incomparable)
	}
	for name, edit := range map[string]func(s *reports.Summary){
		"cpu": func(s *reports.Summary) { s.ClientCPU = 0.9 },
		"pacer": func(s *reports.Summary) {
			w := &s.Workloads[0]
			w.Executor, w.Arrivals, w.PacerLate = "open", 4000, 400
		},
		"target": func(s *reports.Summary) { s.Target = "elsewhere" },
	} {
		busy := *slow
		busy.Workloads = append([]reports.WorkloadSummary(nil), slow.Workloads...)
		edit(&busy)
		c := compare.Saved(compare.Run{base, sc}, compare.Run{&busy, sc}, o)
		if c.Regressions != 0 || c.Improvements != 0 || len(c.Incomparable) != 1 {
			t.Errorf("%s: %d regressions, %d improvements, incomparable %v", name, c.Regressions, c.Improvements, c.Incomparable)
		}
		for _, oc := range c.Ops {
			for _, ch := range oc.Changes {
				if ch.Regressed || ch.Improved {
					t.Errorf("%s: %s %s flagged", name, oc.Op, ch.Metric)
				}
			}
		}
		if judged, noisy, thin := c.Tally(); judged+noisy+thin == 0 {
			t.Errorf("%s: no figure shown", name)
		}
	}
	c := compare.Saved(compare.Run{base, sc}, compare.Run{slow, []byte("name: s\nduration: 30s\n")}, o)
	if len(c.Incomparable) != 1 || !strings.Contains(c.Incomparable[0], `line 2 is "duration: 20s" in the base run, "duration: 30s" in the new`) {
		t.Errorf("scenario files: %v", c.Incomparable)
	}
}

// TestMachineBusyWithholdsTheVerdict: other work on the machine during
// either run, or both, withholds the verdict and says during which; a
// run compared with itself is comparable however busy the machine was.
func TestMachineBusyWithholdsTheVerdict(t *testing.T) {
	d := t.TempDir()
	base := runSummary(t, 1, 200, 5, d+"/a")
	slow := runSummary(t, 3, 200, 25, d+"/c")
	sc := []byte("name: s\nduration: 20s\n")
	busy, quiet := 0.6, 0.05
	with := func(s *reports.Summary, other *float64) *reports.Summary {
		c := *s
		c.OtherCPU = other
		return &c
	}
	for _, c := range []struct {
		name       string
		base, new  *float64
		want       string
		comparable bool
	}{
		{"quiet", &quiet, &quiet, "", true},
		{"unmeasured", nil, nil, "", true},
		{"new busy", &quiet, &busy, "during the new run (other processes used 60.0%", false},
		{"base busy", &busy, nil, "during the base run (other processes used 60.0%", false},
		{"both busy", &busy, &busy, "during both runs", false},
	} {
		cmp := compare.Saved(compare.Run{with(base, c.base), sc}, compare.Run{with(slow, c.new), sc}, compare.Options{Tolerance: 0.1})
		if c.comparable != (len(cmp.Incomparable) == 0) || !c.comparable && (cmp.Regressions != 0 || !strings.Contains(cmp.Incomparable[0], c.want)) {
			t.Errorf("%s: %d regressions, incomparable %v", c.name, cmp.Regressions, cmp.Incomparable)
		}
	}
	self := with(base, &busy)
	self.RunID = "r1"
	if cmp := compare.Saved(compare.Run{self, sc}, compare.Run{self, sc}, compare.Options{Tolerance: 0.1}); len(cmp.Incomparable) != 0 {
		t.Errorf("a busy run compared with itself: incomparable %v", cmp.Incomparable)
	}
}
