package reports_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
)

func TestUsageOf(t *testing.T) {
	for _, c := range []struct {
		op     checks.Op
		kind   reports.UnitKind
		name   string
		amount int64
		ok     bool
	}{
		{checks.Op{Kind: "blob.put", Key: "k0"}, reports.UnitBlob, "k0", 1, true},
		{checks.Op{Kind: "blob.lease.acquire", Key: "k1"}, reports.UnitBlob, "k1", 1, true},
		{checks.Op{Kind: "container.create", Key: "c"}, "", "", 0, false},
		{checks.Op{Kind: checks.KindTableGet, Key: "p1/r1"}, reports.UnitPartition, "p1", 1, true},
		{checks.Op{Kind: checks.KindTableInsert, Key: "20261122/a1-3"}, reports.UnitPartition, "20261122", 1, true},
		{checks.Op{Kind: checks.KindTableBatch, Key: "p2", In: checks.Input{Rows: make([]string, 100)}}, reports.UnitPartition, "p2", 100, true},
		{checks.Op{Kind: checks.KindTableQuery, Key: "p3", Out: checks.Output{Scanned: 200, Entities: make([]checks.Entity, 20)}}, reports.UnitPartition, "p3", 200, true},
		{checks.Op{Kind: "table.query-filter", Key: "p3", Out: checks.Output{Entities: make([]checks.Entity, 7)}}, reports.UnitPartition, "p3", 7, true},
		{checks.Op{Kind: "table.scan", Key: "", Out: checks.Output{Scanned: 800}}, reports.UnitPartition, reports.TableScanUnit, 800, true},
		{checks.Op{Kind: "table.create", Key: "t"}, "", "", 0, false},
		{checks.Op{Kind: checks.KindQueuePut, Key: "q"}, reports.UnitQueue, "q", 1, true},
		{checks.Op{Kind: checks.KindQueueGet, Key: "q", Out: checks.Output{Messages: make([]checks.Message, 32)}}, reports.UnitQueue, "q", 32, true},
		{checks.Op{Kind: checks.KindQueueGet, Key: "q"}, reports.UnitQueue, "q", 1, true},
		{checks.Op{Kind: checks.KindQueueDelete, Key: "q"}, reports.UnitQueue, "q", 1, true},
		{checks.Op{Kind: "queue.create", Key: "q"}, "", "", 0, false},
	} {
		u, ok := reports.UsageOf(&c.op)
		if ok != c.ok || u.Kind != c.kind || u.Name != c.name || u.Amount != c.amount {
			t.Errorf("%s %q: got %+v %v, want %s %q %d %v", c.op.Kind, c.op.Key, u, ok, c.kind, c.name, c.amount, c.ok)
		}
	}
}

// unitOp is an acknowledged op of workload w returning at second sec.
func unitOp(w, kind, key string, sec float64, out checks.Outcome) *checks.Op {
	op := reportstest.MkOp(w, kind, 0, out, sec*1000, 1, 0)
	op.Key = key
	return op
}

