package reports

import (
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// A unit is what a scalability target applies to: one blob, one table
// partition, one queue. Units accounts every acknowledged operation to its
// unit, in the unit's own measure (requests, entities, messages), per
// second, so the report can set each unit's achieved rate beside its
// target.

// UnitKind names a kind of unit.
type UnitKind string

// Unit kinds.
const (
	UnitBlob      UnitKind = "blob"
	UnitPartition UnitKind = "partition"
	UnitQueue     UnitKind = "queue"
	// UnitAccount is the whole account, across workloads: every request
	// counts one, table operations their entities, queue operations their
	// messages (the checklist's 20,000 requests, entities or messages per
	// second per account). Its UnitSummary has no workload.
	UnitAccount UnitKind = "account"
)

// TableScanUnit is the partition name a query over the whole table is
// accounted to: it reads every partition, and no one of them alone.
const TableScanUnit = "(table scan)"

// usage is what one operation costs its unit.
type usage struct {
	Kind   UnitKind
	Name   string
	Amount int64
}

// usageOf says which unit op counts against and how much: a blob request
// counts one request against its blob; a table operation counts the
// entities it inserts, updates, deletes or scans (a batch of 100 counts 100,
// a query its scanned entities) against its partition; a queue operation
// counts its messages (each put, each message got, each update and delete)
// against its queue. ok is false for operations on no unit (containers,
// tables, queues themselves).
func UsageOf(op *checks.Op) (u usage, ok bool) {
	kind, key := op.Kind, op.Key
	switch {
	case strings.HasPrefix(kind, "blob."):
		return usage{UnitBlob, key, 1}, true
	case kind == checks.KindTableBatch:
		return usage{UnitPartition, key, int64(max(len(op.In.Rows), 1))}, true
	case strings.HasPrefix(kind, "table.query"), kind == "table.scan":
		n := int64(op.Out.Scanned)
		if n == 0 {
			n = int64(len(op.Out.Entities))
		}
		if key == "" {
			key = TableScanUnit
		}
		return usage{UnitPartition, key, n}, true
	case strings.HasPrefix(kind, "table.") && strings.Contains(key, "/"):
		pk, _, _ := strings.Cut(key, "/")
		return usage{UnitPartition, pk, 1}, true
	case kind == checks.KindQueueGet, kind == checks.KindQueuePeek:
		return usage{UnitQueue, key, int64(max(len(op.Out.Messages), 1))}, true
	case kind == checks.KindQueuePut, kind == checks.KindQueueUpdate, kind == checks.KindQueueDelete:
		return usage{UnitQueue, key, 1}, true
	case filesOp(kind):
		return usage{UnitFile, key, 1}, true
	}
	return usage{}, false
}

// maxUnits bounds the units tracked per second; beyond it, further units
// are folded into one "(other units)" line so a run over a million blobs
// cannot exhaust memory.
const MaxUnits = 4096

// OtherUnits names the line further units are folded into.
const OtherUnits = "(other units)"

type unitKey struct {
	workload string
	kind     UnitKind
	name     string
}

type unitSeries struct {
	amount int64 // acknowledged
	// sent and received are request and response body bytes per second
	// (acknowledged attempts), nil until a body was seen.
	sent, received []int64
	// throttled counts the target's own throttled answers (503 / 500
	// OperationTimedOut); injected the throttled answers a fault gave on
	// purpose (the attempt's out.fault names it), which say nothing of the
	// target's limits.
	throttled, injected int64
	// firstThrottle is the return time (ns since the start) of the
	// target's first throttled answer, -1 none.
	firstThrottle int64
	first         int64 // first second with an acknowledged amount, -1 none
	// put and consumed count a queue's messages put and deleted
	// (acknowledged): what went through it, beside the message ops the
	// target counts.
	put, consumed int64
	perSec        []int64
}

// units is the accounting, sharded to keep Record cheap under many actors.
type units struct {
	shards [16]unitShard
	count  sync.Mutex // guards n
	n      int
}

type unitShard struct {
	mu sync.Mutex
	m  map[unitKey]*unitSeries
}

// counted reports whether op counts toward the units: a workload's
// acknowledged or throttled attempt, and for blobs (whose target counts
// requests) every attempt the service answered, a lost race's 412 or 409
// included. Table and queue units count the entities and messages of
// acknowledged operations only.
func counted(op *checks.Op) bool {
	if op.IsHarness() {
		return false
	}
	if op.Outcome == checks.OK || op.Outcome == checks.Throttled {
		return true
	}
	return op.Out.Status != 0 && strings.HasPrefix(op.Kind, "blob.")
}

// accountAmount is what op costs the account: a request, or a table
// operation's entities, a queue operation's messages.
func accountAmount(us usage, ok bool) int64 {
	if ok && us.Kind != UnitBlob {
		return us.Amount
	}
	return 1
}

// record accounts op to its unit. The account is accounted apart, in the
// op's series (see Metrics.Record), so that no lock is shared by every
// operation of the run.
func (u *units) record(op *checks.Op, us usage, ok bool) {
	if !ok || !counted(op) {
		return
	}
	k := unitKey{op.Workload, us.Kind, us.Name}
	if !u.add(k, op, us.Amount, false) {
		k.name = OtherUnits
		u.add(k, op, us.Amount, true)
	}
	if us.Kind == UnitFile {
		u.add(unitKey{op.Workload, UnitShare, ShareUnit}, op, us.Amount, true)
	}
}

// add accounts op to unit k. A unit not seen before needs room (admit)
// unless force is set; add reports false when there was none.
func (u *units) add(k unitKey, op *checks.Op, amount int64, force bool) bool {
	h := fnv.New32a()
	h.Write([]byte(k.name))
	sh := &u.shards[h.Sum32()%uint32(len(u.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	s := sh.m[k]
	if s == nil {
		if !force && !u.admit() {
			return false
		}
		if sh.m == nil {
			sh.m = map[unitKey]*unitSeries{}
		}
		s = &unitSeries{first: -1, firstThrottle: -1}
		sh.m[k] = s
	}
	s.add(op, amount)
	return true
}

// admit reserves room for one more unit.
func (u *units) admit() bool {
	u.count.Lock()
	defer u.count.Unlock()
	if u.n >= MaxUnits {
		return false
	}
	u.n++
	return true
}

func (s *unitSeries) add(op *checks.Op, amount int64) {
	if op.Outcome == checks.Throttled {
		if op.Out.Fault != "" {
			s.injected++
			return
		}
		s.throttled++
		if s.firstThrottle < 0 || op.Return < s.firstThrottle {
			s.firstThrottle = op.Return
		}
		return
	}
	sec := min(max(op.Return/int64(time.Second), 0), maxSeconds-1)
	if sec >= int64(len(s.perSec)) {
		s.perSec = append(s.perSec, make([]int64, sec+1-int64(len(s.perSec)))...)
	}
	s.perSec[sec] += amount
	s.amount += amount
	switch op.Kind {
	case checks.KindQueuePut:
		s.put++
	case checks.KindQueueDelete:
		s.consumed++
	}
	if op.In.Bytes > 0 || op.Out.Bytes > 0 {
		s.sent = addAt(s.sent, sec, op.In.Bytes)
		s.received = addAt(s.received, sec, op.Out.Bytes)
	}
	if s.first < 0 || sec < s.first {
		s.first = sec
	}
}

// addAt adds v at index sec, growing xs as needed.
func addAt(xs []int64, sec, v int64) []int64 {
	if sec >= int64(len(xs)) {
		xs = append(xs, make([]int64, sec+1-int64(len(xs)))...)
	}
	xs[sec] += v
	return xs
}

// peakOf is the largest value of xs.
func peakOf(xs []int64) (peak int64) {
	for _, x := range xs {
		peak = max(peak, x)
	}
	return peak
}

// UnitSummary is one unit's figures against its target.
type UnitSummary struct {
	Workload string   `json:"workload"`
	Kind     UnitKind `json:"kind"`
	Name     string   `json:"name"`
	// Measure is what Amount counts: requests, entities or message ops
	// (a queue's target counts each AddMessage, each message a GetMessages
	// returned, each DeleteMessage and UpdateMessage as one "message").
	Measure string `json:"measure"`
	// Put and Consumed count, for a queue, the messages put and the
	// messages deleted after processing (acknowledged).
	Put      int64 `json:"put,omitempty"`
	Consumed int64 `json:"consumed,omitempty"`
	// Amount is the acknowledged total; Throttled the target's own
	// throttled answers (503 ServerBusy, 500 OperationTimedOut), the first
	// of them FirstThrottled seconds after the run started.
	// InjectedThrottled counts apart the throttled answers a fault of the
	// scenario gave on purpose (the attempt's out.fault names it): they are
	// not the target's throttling and are in neither Throttled nor
	// FirstThrottled.
	Amount            int64   `json:"amount"`
	Throttled         int64   `json:"throttled"`
	InjectedThrottled int64   `json:"injected_throttled,omitempty"`
	FirstThrottled    float64 `json:"first_throttled_s,omitempty"`
	// Mean is Amount over the workload's active seconds; Peak the busiest
	// whole second, at PeakSecond (seconds since the run started).
	Mean       float64 `json:"mean_per_s"`
	Peak       int64   `json:"peak_per_s"`
	PeakSecond int64   `json:"peak_second"`
	// Target is the documented figure for this kind of unit (0 when none
	// applies); Utilisation is Peak / Target.
	Target      float64 `json:"target_per_s,omitempty"`
	Utilisation float64 `json:"utilisation,omitempty"`
	// BusiestShare is the workload's figure for this kind of unit (the
	// same on each of its units): the busiest unit's share of each second,
	// averaged (see BusiestShares).
	BusiestShare float64 `json:"busiest_share_per_second,omitempty"`
	// Sent and Received total the request and response bodies of the
	// acknowledged attempts (bytes); PeakBytes is the busiest second of
	// both together, PeakSent and PeakReceived of each (the account's
	// ingress and egress). BandwidthTarget is the bytes-per-second target
	// that applies (per blob; the account's ingress), 0 when none.
	Sent            int64   `json:"sent_bytes,omitempty"`
	Received        int64   `json:"received_bytes,omitempty"`
	PeakBytes       int64   `json:"peak_bytes_per_s,omitempty"`
	PeakSent        int64   `json:"peak_sent_per_s,omitempty"`
	PeakReceived    int64   `json:"peak_received_per_s,omitempty"`
	BandwidthTarget float64 `json:"bandwidth_target_per_s,omitempty"`
	// Latency is the corrected latency of every attempt on the unit, for
	// the units that keep a per-second series (see UnitLatencies).
	Latency *Percentiles `json:"latency,omitempty"`
	// PerSecond is the acknowledged amount in every second of the run, for
	// the busiest units of each workload and kind (MaxUnitSeries of them);
	// nil for the others.
	PerSecond []int64 `json:"per_second,omitempty"`
}

// MaxUnitSeries is how many units per workload and kind keep their
// per-second series in the summary.
const MaxUnitSeries = 8

// Units returns every unit's figures, by workload then busiest peak first.
// active gives each workload's active period (its rate period), used for
// the mean; targets the figure per kind of unit (nil: the checklist's).
// bandwidth gives the bytes-per-second targets per kind (nil: the
// checklist's).
func (m *Metrics) Units(active func(workload string) time.Duration, targets, bandwidth map[UnitKind]float64) []UnitSummary {
	if bandwidth == nil {
		bandwidth = map[UnitKind]float64{UnitBlob: BlobBandwidth, UnitAccount: AccountIngress}
	}
	shares := m.BusiestShares()
	var out []UnitSummary
	for i := range m.units.shards {
		sh := &m.units.shards[i]
		sh.mu.Lock()
		for k, s := range sh.m {
			t := TargetFor(k.kind)
			if v, ok := targets[k.kind]; ok {
				t.PerSecond = v
			}
			us := UnitSummary{Workload: k.workload, Kind: k.kind, Name: k.name, Measure: t.Measure, Amount: s.amount, Throttled: s.throttled,
				InjectedThrottled: s.injected, Put: s.put, Consumed: s.consumed,
				Target: t.PerSecond, BusiestShare: shares[k.workload][k.kind], PerSecond: slices.Clone(s.perSec), BandwidthTarget: bandwidth[k.kind]}
			if k.name == TableScanUnit {
				us.Target = 0 // a scan reads every partition: no one partition's target applies
			}
			s.summarise(&us, active(k.workload))
			out = append(out, us)
		}
		sh.mu.Unlock()
	}
	if acct, ok := m.account(active(""), targets, bandwidth); ok {
		out = append(out, acct)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Peak != b.Peak {
			return a.Peak > b.Peak
		}
		return NaturalLess(a.Name, b.Name)
	})
	kept := map[unitKey]int{}
	for i := range out {
		k := unitKey{out[i].Workload, out[i].Kind, ""}
		if kept[k]++; kept[k] > MaxUnitSeries {
			out[i].PerSecond = nil
		}
	}
	return out
}

// BusiestShares returns, per workload and unit kind, the busiest unit's
// share of each second's acknowledged amount, averaged over the seconds
// with any: 1 when one unit takes everything at any moment (a single hot
// partition, or append-only keys, where the hot partition moves on every
// second), 1/N when N units share the load evenly.
func (m *Metrics) BusiestShares() map[string]map[UnitKind]float64 {
	type acc struct{ total, top []int64 }
	accs := map[string]map[UnitKind]*acc{}
	for i := range m.units.shards {
		sh := &m.units.shards[i]
		sh.mu.Lock()
		for k, s := range sh.m {
			if accs[k.workload] == nil {
				accs[k.workload] = map[UnitKind]*acc{}
			}
			a := accs[k.workload][k.kind]
			if a == nil {
				a = &acc{}
				accs[k.workload][k.kind] = a
			}
			for len(a.total) < len(s.perSec) {
				a.total, a.top = append(a.total, 0), append(a.top, 0)
			}
			for sec, n := range s.perSec {
				a.total[sec] += n
				a.top[sec] = max(a.top[sec], n)
			}
		}
		sh.mu.Unlock()
	}
	out := map[string]map[UnitKind]float64{}
	for w, byKind := range accs {
		out[w] = map[UnitKind]float64{}
		for k, a := range byKind {
			sum, n := 0.0, 0
			for sec, t := range a.total {
				if t > 0 {
					sum += float64(a.top[sec]) / float64(t)
					n++
				}
			}
			if n > 0 {
				out[w][k] = sum / float64(n)
			}
		}
	}
	return out
}

func sum(xs []int64) (t int64) {
	for _, x := range xs {
		t += x
	}
	return t
}

// account sums the account's figures from every load series.
func (m *Metrics) account(active time.Duration, targets, bandwidth map[UnitKind]float64) (UnitSummary, bool) {
	var a unitSeries
	a.first, a.firstThrottle = -1, -1
	seen := false
	for _, s := range m.allSeries() {
		if s.key.harness {
			continue
		}
		s.mu.Lock()
		if s.acct.amount > 0 || s.acct.throttled > 0 || s.acct.injected > 0 {
			seen = true
			a.merge(&s.acct)
		}
		s.mu.Unlock()
	}
	if !seen {
		return UnitSummary{}, false
	}
	t := TargetFor(UnitAccount)
	if v, ok := targets[UnitAccount]; ok {
		t.PerSecond = v
	}
	u := UnitSummary{Kind: UnitAccount, Name: "account", Measure: t.Measure, Amount: a.amount, Throttled: a.throttled,
		InjectedThrottled: a.injected, Target: t.PerSecond, BusiestShare: 1, PerSecond: a.perSec, BandwidthTarget: bandwidth[UnitAccount]}
	a.summarise(&u, active)
	return u, true
}

// summarise fills u's figures derived from s: when throttling began, the
// bytes and their busiest seconds, the busiest second, the mean over
// active and the utilisation.
func (s *unitSeries) summarise(u *UnitSummary, active time.Duration) {
	if s.firstThrottle >= 0 {
		u.FirstThrottled = float64(s.firstThrottle) / float64(time.Second)
	}
	u.Sent, u.Received = sum(s.sent), sum(s.received)
	u.PeakSent, u.PeakReceived = peakOf(s.sent), peakOf(s.received)
	for i := range max(len(s.sent), len(s.received)) {
		var b int64
		if i < len(s.sent) {
			b += s.sent[i]
		}
		if i < len(s.received) {
			b += s.received[i]
		}
		u.PeakBytes = max(u.PeakBytes, b)
	}
	for sec, n := range s.perSec {
		if n > u.Peak {
			u.Peak, u.PeakSecond = n, int64(sec)
		}
	}
	if active > 0 {
		u.Mean = float64(s.amount) / active.Seconds()
	}
	if u.Target > 0 {
		u.Utilisation = float64(u.Peak) / u.Target
	}
}

// merge adds o's figures into s.
func (s *unitSeries) merge(o *unitSeries) {
	s.amount += o.amount
	s.throttled += o.throttled
	s.injected += o.injected
	if o.firstThrottle >= 0 && (s.firstThrottle < 0 || o.firstThrottle < s.firstThrottle) {
		s.firstThrottle = o.firstThrottle
	}
	for i, v := range o.perSec {
		s.perSec = addAt(s.perSec, int64(i), v)
	}
	for i, v := range o.sent {
		s.sent = addAt(s.sent, int64(i), v)
	}
	for i, v := range o.received {
		s.received = addAt(s.received, int64(i), v)
	}
}
