package batch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// Helpers for table histories: batches stamp rows, pages show "row=stamp".

func TestTableSpan(t *testing.T) {
	mk := func(o checks.Outcome, call, ret int64) *checks.Op {
		return &checks.Op{Outcome: o, Call: call, Return: ret, Out: checkstest.Answered(checks.KindTableBatch, o)}
	}
	cases := []struct {
		name        string
		attempts    []*checks.Op
		read, setup int64
		lo, hi, by  int64
		applied     bool
	}{
		{"one OK attempt", []*checks.Op{mk(checks.OK, 10, 20)}, tbInf, tbInf, 10, 20, 20, true},
		{"one OK attempt, read before it returned", []*checks.Op{mk(checks.OK, 10, 20)}, 15, tbInf, 10, 15, 15, true},
		{"unknown, never read", []*checks.Op{mk(checks.Unknown, 10, 20)}, tbInf, tbInf, 10, tbInf, tbInf, false},
		{"unknown, read later", []*checks.Op{mk(checks.Unknown, 10, 20)}, 50, tbInf, 10, 50, 50, true},
		{"unknown then OK retry: the first may land after the second", []*checks.Op{mk(checks.Unknown, 10, 20), mk(checks.OK, 30, 40)}, 35, tbInf, 10, tbInf, 35, true},
		{"throttled then OK retry", []*checks.Op{mk(checks.Throttled, 10, 20), mk(checks.OK, 30, 40)}, tbInf, tbInf, 30, 40, 40, true},
		{"refused", []*checks.Op{mk(checks.Conflict, 10, 20)}, tbInf, tbInf, tbInf, 0, tbInf, false},
		{"setup with an unknown attempt precedes the load", []*checks.Op{mk(checks.Unknown, 1, 2)}, tbInf, 99, 1, 99, tbInf, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTBSpan()
			for _, a := range tc.attempts {
				s.attempt(a)
			}
			s.read(tc.read)
			s.settle(tc.setup)
			if s.refused() {
				if tc.lo != tbInf || s.applied() {
					t.Fatalf("refused span %+v", s)
				}
				return
			}
			if s.lo != tc.lo || s.hi != tc.hi || s.by != tc.by || s.applied() != tc.applied {
				t.Fatalf("span lo=%d hi=%d by=%d applied=%v, want %d %d %d %v", s.lo, s.hi, s.by, s.applied(), tc.lo, tc.hi, tc.by, tc.applied)
			}
		})
	}
}

func TestTableCheckersRegistered(t *testing.T) {
	for _, n := range []string{BatchAtomicityName, SnapshotReadsName, MergeReplaceName} {
		c, err := checks.New(n)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != n {
			t.Fatalf("name %q, want %q", c.Name(), n)
		}
	}
}

// A simulated table partition: batches apply atomically at one point inside
// their interval (an unknown one at any later point, or never), query pages
// snapshot the partition at one point inside theirs. Ops are recorded in
// order of return, as the runner records them.

type tbSimCfg struct {
	parts, rows, actors, ops          int
	unknown, fails, throttle, retry   float64
	query, split                      float64
	maxRows                           int
	maxDur, maxGap, maxLate, maxWidth int64
}

func (c tbSimCfg) String() string {
	return fmt.Sprintf("%d parts x %d rows, %d actors x %d ops, unknown %.2f fails %.2f throttle %.2f retry %.2f query %.2f",
		c.parts, c.rows, c.actors, c.ops, c.unknown, c.fails, c.throttle, c.retry, c.query)
}

func randomTBSimCfg(r *rand.Rand) tbSimCfg {
	return tbSimCfg{
		parts: 1 + r.IntN(2), rows: 2 + r.IntN(12), actors: 2 + r.IntN(5), ops: 5 + r.IntN(30),
		unknown: r.Float64() * 0.2, fails: r.Float64() * 0.15, throttle: r.Float64() * 0.1, retry: r.Float64(),
		query: 0.2 + r.Float64()*0.4, split: r.Float64() * 0.5,
		maxRows: 1 + r.IntN(6), maxDur: 1 + r.Int64N(80), maxGap: 1 + r.Int64N(40), maxLate: r.Int64N(200),
	}
}

type tbSimEvent struct {
	at    int64
	n     int    // creation order, breaks ties
	apply bool   // a batch applies
	part  string // partition
	rows  []string
	stamp string
	page  int // index of the page op (snapshot)
}