func TestUnitsRatesPeaksAndTargets(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	// Workload "hot": second 0 all on p0 (30 entities); second 1 on p1 (10)
	// and p0 (10). A throttled insert counts apart, a conflict not at all.
	for i := 0; i < 30; i++ {
		m.Record(unitOp("hot", checks.KindTableInsert, fmt.Sprintf("p0/r%d", i), 0.5, checks.OK))
	}
	for i := 0; i < 10; i++ {
		m.Record(unitOp("hot", checks.KindTableInsert, fmt.Sprintf("p1/r%d", i), 1.5, checks.OK))
		m.Record(unitOp("hot", checks.KindTableInsert, fmt.Sprintf("p0/x%d", i), 1.5, checks.OK))
	}
	m.Record(unitOp("hot", checks.KindTableInsert, "p1/t", 1.5, checks.Throttled))
	m.Record(unitOp("hot", checks.KindTableInsert, "p1/c", 1.5, checks.Conflict))
	// A 503 a fault gave on purpose, earlier: counted apart, not the
	// target's first throttled answer.
	injected := unitOp("hot", checks.KindTableInsert, "p1/f", 0.2, checks.Throttled)
	injected.Out = checks.Output{Status: 503, ErrorCode: "ServerBusy", Fault: "busy (http.server-busy)"}
	m.Record(injected)
	// Harness operations never count.
	h := unitOp("hot", checks.KindTableInsert, "p9/setup", 0.1, checks.OK)
	h.Actor = checks.ActorSetup
	m.Record(h)
	m.Record(unitOp("q", checks.KindQueuePut, "queue-a", 0.2, checks.OK))

	us := m.Units(func(string) time.Duration { return 2 * time.Second }, nil, nil)
	if len(us) != 4 {
		t.Fatalf("units: %+v", us)
	}
	acct, p0, p1, qa := us[0], us[1], us[2], us[3]
	// The account: 50 entities and a message acknowledged, one throttled
	// by the target, one by a fault.
	if acct.Kind != reports.UnitAccount || acct.Workload != "" || acct.Amount != 51 || acct.Throttled != 1 || acct.InjectedThrottled != 1 || acct.FirstThrottled != 1.501 || acct.Peak != 31 || acct.Target != 20000 {
		t.Errorf("account: %+v", acct)
	}
	if p0.Name != "p0" || p0.Amount != 40 || p0.Peak != 30 || p0.PeakSecond != 0 || p0.Mean != 20 || p0.Target != 2000 || p0.Measure != "entities" {
		t.Errorf("p0: %+v", p0)
	}
	if math.Abs(p0.Utilisation-30.0/2000) > 1e-12 {
		t.Errorf("p0 utilisation %v", p0.Utilisation)
	}
	if p1.Name != "p1" || p1.Amount != 10 || p1.Throttled != 1 || p1.InjectedThrottled != 1 || p1.FirstThrottled != 1.501 || p1.Peak != 10 || p1.PeakSecond != 1 {
		t.Errorf("p1: %+v", p1)
	}
	// Busiest share: second 0 → 30/30, second 1 → 10/20: mean 0.75.
	if p0.BusiestShare != 0.75 || p1.BusiestShare != 0.75 {
		t.Errorf("busiest share %v %v, want 0.75", p0.BusiestShare, p1.BusiestShare)
	}
	if qa.Workload != "q" || qa.Kind != reports.UnitQueue || qa.Amount != 1 || qa.Target != 2000 || qa.Measure != "message ops" || qa.Put != 1 || qa.Consumed != 0 {
		t.Errorf("queue: %+v", qa)
	}
}

func TestUnitsFoldBeyondTheLimit(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	for i := 0; i < reports.MaxUnits+10; i++ {
		m.Record(unitOp("w", "blob.put", fmt.Sprintf("k%d", i), 0.5, checks.OK))
	}
	us := withoutAccount(m.Units(func(string) time.Duration { return time.Second }, nil, nil))
	if len(us) != reports.MaxUnits+1 {
		t.Fatalf("%d units, want %d and one folded line", len(us), reports.MaxUnits+1)
	}
	var other *reports.UnitSummary
	var total int64
	for i := range us {
		total += us[i].Amount
		if us[i].Name == reports.OtherUnits {
			other = &us[i]
		}
	}
	if other == nil || other.Amount != 10 || total != reports.MaxUnits+10 {
		t.Errorf("folded line %+v, total %d", other, total)
	}
}

func TestTableScanHasNoPartitionTarget(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	op := unitOp("q", "table.scan", "", 0.5, checks.OK)
	op.Out.Scanned = 5000
	m.Record(op)
	us := withoutAccount(m.Units(func(string) time.Duration { return time.Second }, nil, nil))
	if len(us) != 1 || us[0].Name != reports.TableScanUnit || us[0].Target != 0 || us[0].Amount != 5000 {
		t.Errorf("%+v", us)
	}
}

func TestQueryDensityRecorded(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	q := unitOp("w", "table.query-filter", "p0", 0.5, checks.OK)
	q.Out.Scanned, q.Out.Entities = 200, make([]checks.Entity, 20)
	m.Record(q)
	g := unitOp("w", checks.KindTableGet, "p0/r1", 0.6, checks.OK)
	g.Out.Scanned = 1
	m.Record(g)
	ws, _ := m.Summary(time.Second)
	got := map[string][2]int64{}
	for _, o := range ws[0].Ops {
		got[o.Op] = [2]int64{o.Scanned, o.Returned}
	}
	if got["table.query-filter"] != [2]int64{200, 20} || got[checks.KindTableGet] != [2]int64{1, 1} {
		t.Errorf("scanned/returned: %v", got)
	}
}

