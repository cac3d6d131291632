package merge_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/merge"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
)

// recordShard records ops into a Metrics writing hlogs into dir, as a
// shard's run does, and returns the values recorded (µs) per second of
// return, plain and corrected.
func recordShard(t *testing.T, dir string, start time.Time, ops []*checks.Op) {
	t.Helper()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir, Start: start})
	for _, op := range ops {
		m.Record(op)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}

// randomOps makes n attempts of one op returning over secs seconds, with
// latencies spread over four orders of magnitude.
func randomOps(r *rand.Rand, n, secs int, kind string) []*checks.Op {
	ops := make([]*checks.Op, n)
	ret := int64(0)
	step := int64(secs) * int64(time.Second) / int64(n)
	for i := range ops {
		ret += step
		lat := int64(math.Exp(r.Float64()*9)) * int64(time.Microsecond) // 1 µs .. 8 ms
		wait := int64(r.IntN(3)) * int64(time.Millisecond)
		ops[i] = &checks.Op{Actor: i % 4, Workload: "w", Kind: kind, Key: "k", Attempt: 1,
			Intended: ret - lat - wait, Call: ret - lat, Return: ret, Outcome: checks.OK}
	}
	return ops
}

// The merged logs' totals are exactly one histogram of every value every
// shard recorded, plain and corrected, and every interval lands in the
// merged second its middle falls in.
func TestMergeHlogsIsOneHistogramOfAllValues(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	origin := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	shifts := []time.Duration{0, 300 * time.Millisecond, 1700 * time.Millisecond}
	var dirs []string
	all, allCor := reports.NewHistogram(), reports.NewHistogram()
	perSec := map[int64]int64{} // merged second -> values
	for i, shift := range shifts {
		dir := filepath.Join(t.TempDir(), "hlog")
		ops := randomOps(r, 3000+i*500, 5, "blob.put")
		recordShard(t, dir, origin.Add(shift), ops)
		dirs = append(dirs, dir)
		for _, op := range ops {
			all.RecordValue(reports.Micros(op.Latency()))
			allCor.RecordValue(reports.Micros(op.CorrectedLatency()))
			sec := op.Return / int64(time.Second)
			perSec[int64(math.Floor(float64(sec)+0.5+shift.Seconds()))]++
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	totals, files, problems, err := merge.MergeHlogs(dirs, shifts, out, origin)
	if err != nil || len(problems) > 0 {
		t.Fatalf("merge: %v %v", err, problems)
	}
	got := totals[merge.LatencyKey{Workload: "w", Op: "blob.put"}]
	if got == nil || !got.Latency.Equals(all) || !got.Corrected.Equals(allCor) {
		t.Fatalf("merged totals are not the histogram of every value: %+v", got)
	}
	for _, q := range []float64{50, 90, 99, 99.9, 100} {
		if got.Latency.ValueAtQuantile(q) != all.ValueAtQuantile(q) {
			t.Errorf("p%v: merged %d, one histogram %d", q, got.Latency.ValueAtQuantile(q), all.ValueAtQuantile(q))
		}
	}
	if files["hlog w blob.put"] != "w.blob.put.hlog" {
		t.Errorf("files %v", files)
	}
	for _, name := range []string{"w.blob.put.hlog", "corrected/w.blob.put.hlog"} {
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]int64{}
		var header merge.LatencyKey
		err = reports.ScanLatencyLog(f, func(w, op string) { header = merge.LatencyKey{Workload: w, Op: op} }, func(ts float64, h *hdrhistogram.Histogram) error {
			seen[int64(ts)] += h.TotalCount()
			return nil
		})
		f.Close()
		if err != nil || header != (merge.LatencyKey{Workload: "w", Op: "blob.put"}) {
			t.Fatalf("%s: %v, header %v", name, err, header)
		}
		for sec, n := range perSec {
			if seen[sec] != n {
				t.Errorf("%s second %d: %d values, want %d", name, sec, seen[sec], n)
			}
		}
		if len(seen) != len(perSec) {
			t.Errorf("%s: %d intervals, want %d", name, len(seen), len(perSec))
		}
		// The page reads it as any run's log.
		if ls, err := html.ReadLatencyLog(filepath.Join(out, name)); err != nil || ls.Workload != "w" {
			t.Errorf("%s: ReadLatencyLog %v %+v", name, err, ls)
		}
	}
}

// A damaged shard log is named, the others still merge.
func TestMergeHlogsNamesADamagedLog(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	origin := time.Now()
	a, b := filepath.Join(t.TempDir(), "hlog"), filepath.Join(t.TempDir(), "hlog")
	recordShard(t, a, origin, randomOps(r, 500, 3, "blob.get"))
	recordShard(t, b, origin, randomOps(r, 500, 3, "blob.get"))
	p := filepath.Join(b, "w.blob.get.hlog")
	raw, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(raw, []byte("0.000,1.000,0.1,HISTFAAAAnotahistogram\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	totals, _, problems, err := merge.MergeHlogs([]string{a, b}, []time.Duration{0, 0}, t.TempDir(), origin)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "shard 1") || !strings.Contains(problems[0], p) {
		t.Fatalf("problems %q: want shard 1's log named", problems)
	}
	if n := totals[merge.LatencyKey{Workload: "w", Op: "blob.get"}].Latency.TotalCount(); n != 1000 {
		t.Errorf("merged %d values, want the 1000 before the damage", n)
	}
}

// The histories merge k-way by rebased return: every record once, times
// shifted, widened by the shard's bound, Seq renumbered; observe sees the
// unwidened times.
func TestMergeHistoriesKWay(t *testing.T) {
	ms := int64(time.Millisecond)
	a := reportstest.WriteHistory(t, []*checks.Op{
		{Actor: 0, Workload: "w", Kind: "blob.put", Key: "k", Intended: 1 * ms, Call: 1 * ms, Return: 10 * ms},
		{Actor: 0, Workload: "w", Kind: "blob.put", Key: "k", Intended: 20 * ms, Call: 20 * ms, Return: 30 * ms},
	})
	b := reportstest.WriteHistory(t, []*checks.Op{
		{Actor: 1, Workload: "w", Kind: "blob.get", Key: "k", Intended: 0, Call: 0, Return: 5 * ms},
		{Actor: 1, Workload: "w", Kind: "blob.get", Key: "k", Intended: 10 * ms, Call: 12 * ms, Return: 15 * ms},
	})
	shards := []merge.HistoryShard{{Path: a, Shift: 0, Widen: 2 * time.Millisecond}, {Path: b, Shift: 7 * time.Millisecond, Widen: 100 * time.Millisecond}}
	var out bytes.Buffer
	var seen []string
	counts, trunc, err := merge.MergeHistories(shards, &out, func(shard int, op *checks.Op) {
		seen = append(seen, time.Duration(op.Return).String())
	})
	if err != nil || len(trunc) > 0 || counts[0] != 2 || counts[1] != 2 {
		t.Fatalf("counts %v truncated %v err %v", counts, trunc, err)
	}
	if got := strings.Join(seen, " "); got != "10ms 12ms 22ms 30ms" {
		t.Errorf("observed returns %s, want 10ms 12ms 22ms 30ms (shard 1's shifted by 7ms, merged by return)", got)
	}
	var got []checks.Op
	if err := checks.ReadHistory(&out, func(op *checks.Op) error { got = append(got, *op); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		seq             uint64
		call, ret, intd int64
	}{{1, -1 * ms, 12 * ms, -1 * ms}, {2, -93 * ms, 112 * ms, -93 * ms}, {3, -81 * ms, 122 * ms, -83 * ms}, {4, 18 * ms, 32 * ms, 18 * ms}}
	for i, w := range want {
		g := got[i]
		if g.Seq != w.seq || g.Call != w.call || g.Return != w.ret || g.Intended != w.intd {
			t.Errorf("record %d: seq %d call %d return %d intended %d; want %+v", i, g.Seq, g.Call, g.Return, g.Intended, w)
		}
	}
}

// A history cut short is merged up to its last whole record and named.
func TestMergeHistoriesTruncatedShard(t *testing.T) {
	a := reportstest.WriteHistory(t, []*checks.Op{{Workload: "w", Kind: "blob.put", Key: "k", Return: 1}, {Workload: "w", Kind: "blob.put", Key: "k", Return: 2}})
	raw, _ := os.ReadFile(a)
	if err := os.WriteFile(a, raw[:len(raw)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	b := reportstest.WriteHistory(t, []*checks.Op{{Workload: "w", Kind: "blob.get", Key: "k", Return: 1}})
	counts, trunc, err := merge.MergeHistories([]merge.HistoryShard{{Path: a}, {Path: b}}, nil, nil)
	if err != nil || len(trunc) != 1 || !strings.Contains(trunc[0].Error(), a) || counts[1] != 1 {
		t.Fatalf("counts %v truncated %v err %v", counts, trunc, err)
	}
}

func shardAt(dir string, i, n int, runID string, started time.Time, bound time.Duration, off reports.ClockOffset) merge.ShardResults {
	return merge.ShardResults{Dir: dir, Scenario: []byte("name: s\n"), Summary: &reports.Summary{Scenario: "s", Started: started,
		Shard: &reports.ShardInfo{Index: i, Count: n, RunID: runID, ClockOffsetBound: bound, ClockOffset: off}}}
}

func TestCheckShardsRefusesWithNames(t *testing.T) {
	now := time.Now()
	ok := func(i int) merge.ShardResults {
		return shardAt("d"+string(rune('0'+i)), i, 3, "abcd0001", now, 0, reports.ClockOffset{})
	}
	cases := []struct {
		name   string
		shards func() []merge.ShardResults
		want   []string
	}{
		{"not a shard", func() []merge.ShardResults {
			s := ok(1)
			s.Summary.Shard = nil
			return []merge.ShardResults{ok(0), s, ok(2)}
		}, []string{"d1: summary.json has no \"shard\""}},
		{"different run ids", func() []merge.ShardResults {
			s := ok(2)
			s.Summary.Shard.RunID = "abcd0002"
			return []merge.ShardResults{ok(0), ok(1), s}
		}, []string{`d2 is run "abcd0002" but d0 is run "abcd0001"`}},
		{"different scenarios", func() []merge.ShardResults {
			s := ok(1)
			s.Summary.Scenario = "other"
			return []merge.ShardResults{ok(0), s, ok(2)}
		}, []string{`d1 ran scenario "other" but d0 ran "s"`}},
		{"scenario files differ", func() []merge.ShardResults {
			s := ok(1)
			s.Scenario = []byte("name: s\nseed: 2\n")
			return []merge.ShardResults{ok(0), s, ok(2)}
		}, []string{"d1/scenario.yaml differs from d0/scenario.yaml"}},
		{"different counts", func() []merge.ShardResults {
			s := ok(1)
			s.Summary.Shard.Count = 4
			return []merge.ShardResults{ok(0), s, ok(2)}
		}, []string{"d1 is shard 1 of 4 but d0 is shard 0 of 3"}},
		{"duplicate and missing", func() []merge.ShardResults {
			s := ok(0)
			s.Dir = "again"
			return []merge.ShardResults{ok(0), s, ok(2)}
		}, []string{"shard 0 of 3 given twice: d0 and again", "missing: shard 1"}},
		{"missing", func() []merge.ShardResults { return []merge.ShardResults{ok(2), ok(0)} }, []string{"run abcd0001 has 3 shards; missing: shard 1", "stormcheck cleanup --run abcd0001"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := merge.CheckShards(c.shards())
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	got, err := merge.CheckShards([]merge.ShardResults{ok(2), ok(0), ok(1)})
	if err != nil || got[0].Dir != "d0" || got[2].Dir != "d2" {
		t.Fatalf("a whole run refused or not ordered: %v", err)
	}
}

func TestPlanShardsWidening(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	tight := func(mid time.Duration) reports.ClockOffset {
		return reports.ClockOffset{Lo: mid - 5*ms, Hi: mid + 5*ms, Samples: 100}
	}
	t.Run("within the bound", func(t *testing.T) {
		origin, plan, notes := merge.PlanShards([]merge.ShardResults{
			shardAt("a", 0, 3, "r", t0.Add(2*ms), 100*ms, tight(0)),
			shardAt("b", 1, 3, "r", t0, 100*ms, tight(60*ms)),
			shardAt("c", 2, 3, "r", t0.Add(time.Second), 100*ms, tight(-30*ms)),
		})
		if !origin.Equal(t0) || plan[0].Shift != 2*ms || plan[2].Shift != time.Second {
			t.Errorf("origin %v shifts %v %v", origin, plan[0].Shift, plan[2].Shift)
		}
		for _, p := range plan {
			if p.Widened != 100*ms || p.BeyondBound != 0 {
				t.Errorf("shard %d widened %v beyond %v: want the stated 100ms", p.Index, p.Widened, p.BeyondBound)
			}
		}
		if len(notes) != 0 {
			t.Errorf("notes %q", notes)
		}
	})
	t.Run("beyond the bound", func(t *testing.T) {
		_, plan, notes := merge.PlanShards([]merge.ShardResults{
			shardAt("a", 0, 4, "r", t0, 100*ms, tight(0)),
			shardAt("b", 1, 4, "r", t0, 100*ms, tight(10*ms)),
			shardAt("c", 2, 4, "r", t0, 100*ms, tight(500*ms)),
			shardAt("d", 3, 4, "r", t0, 100*ms, tight(-20*ms)),
		})
		c := plan[2]
		// c vs d: at least 510ms apart, at most 530ms.
		if c.BeyondBound != 410*ms || c.Versus != 3 || c.Widened != 430*ms {
			t.Errorf("shard 2: beyond %v versus %d widened %v; want 410ms vs shard 3, widened 430ms", c.BeyondBound, c.Versus, c.Widened)
		}
		for _, p := range []reports.MergedShard{plan[0], plan[1], plan[3]} {
			if p.BeyondBound != 0 || p.Widened != 100*ms {
				t.Errorf("shard %d blamed: %+v", p.Index, p)
			}
		}
		// Every pair is covered: the slack of two shards is at least
		// their largest possible offset difference.
		for i := range plan {
			for j := i + 1; j < len(plan); j++ {
				a, b := plan[i].ClockOffset, plan[j].ClockOffset
				most := max(a.Hi-b.Lo, b.Hi-a.Lo)
				least := max(0, a.Lo-b.Hi, b.Lo-a.Hi)
				if least > 100*ms && plan[i].Widened+plan[j].Widened < most {
					t.Errorf("shards %d and %d: slack %v < possible offset %v", i, j, plan[i].Widened+plan[j].Widened, most)
				}
			}
		}
		if len(notes) != 1 || !strings.HasPrefix(notes[0], "clock offset bound exceeded: shard 2's clock is at least 510ms off shard 3's, 410ms beyond the stated bound 100ms") {
			t.Errorf("notes %q", notes)
		}
	})
	t.Run("no estimate and a stepped clock", func(t *testing.T) {
		_, plan, notes := merge.PlanShards([]merge.ShardResults{
			shardAt("a", 0, 2, "r", t0, 100*ms, reports.ClockOffset{}),
			shardAt("b", 1, 2, "r", t0, 100*ms, reports.ClockOffset{Lo: 300 * ms, Hi: 100 * ms, Samples: 9}),
		})
		if plan[0].Widened != 100*ms || plan[1].Widened != 300*ms || len(notes) != 2 ||
			!strings.Contains(notes[0], "shard 0 has no clock offset estimate") || !strings.Contains(notes[1], "shard 1's clock offset estimates disagree by 200ms") {
			t.Errorf("widened %v %v, notes %q", plan[0].Widened, plan[1].Widened, notes)
		}
	})
}

// The text report says where each shard's times went and, first and in
// capitals, a clock beyond the bound.
func TestTextShowsMergedShards(t *testing.T) {
	s := &reports.Summary{Scenario: "s", RunID: "abcd0001", MergedFrom: []reports.MergedShard{
		{Index: 0, Bound: 100 * time.Millisecond, Widened: 100 * time.Millisecond, Ops: 10},
		{Index: 1, Bound: 100 * time.Millisecond, Widened: 2 * time.Second, BeyondBound: time.Second, Versus: 0, Shift: 300 * time.Millisecond, Ops: 12, Late: 40 * time.Millisecond},
	}, MergeNotes: []string{"clock offset bound exceeded: shard 1's clock is at least 1.1s off shard 0's"}}
	var b strings.Builder
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	if err := html.WriteHTML(&page, s, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 shards of run abcd0001", "shard 1 &#43;300ms widened 2s", "CLOCK OFFSET BOUND EXCEEDED: shard 1&#39;s clock"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, want := range []string{"merged    2 shards of run abcd0001", "shard 1  +300ms", "widened 2s", "load started 40ms late", "CLOCK OFFSET BOUND EXCEEDED: shard 1's clock"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// An open loop's arrivals never served count in the corrected figures and
// in no log: the merged corrected figures come from the shards' whole-run
// histograms, exact, with nothing to say; a shard whose log is gone gives
// its figures from summary.json too, and the merge says so.
func TestMergeSummaryLatencySources(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	origin := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var shards []merge.ShardResults
	var dirs []string
	replay := reports.NewMetrics(reports.MetricsOptions{Start: origin, Workloads: []string{"w"}})
	wantLat, wantCor := reports.NewHistogram(), reports.NewHistogram()
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "hlog")
		m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir, Start: origin, Workloads: []string{"w"}})
		for _, op := range randomOps(r, 400, 3, "blob.put") {
			m.Record(op)
			replay.Record(op)
			wantLat.RecordValue(reports.Micros(op.Latency()))
			wantCor.RecordValue(reports.Micros(op.CorrectedLatency()))
		}
		m.RecordMissed("w", "blob.put", int64(2*time.Second), int64(5+i))
		wantCor.RecordValues(reports.Micros(int64(2*time.Second)), int64(5+i))
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		ws, _ := m.Summary(3 * time.Second)
		shards = append(shards, merge.ShardResults{Dir: fmt.Sprint("s", i), Summary: &reports.Summary{Started: origin, Workloads: ws,
			Shard: &reports.ShardInfo{Index: i, Count: 2, RunID: "abcd0001"}}})
		dirs = append(dirs, dir)
	}
	mergeX := func(dirs []string) *reports.Summary {
		totals, _, _, err := merge.MergeHlogs(dirs, []time.Duration{0, 0}, t.TempDir(), origin)
		if err != nil {
			t.Fatal(err)
		}
		_, plan, _ := merge.PlanShards(shards)
		return merge.MergeSummary(merge.MergeInput{Shards: shards, Plan: plan, Origin: origin, Replayed: replay, Latency: totals})
	}
	s := mergeX(dirs)
	if s.OtherCPU != nil {
		t.Errorf("other_cpu %v merged from shards that did not measure it", *s.OtherCPU)
	}
	shards[0].Summary.OtherCPU, shards[1].Summary.OtherCPU = new(0.1), new(0.4)
	if s = mergeX(dirs); s.OtherCPU == nil || *s.OtherCPU != 0.4 || reports.MachineBusy(s) == "" {
		t.Errorf("other_cpu %v: the busiest shard's 0.4 is the merged run's", s.OtherCPU)
	}
	o := s.Workloads[0].Ops[0]
	lat, _ := reports.DecodeHistogram(o.Histograms.Latency)
	cor, _ := reports.DecodeHistogram(o.Histograms.Corrected)
	if o.Count != 800 || o.Missed != 11 || !lat.Equals(wantLat) || !cor.Equals(wantCor) || o.Corrected.Count != 811 || o.Corrected.Max != 2000 {
		t.Errorf("count %d missed %d latency equal %v corrected equal %v corrected count %d max %v",
			o.Count, o.Missed, lat.Equals(wantLat), cor.Equals(wantCor), o.Corrected.Count, o.Corrected.Max)
	}
	if len(s.MergeNotes) != 0 {
		t.Errorf("notes %q: the open loop's missed arrivals are expected", s.MergeNotes)
	}
	// Shard 1's plain log is gone.
	if err := os.Remove(filepath.Join(dirs[1], "w.blob.put.hlog")); err != nil {
		t.Fatal(err)
	}
	s = mergeX(dirs)
	o = s.Workloads[0].Ops[0]
	lat, _ = reports.DecodeHistogram(o.Histograms.Latency)
	if !lat.Equals(wantLat) || len(s.MergeNotes) != 1 || !strings.Contains(s.MergeNotes[0], "the shards' logs hold 400 values, their summaries count 800") {
		t.Errorf("a log gone: latency equal %v, notes %q", lat.Equals(wantLat), s.MergeNotes)
	}
}