// tbSimBatch is what the mutations need to know about a logical batch.
type tbSimBatch struct {
	part      string
	rows      []string
	firstCall int64
	ret       int64 // Return of its only attempt
	onlyOK    bool  // one attempt, answered OK
	ok        bool  // some attempt answered OK
}

type tbSim struct {
	ops     []checks.Op
	batches map[string]*tbSimBatch
}

func simulateTableBatches(r *rand.Rand, cfg tbSimCfg) tbSim {
	sim := tbSim{batches: map[string]*tbSimBatch{}}
	var ops []checks.Op
	var events []tbSimEvent
	n := 0
	event := func(e tbSimEvent) {
		e.n = n
		n++
		events = append(events, e)
	}
	partRows := map[string][]string{}
	var parts []string
	for p := range cfg.parts {
		part := fmt.Sprintf("p%d", p)
		parts = append(parts, part)
		for i := range cfg.rows {
			partRows[part] = append(partRows[part], fmt.Sprintf("r%02d", i))
		}
		ops = append(ops, checks.Op{Actor: checks.ActorSetup, Kind: checks.KindTableBatch, Key: part, Attempt: 1, Call: 1, Return: 2,
			In: checks.Input{Value: "setup-" + part, Rows: partRows[part]}, Out: checks.Output{Status: 202}})
		event(tbSimEvent{at: 1, apply: true, part: part, rows: partRows[part], stamp: "setup-" + part})
		sim.batches["setup-"+part] = &tbSimBatch{part: part, rows: partRows[part], firstCall: 1, ret: 2, onlyOK: true, ok: true}
	}
	end := int64(0)
	for a := range cfg.actors {
		now := int64(10 + r.Int64N(cfg.maxGap))
		type pending struct {
			stamp, part string
			rows        []string
			attempt     int
		}
		var retry *pending
		for i := 0; i < cfg.ops; i++ {
			call := now
			ret := call + 1 + r.Int64N(cfg.maxDur)
			now = ret + 1 + r.Int64N(cfg.maxGap)
			end = max(end, ret)
			if retry == nil && r.Float64() < cfg.query {
				part := parts[r.IntN(len(parts))]
				all := partRows[part]
				from := r.IntN(len(all))
				to := from + 1 + r.IntN(len(all)-from)
				pageRows := all[from:to]
				if len(pageRows) > 1 && r.Float64() < cfg.split {
					// Two pages of one query: each its own snapshot.
					cut := 1 + r.IntN(len(pageRows)-1)
					mid := call + (ret-call)/2
					for j, pr := range [][]string{pageRows[:cut], pageRows[cut:]} {
						c, rt := call, mid
						if j == 1 {
							c, rt = mid, ret
						}
						ops = append(ops, checks.Op{Actor: a, Kind: checks.KindTableQuery, Key: part, Attempt: 1, Call: c, Return: rt, Out: checks.Output{Status: 200}})
						event(tbSimEvent{at: c + r.Int64N(rt-c+1), part: part, rows: pr, page: len(ops) - 1})
					}
					continue
				}
				ops = append(ops, checks.Op{Actor: a, Kind: checks.KindTableQuery, Key: part, Attempt: 1, Call: call, Return: ret, Out: checks.Output{Status: 200}})
				event(tbSimEvent{at: call + r.Int64N(ret-call+1), part: part, rows: pageRows, page: len(ops) - 1})
				continue
			}
			p := retry
			retry = nil
			if p == nil {
				part := parts[r.IntN(len(parts))]
				all := slices.Clone(partRows[part])
				r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
				p = &pending{stamp: fmt.Sprintf("a%d-%d", a, i), part: part, rows: all[:1+r.IntN(min(cfg.maxRows, len(all)))], attempt: 1}
			}
			op := checks.Op{Actor: a, Kind: checks.KindTableBatch, Key: p.part, Attempt: p.attempt, Call: call, Return: ret,
				In: checks.Input{Value: p.stamp, Rows: p.rows}}
			b := sim.batches[p.stamp]
			if b == nil {
				b = &tbSimBatch{part: p.part, rows: p.rows, firstCall: call, ret: ret, onlyOK: true}
				sim.batches[p.stamp] = b
			} else {
				b.onlyOK = false
			}
			x := r.Float64()
			switch {
			case p.attempt == 1 && x < cfg.fails:
				op.Outcome, op.In.BatchFails = checks.Conflict, p.rows[0]
				op.Out = checks.Output{Status: 409, ErrorCode: "EntityAlreadyExists"}
				b.onlyOK = false
			case x < cfg.fails+cfg.throttle:
				op.Outcome, op.Out = checks.Throttled, checks.Output{Status: 503, ErrorCode: "ServerBusy"}
				b.onlyOK = false
				if r.Float64() < cfg.retry {
					retry = &pending{p.stamp, p.part, p.rows, p.attempt + 1}
				}
			case x < cfg.fails+cfg.throttle+cfg.unknown:
				op.Outcome, op.Out = checks.Unknown, checks.Output{Err: "context deadline exceeded"}
				b.onlyOK = false
				if r.IntN(2) == 0 { // applied, possibly after the client gave up
					at := call + r.Int64N(ret-call+1+cfg.maxLate)
					end = max(end, at)
					event(tbSimEvent{at: at, apply: true, part: p.part, rows: p.rows, stamp: p.stamp})
				}
				if r.Float64() < cfg.retry {
					retry = &pending{p.stamp, p.part, p.rows, p.attempt + 1}
				}
			default:
				op.Outcome, op.Out = checks.OK, checks.Output{Status: 202}
				b.ok = true
				event(tbSimEvent{at: call + r.Int64N(ret-call+1), apply: true, part: p.part, rows: p.rows, stamp: p.stamp})
			}
			ops = append(ops, op)
		}
	}
	// The final read: quiet, after every late application.
	fcall := end + 1000
	for _, part := range parts {
		all := partRows[part]
		cut := len(all)
		if len(all) > 1 && r.IntN(2) == 0 {
			cut = 1 + r.IntN(len(all)-1)
		}
		for j, pr := range [][]string{all[:cut], all[cut:]} {
			if len(pr) == 0 {
				continue
			}
			c := fcall + int64(j)*10
			ops = append(ops, checks.Op{Actor: checks.ActorFinal, Kind: checks.KindTableQuery, Key: part, Attempt: 1, Call: c, Return: c + 5, Out: checks.Output{Status: 200}})
			event(tbSimEvent{at: c + 1, part: part, rows: pr, page: len(ops) - 1})
		}
		fcall += 100
	}

	// Replay the partition state in time order.
	sort.Slice(events, func(i, j int) bool {
		if events[i].at != events[j].at {
			return events[i].at < events[j].at
		}
		return events[i].n < events[j].n
	})
	state := map[string]map[string]string{}
	for _, part := range parts {
		state[part] = map[string]string{}
	}
	for _, e := range events {
		if e.apply {
			for _, row := range e.rows {
				state[e.part][row] = e.stamp
			}
			continue
		}
		for _, row := range e.rows {
			ops[e.page].Out.Entities = append(ops[e.page].Out.Entities, checks.Entity{Row: row, Value: state[e.part][row]})
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Return < ops[j].Return })
	for i := range ops {
		ops[i].Seq = uint64(i + 1)
		ops[i].Workload = "table.batch"
		ops[i].Intended = ops[i].Call
	}
	sim.ops = ops
	return sim
}