func TestWriteTextUnitsAndDensity(t *testing.T) {
	s := &reports.Summary{Scenario: "hot", Workloads: []reports.WorkloadSummary{{Name: "hot", Kind: "table.hot-partition", Ops: []reports.OpSummary{
		{Op: "table.insert", Count: 50, Outcomes: map[string]int64{"ok": 50}},
		{Op: "table.scan", Count: 2, Outcomes: map[string]int64{"ok": 2}, Scanned: 1600, Returned: 160},
	}}}}
	for i := 0; i < 10; i++ {
		s.Units = append(s.Units, reports.UnitSummary{Workload: "hot", Kind: reports.UnitPartition, Name: fmt.Sprintf("p%d", i), Measure: "entities",
			Amount: int64(100 - i), Peak: int64(50 - i), Target: 2000, Utilisation: float64(50-i) / 2000, BusiestShare: 0.5})
	}
	s.Units = append(s.Units, reports.UnitSummary{Kind: reports.UnitAccount, Name: "account", Measure: "operations", Amount: 952, Mean: 95.2, Peak: 400, PeakSecond: 3, Target: 20000, Throttled: 2})
	var b bytes.Buffer
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"account: 952 operations served, mean 95.2/s, busiest second 400/s at 3s, target 20,000/s (2.0%), 2 throttled",
		"per partition: entities/s acknowledged", "target 2,000 entities/s per partition (checklist)",
		"p0", "2.5%", "... 2 more partitions with 183 entities", "spread: 10 partitions; the busiest took 10.5% of the entities overall",
		"busiest of each second 50.0%", "query density", "table.scan", "1600", "10.0%", "800.0",
	} {
		if !strings.Contains(reportstest.Fields(out), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  p9 ") {
		t.Errorf("the report lists more than %d units:\n%s", text.MaxUnitRows, out)
	}
}

func TestSummaryKeepsDistributionsAndSeries(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	for i := 0; i < 100; i++ {
		m.Record(reportstest.MkOp("w", "blob.get", 0, checks.OK, float64(i*20), float64(1+i%10), float64(i%3)))
	}
	m.Record(reportstest.MkOp("w", "blob.get", 0, checks.Conflict, 1500, 5, 0))
	ws, _ := m.Summary(2 * time.Second)
	o := ws[0].Ops[0]
	if len(o.PerSecond) != 2 || o.PerSecond[0][checks.OK] != 50 || o.PerSecond[1][checks.OK] != 50 || o.PerSecond[1][checks.Conflict] != 1 {
		t.Errorf("per second: %v", o.PerSecond)
	}
	if o.Histograms == nil {
		t.Fatal("no histograms")
	}
	lat, err := reports.DecodeHistogram(o.Histograms.Latency)
	if err != nil {
		t.Fatal(err)
	}
	cor, err := reports.DecodeHistogram(o.Histograms.Corrected)
	if err != nil {
		t.Fatal(err)
	}
	if lat.TotalCount() != 101 || cor.TotalCount() != 101 || cor.Max() < lat.Max() {
		t.Errorf("decoded: %d / %d values, max %d / %d", lat.TotalCount(), cor.TotalCount(), lat.Max(), cor.Max())
	}
	if p := float64(lat.ValueAtQuantile(50)) / 1000; math.Abs(p-o.Latency.P50) > 0.01 {
		t.Errorf("decoded p50 %v ms, summary %v ms", p, o.Latency.P50)
	}
}

func withoutAccount(us []reports.UnitSummary) []reports.UnitSummary {
	var out []reports.UnitSummary
	for _, u := range us {
		if u.Kind != reports.UnitAccount {
			out = append(out, u)
		}
	}
	return out
}

