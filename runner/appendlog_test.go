package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// blob.append-log on a real Azurite, bounded by iterations: append-log
// passes having decided every append attempt, the final read of each log
// holds the records the history acknowledged (their lengths add up to the
// log's, give or take appends of unknown outcome), every acknowledged offset is the position sent, and a
// padded record (payload_bytes past the history's cut) still checks.
func TestAppendLogOnAzurite(t *testing.T) {
	const limit = 3 * time.Minute
	sc := runtest.Parse(t, `
name: appendlog
duration: 3m
workloads:
  - {name: log, kind: blob.append-log, actors: 4, keys: 2, iterations: 30, params: {payload_bytes: 300}}
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	requireIterationsDone(t, sum, limit)
	var got *checks.Result
	for i := range sum.Checks {
		if sum.Checks[i].Check == "append-log" {
			got = &sum.Checks[i]
		}
	}
	if got == nil || got.Verdict != checks.Pass || got.Decided == 0 || got.Decided != got.Judgeable {
		t.Fatalf("append-log: %+v", got)
	}
	acked := map[string]int64{}   // key -> bytes acknowledged
	unknown := map[string]int64{} // key -> bytes of appends of unknown outcome
	finals := map[string]int64{}
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		switch {
		case op.Kind == "blob.append" && op.Outcome == checks.OK:
			if op.In.AppendPos == nil || op.Out.AppendOffset == nil || *op.In.AppendPos != *op.Out.AppendOffset {
				t.Errorf("acknowledged append at another offset than sent: %s", op.String())
			}
			acked[op.Key] += checks.ExpandedLen(op.In.Value)
			if checks.ExpandedLen(op.In.Value) != 300 || !strings.Contains(op.In.Value, " dots]") {
				t.Errorf("record not padded to 300 bytes (kept as its dot run): %q", op.In.Value)
			}
		case op.Kind == "blob.append" && op.Outcome == checks.Unknown:
			unknown[op.Key] += checks.ExpandedLen(op.In.Value)
		case op.Kind == checks.KindBlobReadLog && op.Outcome == checks.OK:
			finals[op.Key] = checks.ExpandedLen(op.Out.Value)
		}
	})
	if len(finals) != 2 {
		t.Fatalf("final reads of %d logs, want 2", len(finals))
	}
	for k, n := range finals {
		if n == 0 || n < acked[k] || n > acked[k]+unknown[k] {
			t.Errorf("%s: log of %d bytes, %d acknowledged, %d of unknown outcome", k, n, acked[k], unknown[k])
		}
	}
	t.Logf("append-log: %s", got.Summary)
}
