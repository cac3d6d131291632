package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// raceScenario's closed loops are bounded by their iterations, not by
// time, so the races the test expects happen however slow the machine is
// (the 3 m duration is only a cap); the open loop keeps its 2 s schedule,
// whose arrivals do not depend on speed.
const raceScenario = `
name: race
seed: 7
duration: 3m
timeout: 5s
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 8
    keys: 2
    iterations: 120
  - name: create
    kind: blob.create-once
    actors: 4
    iterations: 40
  - name: mutex
    kind: blob.lease-mutex
    actors: 4
    iterations: 40
    params: {lease_duration: 15s}
  - name: paced
    kind: blob.etag-counter
    executor: open
    rate: 50
    actors: 8
    stages: [{duration: 1s, target: 100}, {duration: 1s, target: 100}]
`

func TestRunAgainstManagedAzurite(t *testing.T) {
	sc := runtest.Parse(t, raceScenario)
	dir := filepath.Join(t.TempDir(), "results")
	var progressCalls int
	before := time.Now()
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Progress: func(Progress) { progressCalls++ }, ProgressEvery: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if sum.Interrupted || sum.Error != "" {
		t.Fatalf("summary says interrupted=%v error=%q", sum.Interrupted, sum.Error)
	}
	requireIterationsDone(t, sum, 3*time.Minute)
	assertTimeBase(t, sum, before, dir)
	if progressCalls == 0 {
		t.Error("no progress reported")
	}
	wantChecks := map[string]bool{"no-lost-updates/counter": true, "single-winner/create": true, "no-lost-updates/mutex": true, "no-lost-updates/paced": true}
	for _, r := range sum.Checks {
		delete(wantChecks, r.Check+"/"+r.Workload)
		if r.Verdict != checks.Pass {
			t.Errorf("check %s on %s: %s: %s %+v", r.Check, r.Workload, r.Verdict, r.Summary, r.Violations)
		}
	}
	if len(wantChecks) > 0 {
		t.Errorf("checks not run: %v", wantChecks)
	}
	perOp := map[string]reports.OpSummary{}
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			perOp[w.Name+"/"+o.Op] = o
		}
	}
	for _, k := range []string{"counter/blob.get", "counter/blob.put", "create/blob.create", "mutex/blob.lease.acquire", "mutex/blob.put", "paced/blob.put"} {
		if perOp[k].Count == 0 {
			t.Errorf("no %s operations recorded (have %v)", k, keys(perOp))
		}
	}
	if perOp["counter/blob.put"].Outcomes["conflict"] == 0 {
		t.Error("8 actors on 2 blobs never lost an If-Match race: the race is not a race")
	}
	if perOp["create/blob.create"].Outcomes["conflict"] == 0 {
		t.Error("create-once saw no 409: actors did not contend")
	}
	// The open-loop workload scheduled 50→100/s for 1s then 100/s for 1s:
	// 175 arrivals, due by the schedule however fast the machine serves
	// them, each started (one read), dropped (actors busy, backlog full) or
	// still unserved at the end.
	for _, w := range sum.Workloads {
		if w.Name == "paced" {
			n := perOp["paced/blob.get"].Count
			if w.Arrivals < 174 || w.Arrivals > 176 || n+w.Dropped+w.Unserved != w.Arrivals {
				t.Errorf("open loop: %d arrivals (want 175) = %d reads + %d dropped + %d unserved?", w.Arrivals, n, w.Dropped, w.Unserved)
			}
		}
	}
	for _, f := range []string{HistoryFile, SummaryFile, ScenarioFile, AzuriteLog} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("results: %v", err)
		}
	}
	hl, _ := filepath.Glob(filepath.Join(dir, HlogDir, "*.hlog"))
	if len(hl) < 5 {
		t.Errorf("want an hlog per operation, got %v", hl)
	}
	runtest.AssertNoSecrets(t, dir)
	back, err := reports.ReadSummary(filepath.Join(dir, SummaryFile))
	if err != nil || len(back.Checks) != len(sum.Checks) {
		t.Fatalf("summary.json does not round-trip: %v", err)
	}
}

