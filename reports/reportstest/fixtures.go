// Package reportstest holds what the reports' tests share: sample summaries,
// a fixture run written as a results folder (with hostile names), the
// checks on a rendering's widths and fields, and histories to merge. Only
// tests import it.
package reportstest

import (
	"bytes"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// fields collapses runs of spaces so assertions do not depend on padding.
func Fields(s string) string { return strings.Join(strings.Fields(s), " ") }

// opDump is a violation's recorded operation, as the checks list it.
var opDump = regexp.MustCompile(`^ {8}#\d+ `)

// checkWidth fails for every line of a text report wider than TextWidth,
// except the ones the report leaves long on purpose: a violation's
// recorded operations and the files' paths.
func CheckWidth(t *testing.T, name, out string) {
	t.Helper()
	files := false
	for i, l := range strings.Split(out, "\n") {
		if l == "files" {
			files = true
		}
		if files || opDump.MatchString(l) {
			continue
		}
		if n := reports.Width(l); n > reports.TextWidth {
			t.Errorf("%s: line %d is %d columns:\n%s", name, i+1, n, l)
		}
	}
}

func SampleSummary() *reports.Summary {
	op1 := *MkOp("create", "blob.create", 0, checks.OK, 10, 2, 0)
	op1.Seq, op1.Key = 12, "k1"
	op2 := *MkOp("create", "blob.create", 1, checks.OK, 11, 2, 0)
	op2.Seq, op2.Key = 13, "k1"
	return &reports.Summary{
		Scenario:    "mixed",
		File:        "scenarios/examples/mixed.yaml",
		Seed:        42,
		Target:      "managed Azurite 3.37.0 (127.0.0.1)",
		Started:     time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC),
		Elapsed:     60*time.Second + 230*time.Millisecond,
		Interrupted: true,
		Workloads: []reports.WorkloadSummary{
			{
				Name: "counter", Kind: "blob.etag-counter", Executor: "closed", Actors: 8,
				Ops: []reports.OpSummary{
					{
						Op: "blob.get", Count: 12000, Rate: 200,
						Outcomes:  map[string]int64{"ok": 12000, "conflict": 0, "throttled": 0, "error": 0, "unknown": 0},
						Latency:   reports.Percentiles{P50: 1.21, P90: 2.3, P99: 4.5, P999: 9.1, Max: 12, Mean: 1.4, Count: 12000},
						Corrected: reports.Percentiles{P50: 1.21, P90: 2.3, P99: 4.5, P999: 9.1, Max: 12, Mean: 1.4, Count: 12000},
					},
					{
						Op: "blob.put", Count: 3000, Rate: 50,
						Outcomes:  map[string]int64{"ok": 2766, "conflict": 234, "throttled": 0, "error": 0, "unknown": 0},
						Latency:   reports.Percentiles{P50: 1.5, P90: 3, P99: 6, P999: 11, Max: 15, Mean: 2, Count: 3000},
						Corrected: reports.Percentiles{P50: 1.5, P90: 3, P99: 7.25, P999: 210, Max: 1450, Mean: 3, Count: 3000},
					},
				},
			},
			{
				Name: "create", Kind: "blob.create-once", Executor: "open", Actors: 64, Late: 12, Dropped: 3,
				Ops: []reports.OpSummary{{
					Op: "blob.create", Count: 80, Rate: 16,
					Outcomes:  map[string]int64{"ok": 16, "conflict": 63, "throttled": 0, "error": 0, "unknown": 1},
					Latency:   reports.Percentiles{P50: 0.512, P90: 0.9, P99: 1, P999: 1, Max: 1, Mean: 0.6, Count: 80},
					Corrected: reports.Percentiles{P50: 0.6, P90: 1.1, P99: 1.5, P999: 1.5, Max: 1.5, Mean: 0.7, Count: 80},
				}},
			},
		},
		Checks: []checks.Result{
			{Check: "no-lost-updates", Workload: "counter", Verdict: checks.Pass, Summary: "counter: 2766 acknowledged writes, final value 2766"},
			{Check: "single-winner", Workload: "create", Verdict: checks.Fail, Summary: "create: 2 rounds with more than one winner", Total: 5,
				Violations: []checks.Violation{
					{Key: "k1", Message: "two creates with If-None-Match: * succeeded", Ops: []checks.Op{op1, op2}},
					{Key: "k2", Message: "second"}, {Key: "k3", Message: "third"}, {Key: "k4", Message: "fourth"},
				}},
			{Check: "linearizable", Workload: "create", Verdict: checks.Undecided, Summary: "create: search budget exhausted"},
		},
		Harness: []reports.OpSummary{
			{Op: "blob.get", Count: 16, Outcomes: map[string]int64{"ok": 15, "error": 1}},
			{Op: "blob.put", Count: 16, Outcomes: map[string]int64{"ok": 16}},
		},
		Files:    map[string]string{"history": "history.jsonl", "hlog counter blob.put": "hlog/counter.blob.put.hlog"},
		ExitCode: 1,
	}
}

