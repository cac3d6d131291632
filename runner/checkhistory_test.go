package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
	"github.com/stormcheck/stormcheck/internal/synthhist"
	"github.com/stormcheck/stormcheck/scenarios"
)

// writeSynthetic writes a synthetic history, compressed as the recorder
// writes it, and returns its path and scenario.
func writeSynthetic(t testing.TB, dir string, cfg synthhist.Config) (string, *scenarios.Scenario, synthhist.Stats) {
	t.Helper()
	path := filepath.Join(dir, HistoryFile)
	st, err := synthhist.WriteFile(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("synthetic.yaml", []byte(synthhist.Scenario))
	if err != nil {
		t.Fatal(err)
	}
	return path, sc, st
}

// A history checked in key groups (spilled to disk, judged group by group)
// gets the verdicts it gets in one piece: every check passes on a valid
// one, and the lost update planted in another is reported by every check
// that looks for it, grouped or not.
func TestCheckHistoryInKeyGroups(t *testing.T) {
	// Verdicts must not depend on how fast this machine searches: give
	// porcupine all the time it needs (it needs well under a second here).
	defer func(b time.Duration) { consistency.LinearizableBudget = b }(consistency.LinearizableBudget)
	consistency.LinearizableBudget = time.Hour
	for _, plant := range []bool{false, true} {
		dir := t.TempDir()
		cfg := synthhist.Config{Ops: 12_000, CounterKeys: 120, LWWKeys: 60, Seed: 3, PlantFork: plant}
		path, sc, st := writeSynthetic(t, dir, cfg)
		fi, _ := os.Stat(path)
		if st.Records < 12_000 || fi.Size()*5 > st.Bytes {
			t.Fatalf("history: %d records, %d bytes compressed of %d", st.Records, fi.Size(), st.Bytes)
		}
		old := CheckGroupBytes
		var runs [2][]checks.Result
		for i, groupBytes := range []int64{1 << 40, fi.Size() / 7} {
			CheckGroupBytes = groupBytes
			if g := checkGroups(path); (i == 0) != (g == 1) || i == 1 && g < 7 {
				t.Fatalf("group bytes %d: %d groups", groupBytes, g)
			}
			n := 0
			res, err := CheckHistory(path, sc, func(*checks.Op) { n++ })
			if err != nil {
				t.Fatal(err)
			}
			if int64(n) != st.Records {
				t.Errorf("observer saw %d records of %d", n, st.Records)
			}
			runs[i] = res
		}
		CheckGroupBytes = old
		if len(runs[0]) != 6 { // no-lost-updates, version-chain ×2, linearizable ×2, single-winner
			t.Fatalf("%d results: %+v", len(runs[0]), runs[0])
		}
		for i, whole := range runs[0] {
			grouped := runs[1][i]
			if whole.Verdict != grouped.Verdict || whole.Total != grouped.Total {
				t.Errorf("%s on %s: whole %s (%d), grouped %s (%d)\n%s\n%s", whole.Check, whole.Workload,
					whole.Verdict, whole.Total, grouped.Verdict, grouped.Total, whole.Summary, grouped.Summary)
			}
			want := checks.Pass
			if plant && whole.Workload == "counter" {
				want = checks.Fail
			}
			for _, r := range []checks.Result{whole, grouped} {
				if r.Verdict != want {
					t.Errorf("plant %v: %s on %s: %s, want %s: %s", plant, r.Check, r.Workload, r.Verdict, want, r.Summary)
				}
				if want == checks.Fail && (len(r.Violations) == 0 || !strings.Contains(r.Violations[0].Message, "fork")) {
					t.Errorf("%s: the planted fork is not the violation: %+v", r.Check, r.Violations)
				}
			}
		}
	}
}