// older returns the stamp of a batch that wrote row and is certainly earlier
// than batch stamp (one OK attempt that returned before stamp was first
// sent): the latest such, or the setup stamp.
func (s *tbSim) older(stamp, row string) string {
	b := s.batches[stamp]
	best, bestRet := "setup-"+b.part, int64(-1)
	for st, o := range s.batches {
		if o.part == b.part && o.onlyOK && o.ret < b.firstCall && slices.Contains(o.rows, row) && o.ret > bestRet {
			best, bestRet = st, o.ret
		}
	}
	return best
}

// staleInPage changes, in one page, the stamp of a row s to an older
// batch's, where the page shows on another row r a batch A that wrote s.
func (s *tbSim) staleInPage(r *rand.Rand) ([]checks.Op, string, bool) {
	ops := slices.Clone(s.ops)
	order := r.Perm(len(ops))
	for _, i := range order {
		op := &ops[i]
		if op.Kind != checks.KindTableQuery || len(op.Out.Entities) < 2 {
			continue
		}
		for _, er := range op.Out.Entities {
			a := s.batches[er.Value]
			if a == nil || strings.HasPrefix(er.Value, "setup-") {
				continue
			}
			for k, es := range op.Out.Entities {
				if es.Row == er.Row || !slices.Contains(a.rows, es.Row) {
					continue
				}
				old := s.older(er.Value, es.Row)
				ents := slices.Clone(op.Out.Entities)
				ents[k].Value = old
				op.Out.Entities = ents
				return ops, fmt.Sprintf("#%d: row %s %s -> %s while row %s shows %s", op.Seq, es.Row, es.Value, old, er.Row, er.Value), true
			}
		}
	}
	return nil, "", false
}