func TestUnitLatencies(t *testing.T) {
	var hist bytes.Buffer
	units := []reports.UnitSummary{
		{Workload: "w", Kind: reports.UnitPartition, Name: "p0", PerSecond: []int64{3}},
		{Workload: "w", Kind: reports.UnitPartition, Name: "p1"}, // not listed: no series, no latency
	}
	for i, lat := range []float64{1, 2, 30} {
		op := unitOp("w", checks.KindTableInsert, "p0/r"+string(rune('a'+i)), 0.1, checks.OK)
		op.Return = op.Call + int64(lat*1e6)
		line, _ := op.MarshalJSONLine()
		hist.Write(line)
	}
	throttled := unitOp("w", checks.KindTableInsert, "p0/z", 0.2, checks.Throttled)
	throttled.Return = throttled.Call + 50e6
	harness := unitOp("w", checks.KindTableInsert, "p0/s", 0.0, checks.OK)
	harness.Actor, harness.Return = checks.ActorSetup, harness.Call+900e6
	for _, op := range []*checks.Op{throttled, harness, unitOp("w", checks.KindTableInsert, "p1/x", 0.3, checks.OK)} {
		line, _ := op.MarshalJSONLine()
		hist.Write(line)
	}
	if err := reports.UnitLatencies(&hist, units); err != nil {
		t.Fatal(err)
	}
	l := units[0].Latency
	if l == nil || l.Count != 4 || l.Max != 50 || l.P50 < 1.9 || l.P50 > 2.1 {
		t.Errorf("p0 latency: %+v (4 attempts, throttled included, harness not)", l)
	}
	if units[1].Latency != nil {
		t.Errorf("unlisted unit got a latency: %+v", units[1].Latency)
	}
}