// TestInjectedViolationInRealHistory takes a history Azurite produced and
// plants one lost update in it: the same checks that passed must now fail.
func TestInjectedViolationInRealHistory(t *testing.T) {
	sc := runtest.Parse(t, `
name: inject
duration: 3m
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4, iterations: 20}
`)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := Run(context.Background(), sc, Options{ResultsDir: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, HistoryFile)
	res, err := CheckHistory(path, sc)
	if err != nil || len(res) == 0 || !runtest.AllPass(res) {
		t.Fatalf("clean history: %v %+v", err, res)
	}
	// Duplicate one acknowledged put: a second writer "succeeded" on the same base ETag.
	var ops []checks.Op
	f, _ := os.Open(path)
	_ = checks.ReadHistory(f, func(op *checks.Op) error { ops = append(ops, *op); return nil })
	f.Close()
	var planted bool
	var kept []checks.Op
	for _, op := range ops {
		kept = append(kept, op)
		if !planted && op.Kind == "blob.put" && op.Outcome == checks.OK && op.Actor >= 0 {
			dup := op
			dup.Seq += 1_000_000
			dup.Actor = 99
			dup.In.Value = strings.Replace(op.In.Value, " a", " z", 1)
			kept = append(kept, dup)
			planted = true
		}
	}
	writeHistoryFile(t, path, kept)
	res, err = CheckHistory(path, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res { // no-lost-updates and version-chain both see the fork
		if r.Verdict != checks.Fail {
			t.Errorf("%s missed the planted lost update: %s", r.Check, r.Summary)
		}
	}
}

func TestRunInterruptedStillWritesResults(t *testing.T) {
	sc := runtest.Parse(t, `
name: interrupted
duration: 1m
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4}
`)
	dir := filepath.Join(t.TempDir(), "results")
	ctx, cancel := context.WithCancel(context.Background())
	var once bool
	sum, err := Run(ctx, sc, Options{ResultsDir: dir, ProgressEvery: 200 * time.Millisecond, Progress: func(p Progress) {
		if !once && p.Elapsed > time.Second {
			once = true
			cancel() // Ctrl-C
		}
	}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !sum.Interrupted {
		t.Fatalf("interrupted=%v after %v", sum.Interrupted, sum.Elapsed)
	}
	// The load stopped before its minute: no load op was started after it
	// (a bound on what the executor decided, not on the machine's speed).
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if !op.IsHarness() && op.Call >= int64(sum.LoadStart+time.Minute) {
			t.Fatalf("load op #%d started at +%v, after the interrupted load's end", op.Seq, time.Duration(op.Call))
		}
	})
	back, err := reports.ReadSummary(filepath.Join(dir, SummaryFile))
	if err != nil || !back.Interrupted {
		t.Fatalf("summary after interrupt: %v", err)
	}
	if len(sum.Checks) == 0 || !runtest.AllPass(sum.Checks) {
		t.Errorf("after an interrupt the final reads still run and the checks decide: %+v", sum.Checks)
	}
}

func TestRunReportsTargetFailure(t *testing.T) {
	sc := runtest.Parse(t, `
name: unreachable
duration: 1s
target: {kind: connection-string}
workloads:
  - {name: counter, kind: blob.etag-counter}
`)
	// A closed loopback port: the setup fails fast and the error says so.
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="+runtest.AzuriteKey+";BlobEndpoint=http://127.0.0.1:9/devstoreaccount1;")
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err == nil || !strings.Contains(err.Error(), "setup") {
		t.Fatalf("want a setup error, got %v", err)
	}
	if strings.Contains(err.Error(), runtest.AzuriteKey) || strings.Contains(sum.Error, runtest.AzuriteKey) {
		t.Fatal("the error leaks the account key")
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Errorf("a failed run must still write its summary: %v", err)
	}
	runtest.AssertNoSecrets(t, dir)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// assertTimeBase: the run's clock starts when the target is ready, not
// before Azurite's start: Started comes after Startup, the load starts at
// LoadStart on that clock (no load op intended before it), and no busiest
// second lies beyond the run's length.
func assertTimeBase(t *testing.T, sum *reports.Summary, before time.Time, dir string) {
	t.Helper()
	if sum.Startup <= 0 || sum.Started.Sub(before) < sum.Startup {
		t.Errorf("time zero %v after the call, the target's start took %v: the run's clock includes set-up", sum.Started.Sub(before), sum.Startup)
	}
	if sum.LoadStart <= 0 || sum.LoadStart >= sum.Elapsed {
		t.Errorf("load start +%v, elapsed %v", sum.LoadStart, sum.Elapsed)
	}
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.Call < 0 {
			t.Fatalf("op #%d called at %d ns, before time zero", op.Seq, op.Call)
		}
		if !op.IsHarness() && op.Intended < int64(sum.LoadStart) {
			t.Fatalf("load op #%d %s intended at %v, before the load started at +%v", op.Seq, op.Kind, time.Duration(op.Intended), sum.LoadStart)
		}
	})
	for _, u := range sum.Units {
		if time.Duration(u.PeakSecond)*time.Second > sum.Elapsed {
			t.Errorf("unit %s %s busiest at s %d of a run of %v", u.Kind, u.Name, u.PeakSecond, sum.Elapsed)
		}
	}
}

// TestSecretScanSkipsOnlyHistograms: the secret scan leaves out a summary's
// encoded histograms and nothing else.
func TestSecretScanSkipsOnlyHistograms(t *testing.T) {
	in := `{"error":"eyJhbGciOiJIUzI1NiJ9.x.y","ops":[{"histograms":{"latency":"HISTFAAAAeyJ+/=","corrected":"eyJabc"}}],` +
		`"other":{"latency":"eyJhbGciOi.JIUzI1.NiJ9"}}`
	out := string(runtest.JSONWithoutHistograms([]byte(in)))
	want := `{"error":"eyJhbGciOiJIUzI1NiJ9.x.y","ops":[{"histograms":{"latency":"","corrected":""}}],` +
		`"other":{"latency":"eyJhbGciOi.JIUzI1.NiJ9"}}`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