// dropInFinal reverts, in the final read, one row of an acknowledged batch
// to an older batch's stamp.
func (s *tbSim) dropInFinal(r *rand.Rand) ([]checks.Op, string, bool) {
	ops := slices.Clone(s.ops)
	for _, i := range r.Perm(len(ops)) {
		op := &ops[i]
		if op.Actor != checks.ActorFinal {
			continue
		}
		for k, e := range op.Out.Entities {
			if b := s.batches[e.Value]; b == nil || strings.HasPrefix(e.Value, "setup-") || !b.ok {
				continue
			}
			old := s.older(e.Value, e.Row)
			ents := slices.Clone(op.Out.Entities)
			ents[k].Value = old
			op.Out.Entities = ents
			return ops, fmt.Sprintf("final #%d: row %s %s -> %s", op.Seq, e.Row, e.Value, old), true
		}
	}
	return nil, "", false
}

// Random valid histories pass both batch checkers; one page changed to show
// an older batch on one row fails snapshot-reads; one row of an acknowledged
// batch reverted in the final read fails batch-atomicity.
func TestTableBatchSimulation(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 60
	}
	var stale, dropped int
	for seed := range seeds {
		cfg := randomTBSimCfg(rand.New(rand.NewPCG(seed, 11)))
		sim := simulateTableBatches(rand.New(rand.NewPCG(seed, 12)), cfg)
		for _, r := range checks.Run(sim.ops, NewBatchAtomicity(), NewSnapshotReads()) {
			if r.Verdict != checks.Pass {
				t.Fatalf("seed %d (%v): valid history judged %s by %s\n%s", seed, cfg, r.Verdict, r.Check, checkstest.Describe(r))
			}
		}
		mr := rand.New(rand.NewPCG(seed, 13))
		if ops, what, ok := sim.staleInPage(mr); ok {
			stale++
			if r := checks.Run(ops, NewSnapshotReads())[0]; r.Verdict != checks.Fail {
				t.Fatalf("seed %d (%v): %s judged %s\n%s", seed, cfg, what, r.Verdict, checkstest.Describe(r))
			} else {
				checkstest.CheckKinds(t, r)
			}
		}
		if ops, what, ok := sim.dropInFinal(mr); ok {
			dropped++
			if r := checks.Run(ops, NewBatchAtomicity())[0]; r.Verdict != checks.Fail {
				t.Fatalf("seed %d (%v): %s judged %s\n%s", seed, cfg, what, r.Verdict, checkstest.Describe(r))
			} else {
				checkstest.CheckKinds(t, r)
			}
		}
	}
	if stale < int(seeds)/2 || dropped < int(seeds)/2 {
		t.Fatalf("only %d stale pages and %d dropped rows injected in %d histories", stale, dropped, seeds)
	}
	t.Logf("%d histories, %d with a stale row in a page, %d with a row dropped from the final read", seeds, stale, dropped)
}

// tbCheckKeys checks that every violation is filed under the key of the
// operations that show it: the partition (or entity) of every write in its
// excerpt, of every read with a key, and of every entity a page shows.
func tbCheckKeys(t *testing.T, r checks.Result) {
	t.Helper()
	for _, v := range r.Violations {
		for _, o := range v.Ops {
			if o.Key != v.Key && o.Key != "*" {
				t.Errorf("violation %q filed under %q, but its excerpt holds #%d on %q", v.Message, v.Key, o.Seq, o.Key)
			}
			for _, e := range o.Out.Entities {
				if e.Partition != "" && e.Partition != v.Key {
					t.Errorf("violation %q filed under %q, but its excerpt shows an entity of %q", v.Message, v.Key, e.Partition)
				}
			}
		}
	}
}