func TestWriteTextComparesSpread(t *testing.T) {
	ops := []reports.OpSummary{{Op: "table.insert", Count: 1, Outcomes: map[string]int64{"ok": 1}}}
	s := &reports.Summary{Workloads: []reports.WorkloadSummary{{Name: "single", Ops: ops}, {Name: "hashed", Ops: ops}}}
	s.Units = []reports.UnitSummary{
		{Workload: "single", Kind: reports.UnitPartition, Name: "hot", Amount: 1000, Peak: 300, Target: 200, Throttled: 40, FirstThrottled: 3.5, BusiestShare: 1},
		{Workload: "hashed", Kind: reports.UnitPartition, Name: "001-x", Amount: 10, Peak: 3, Target: 200, BusiestShare: 0.02},
		{Workload: "hashed", Kind: reports.UnitPartition, Name: "002-x", Amount: 30, Peak: 5, Target: 200, BusiestShare: 0.02},
	}
	var b bytes.Buffer
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"partition spread by workload (key patterns side by side)", "single", "100.0%", "150.0%", "hashed", "75.0%", "2.0%", "from s", " 3.5"} {
		if !strings.Contains(reportstest.Fields(out), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "injected") {
		t.Errorf("no fault injected, yet:\n%s", out)
	}
	// Answers a fault injected: a column of their own beside the target's
	// throttling, in the text and the HTML spread tables.
	s.Units[0].InjectedThrottled = 7
	s.Units[2].InjectedThrottled = 5
	b.Reset()
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	// (80 columns: with "partitions" the injected column goes beneath,
	// by workload again)
	for _, want := range []string{"peak/ workload partitions overall per second peak/s target throttled single 1 100.0% 100.0% 300 150.0% 40 hashed 2 75.0% 2.0% 5 2.5% 0",
		"workload injected single 7 hashed 5"} {
		if !strings.Contains(reportstest.Fields(b.String()), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	reportstest.CheckWidth(t, "spread", b.String())
	var h bytes.Buffer
	if err := html.WriteHTML(&h, s, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th>peak/ target</th><th>throttled</th><th>injected</th></tr>",
		"<tr><td>single</td><td>1</td><td>100.0%</td><td>100.0%</td><td>300</td><td>150.0%</td><td>40</td><td>7</td></tr>",
		"<tr><td>hashed</td><td>2</td><td>75.0%</td><td>2.0%</td><td>5</td><td>2.5%</td><td>0</td><td>5</td></tr>"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML spread table lacks %q", want)
		}
	}
}

func TestUnitBandwidth(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	for i := 0; i < 4; i++ {
		op := unitOp("w", "blob.put", "k0", 0.5, checks.OK)
		op.In.Bytes = 1 << 20
		m.Record(op)
		get := unitOp("w", "blob.get", "k0", 0.6, checks.OK)
		get.Out.Bytes = 1 << 19
		m.Record(get)
	}
	us := m.Units(func(string) time.Duration { return time.Second }, nil, nil)
	var blob, acct reports.UnitSummary
	for _, u := range us {
		switch u.Kind {
		case reports.UnitBlob:
			blob = u
		case reports.UnitAccount:
			acct = u
		}
	}
	if blob.Sent != 4<<20 || blob.Received != 2<<20 || blob.PeakBytes != 6<<20 || blob.BandwidthTarget != reports.BlobBandwidth {
		t.Errorf("blob bytes: %+v", blob)
	}
	if acct.PeakSent != 4<<20 || acct.PeakReceived != 2<<20 {
		t.Errorf("account ingress/egress: %+v", acct)
	}
	s := &reports.Summary{Workloads: []reports.WorkloadSummary{{Name: "w", Ops: []reports.OpSummary{{Op: "blob.put", Count: 4, Outcomes: map[string]int64{"ok": 4}}}}}, Units: us}
	var b bytes.Buffer
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	// (two-line column names: "peak" over "MiB/s", "of 60.0" over "MiB/s")
	for _, want := range []string{"peak of 60.0", "MiB/s MiB/s", "6.0", "10.0%", "ingress busiest second 4.0 MiB/s", "of 20 Gbps", "egress 2.0 MiB/s"} {
		if !strings.Contains(reportstest.Fields(b.String()), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestByteRate(t *testing.T) {
	for b, want := range map[int64]string{0: "0 B/s", 512: "512 B/s", 3500: "3.4 KiB/s", 12 << 20: "12.0 MiB/s"} {
		if got := text.ByteRate(b); got != want {
			t.Errorf("byteRate(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestBlobUnitsCountLostRaces(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	ok := unitOp("w", "blob.put", "k0", 0.5, checks.OK)
	lost := unitOp("w", "blob.put", "k0", 0.5, checks.Conflict)
	lost.Out.Status = 412
	noAnswer := unitOp("w", "blob.put", "k0", 0.5, checks.Unknown) // no response: not served
	tableLost := unitOp("w", checks.KindTableUpdate, "p/r", 0.5, checks.Conflict)
	tableLost.Out.Status = 412
	for _, op := range []*checks.Op{ok, lost, noAnswer, tableLost} {
		m.Record(op)
	}
	for _, u := range m.Units(func(string) time.Duration { return time.Second }, nil, nil) {
		switch u.Kind {
		case reports.UnitBlob:
			if u.Amount != 2 {
				t.Errorf("blob k0 served %d requests, want 2 (the 412 included, the unanswered one not)", u.Amount)
			}
		case reports.UnitPartition:
			t.Errorf("a refused table update counted %d entities", u.Amount)
		}
	}
}

// A queue's message ops are what its target counts (each put, each message
// a get returned, an empty get, each delete); the messages that went
// through it are counted apart: 3 put, 2 consumed. (A report once put the
// message ops in a column called "messages": 3147 when 806 were put.)
func TestQueueUnitCountsMessagesPutAndConsumed(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	for range 3 {
		m.Record(unitOp("q", checks.KindQueuePut, "qa", 0.2, checks.OK))
	}
	got := unitOp("q", checks.KindQueueGet, "qa", 0.4, checks.OK)
	got.Out.Messages = []checks.Message{{ID: "1"}, {ID: "2"}}
	m.Record(got)
	m.Record(unitOp("q", checks.KindQueueGet, "qa", 0.5, checks.OK)) // empty: still a GetMessages
	for range 2 {
		m.Record(unitOp("q", checks.KindQueueDelete, "qa", 0.6, checks.OK))
	}
	us := withoutAccount(m.Units(func(string) time.Duration { return time.Second }, nil, nil))
	if len(us) != 1 || us[0].Amount != 8 || us[0].Put != 3 || us[0].Consumed != 2 || us[0].Measure != "message ops" {
		t.Fatalf("queue unit %+v: want 8 message ops, 3 put, 2 consumed", us)
	}
	var b bytes.Buffer
	s := &reports.Summary{Workloads: []reports.WorkloadSummary{{Name: "q", Ops: []reports.OpSummary{{Op: "queue.put", Count: 3, Outcomes: map[string]int64{"ok": 3}}}}}, Units: us}
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reportstest.Fields(b.String()), "queue ops put consumed mean/s") || !strings.Contains(reportstest.Fields(b.String()), "qa 8 3 2 ") {
		t.Errorf("queue table:\n%s", b.String())
	}
}