// fixtureNames are the names a fixture run uses; the hostile set puts
// markup everywhere a name can reach the page.
type FixtureNames struct {
	scenario, counter, hot, idle string
	key, hotKey                  string
	checkSummary                 string
	fileLabel, filePath          string
}

var PlainNames = FixtureNames{
	scenario: "report-fixture", counter: "counter", hot: "hot", idle: "idle",
	key: "k0", hotKey: "p0",
	checkSummary: "1 key, 180 acknowledged increments, 0 unknown: no update lost",
	fileLabel:    "azurite log", filePath: "azurite.log",
}

var HostileNames = FixtureNames{
	scenario: `<script>alert("scenario")</script>`, counter: `counter"><b>`, hot: "hot&<i>", idle: "idle'",
	key: `k0<img src=x onerror=alert(1)>`, hotKey: "p0<svg onload=alert(2)>",
	checkSummary: `</pre></td><script>alert(3)</script>`,
	fileLabel:    "<u>log</u>", filePath: "javascript:alert(4)",
}

// writeFixtureRun makes a realistic results directory in dir, as a run
// writes it: 24 seconds of a closed-loop counter (get, then put under
// If-Match, most puts conflicting, a latency spike at 12-14 s) and an
// open-loop hot-partition insert workload that falls behind and is
// throttled (so corrected latency differs), recorded through Metrics with
// its hlog directory; units against their targets; a passing, a failing
// (with a violation picture) and an undecided check; thresholds. It
// returns the summary, also written as dir/summary.json.
func WriteFixtureRun(t testing.TB, dir string, names FixtureNames) *reports.Summary {
	t.Helper()
	start := time.Date(2026, 11, 22, 4, 48, 16, 0, time.UTC)
	counterGoal, _ := reports.GoalOf("blob.etag-counter")
	hotGoal, _ := reports.GoalOf("table.hot-partition")
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, "hlog"), Start: start, Workloads: []string{names.counter, names.hot, names.idle},
		Goals: map[string]reports.Goal{names.counter: counterGoal, names.hot: hotGoal}})
	rng := rand.New(rand.NewSource(7))
	const seconds = 24
	op := func(w, kind, key string, actor int, out checks.Outcome, intendedMs, lagMs, latMs float64) {
		call := int64((intendedMs + lagMs) * 1e6)
		m.Record(&checks.Op{Actor: actor, Workload: w, Kind: kind, Key: key, Attempt: 1,
			Intended: int64(intendedMs * 1e6), Call: call, Return: call + int64(latMs*1e6), Outcome: out, Out: fixtureResponse(kind, out)})
	}
	// setup and final reads: harness ops, kept apart
	op(names.counter, "blob.put", names.key, checks.ActorSetup, checks.OK, 0, 0, 12)
	for s := 0; s < seconds; s++ {
		spike := 1.0
		if s >= 12 && s < 15 {
			spike = 6
		}
		// counter: 180-220 iterations a second, each a get and a put
		n := 180 + rng.Intn(40)
		for i := 0; i < n; i++ {
			at := float64(s)*1000 + float64(i)*1000/float64(n)
			get := (2 + rng.ExpFloat64()*4) * spike
			op(names.counter, "blob.get", names.key, i%32, checks.OK, at, 0, get)
			out := checks.Conflict
			if i%12 == 0 {
				out = checks.OK
			}
			if s == 20 && i == 5 {
				out = checks.Unknown
			}
			op(names.counter, "blob.put", names.key, i%32, out, at+get, 0, (3+rng.ExpFloat64()*6)*spike)
		}
		// hot: 300 inserts a second into 12 partitions, p0 taking half;
		// behind schedule at 15-18 s, where some are throttled
		for i := 0; i < 300; i++ {
			at := float64(s)*1000 + float64(i)*1000/300
			key := names.hotKey
			if i%2 == 1 {
				key = "p" + strconv.Itoa(1+i%11)
			}
			lag, out := 0.0, checks.OK
			if s >= 15 && s < 19 {
				lag = 40 * rng.Float64()
				if i%9 == 0 {
					out = checks.Throttled
				}
			}
			if s == 8 && i < 3 {
				out = checks.Error
			}
			op(names.hot, "table.insert", key+"/r"+strconv.Itoa(i%26), i%16, out, at, lag, 8+rng.ExpFloat64()*10)
		}
	}
	op(names.counter, "blob.get", names.key, checks.ActorFinal, checks.OK, seconds*1000+50, 0, 3)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := seconds*time.Second + 300*time.Millisecond
	ws, harness := m.Summary(elapsed)
	for i := range ws {
		switch ws[i].Name {
		case names.counter:
			ws[i].Kind, ws[i].Executor, ws[i].Actors = "blob.etag-counter", "closed", 32
		case names.hot:
			ws[i].Kind, ws[i].Executor, ws[i].Actors, ws[i].Late = "table.hot-partition", "open", 16, 412
		case names.idle:
			ws[i].Kind, ws[i].Executor, ws[i].Actors = "blob.lww", "closed", 2
		}
	}
	if len(ws) != 3 || len(ws[2].Ops) != 0 { // the idle workload recorded nothing, and is listed
		t.Fatalf("workloads %+v", ws)
	}
	units := m.Units(func(w string) time.Duration {
		for _, x := range ws {
			if x.Name == w {
				return x.Active
			}
		}
		return elapsed
	}, nil, nil)
	picture := filepath.Join("checks", "hot.linearizable-p0.html")
	if err := os.MkdirAll(filepath.Join(dir, "checks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, picture), []byte("<html>picture</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []checks.Op{
		{Seq: 10, Actor: 3, Workload: names.hot, Kind: "table.get", Key: names.hotKey + "/ra", Attempt: 1, Call: 1e9, Return: 1e9 + 5e6, Outcome: checks.OK,
			Out: checks.Output{Status: 200, ETag: `"e1"`, Value: "1 a3-1"}},
		{Seq: 11, Actor: 4, Workload: names.hot, Kind: "table.get", Key: names.hotKey + "/ra", Attempt: 1, Call: 1e9 + 6e6, Return: 1e9 + 9e6, Outcome: checks.OK,
			Out: checks.Output{Status: 200, ETag: `"e0"`, Value: "0 setup-1"}},
	}
	s := &reports.Summary{
		Scenario: names.scenario, File: "scenarios/examples/" + names.scenario + ".yaml", Seed: 1,
		Target:  "managed Azurite 3.37.0 (127.0.0.1:41839)",
		Started: start, Elapsed: elapsed,
		Workloads: ws, Harness: harness, Units: units,
		Checks: []checks.Result{
			{Check: "no-lost-updates", Workload: names.counter, Verdict: checks.Pass, Summary: names.checkSummary},
			{Check: "linearizable", Workload: names.hot, Verdict: checks.Fail, Summary: "1 key not linearizable",
				Violations: []checks.Violation{{Key: names.hotKey + "/ra", Message: "a read returned a value older than one already read", Ops: bad}},
				Total:      3, Files: []string{picture}},
			{Check: "version-chain", Workload: names.hot, Verdict: checks.Undecided, Summary: "the final read is missing"},
		},
		Thresholds: []reports.ThresholdResult{
			{Threshold: "p99(blob.get) < 50ms", Pass: true, Actual: 41.5},
			{Threshold: "throughput(table.insert) > 400/s over 5s", Pass: false, Actual: 298, Window: "15s-20s"},
		},
		Capacity: &reports.CapacityInfo{Profile: "checklist", Scale: 1, Targets: map[string]float64{"blob": 500, "partition": 2000, "queue": 2000, "account": 20000}},
		Files: map[string]string{"history": "history.jsonl", "hlog": "hlog" + string(os.PathSeparator), "scenario": "scenario.yaml",
			names.fileLabel: names.filePath, "report": reports.HTMLFile},
		ExitCode: 1,
	}
	if err := reports.WriteSummaryJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fixtureResponse is the status and error code Azurite gives an op of
// kind with outcome out.
func fixtureResponse(kind string, out checks.Outcome) checks.Output {
	switch out {
	case checks.Conflict:
		return checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
	case checks.Throttled:
		return checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	case checks.Error:
		return checks.Output{Status: 409, ErrorCode: "EntityAlreadyExists"}
	case checks.Unknown:
		return checks.Output{}
	}
	switch kind {
	case "blob.put":
		return checks.Output{Status: 201}
	case "table.insert":
		return checks.Output{Status: 204}
	}
	return checks.Output{Status: 200}
}

// almost reports whether a and b agree to within rel (relative).
func Almost(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+1e-9
}

// mkOp makes a load op: call at callMs, returning latMs later, intended
// lagMs before the call.
func MkOp(workload, kind string, actor int, out checks.Outcome, callMs, latMs, lagMs float64) *checks.Op {
	call := int64(callMs * 1e6)
	return &checks.Op{
		Actor:    actor,
		Workload: workload,
		Kind:     kind,
		Attempt:  1,
		Intended: call - int64(lagMs*1e6),
		Call:     call,
		Return:   call + int64(latMs*1e6),
		Outcome:  out,
	}
}

func WriteHistory(t *testing.T, ops []*checks.Op) string {
	t.Helper()
	var buf bytes.Buffer
	z, err := checks.NewHistoryWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		op.Seq = uint64(i + 1)
		z.Write(op.AppendJSONLine(nil))
	}
	z.Close()
	p := filepath.Join(t.TempDir(), "history.jsonl.zst")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
