package runner

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/scenarios"
)

// brokenCases pairs each broken promise with a short scenario where it
// applies; the fault's check (scenarios.FaultKinds) must fail.
//
// partial-batch and stale-read run one actor. batch-atomicity proves a cut
// batch from a read that shows a row older than a batch certainly before
// it; with several actors on a slow machine the last batches all overlap,
// so every row the final read shows is explained by some concurrent batch
// (a suite run beside a busy loop, with -race, ended with 0 violations).
// One actor orders the batches: the last, cut one is always contradicted by
// the final read; likewise a stale read always follows the newer write it
// hides.
var brokenCases = []struct {
	kind, workload string
}{
	{"broken.strip-if-match", "{name: w, kind: blob.etag-counter, actors: 4}"},
	{"broken.second-lease", "{name: w, kind: blob.lease-mutex, actors: 4, params: {hold: 200ms}}"},
	{"broken.early-visible", "{name: w, kind: queue.work, actors: 4, params: {visibility: 10s}}"},
	{"broken.partial-batch", "{name: w, kind: table.batch, actors: 1, params: {batch_size: 6, rows: 6, fail_fraction: 0}}"},
	{"broken.stale-read", "{name: w, kind: blob.lww, actors: 1}"},
	{"broken.strip-appendpos", "{name: w, kind: blob.append-log, actors: 4}"},
}

// Every broken promise is caught against a real Azurite: its matching
// check fails, and the report's first line says the run broke the service
// on purpose.
func TestBrokenPromisesAreCaught(t *testing.T) {
	for _, c := range brokenCases {
		t.Run(c.kind, func(t *testing.T) {
			check := scenarios.FaultKinds[c.kind].Check
			sc := runtest.Parse(t, `
name: broken
seed: 21
duration: 4s
timeout: 2s
workloads:
  - `+c.workload+`
faults:
  - {kind: `+c.kind+`, name: breaker}
`)
			sum, _, log := runFaults(t, sc)
			var got *checks.Result
			for i := range sum.Checks {
				if sum.Checks[i].Check == check {
					got = &sum.Checks[i]
				}
			}
			if got == nil || got.Verdict != checks.Fail {
				t.Fatalf("check %s: %+v, want fail\n%s", check, got, log)
			}
			var textX strings.Builder
			if err := text.WriteText(&textX, sum); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(textX.String(), "THIS RUN BREAKS THE SERVICE ON PURPOSE: breaker ("+c.kind+")") {
				t.Errorf("first line: %.120s", textX.String())
			}
			t.Logf("%s caught: %s", check, got.Summary)
		})
	}
}
