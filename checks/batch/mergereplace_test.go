package batch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

func mrProps(s ...string) []string { return s }

func TestMergeReplace(t *testing.T) {
	const k = "pk/rk"
	cases := []struct {
		name  string
		build func(h *checkstest.Hist) checkstest.Want
	}{
		// Clean histories.
		{"replace, merges, and reads that follow them", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.OK, 100, 110)
			h.MrGet(1, k, 120, 130, "p0=r1")
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 140, 150)
			h.MrGet(1, k, 160, 170, "p0=r1", "p1=m1")
			h.MrWrite(0, checks.KindTableUpsertMerge, k, "m2", mrProps("p0", "p2"), checks.OK, 180, 190)
			h.MrGet(checks.ActorFinal, k, 200, 210, "p0=m2", "p1=m1", "p2=m2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 entity, 4 writes (2 replaces, 2 merges, 0 unknown), 3 reads: every read explained by the last replace and the merges after it"}
		}},
		{"a replace and a merge overlap: either order", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableUpsert, k, "r1", mrProps("p0"), checks.OK, 100, 200)
			h.MrWrite(1, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 150, 250)
			h.MrGet(2, k, 300, 310, "p0=r1")          // m1 first, erased by r1
			h.MrGet(3, k, 300, 310, "p0=r1", "p1=m1") // r1 first
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a read overlapping a merge need not see it", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 200)
			h.MrGet(1, k, 150, 160, "p0=s", "p1=s", "p2=s")
			h.MrGet(1, k, 170, 180, "p0=s", "p1=m1", "p2=s")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"refused writes leave no trace", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.Conflict, 100, 110)
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.Throttled, 120, 130)
			h.MrGet(1, k, 140, 150, "p0=s", "p1=s", "p2=s")
			return checkstest.Want{Verdict: checks.Pass}
		}},

		// Unknown outcomes: quiet.
		{"an unknown replace, applied after it timed out, explains a missing property", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableUpsert, k, "r1", mrProps("p0"), checks.Unknown, 90, 95)
			h.MrWrite(1, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			h.MrGet(2, k, 200, 210, "p0=r1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 unknown"}
		}},
		{"an unknown delete explains missing properties without being visible", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.Add(checks.Op{Actor: 0, Kind: checks.KindTableDelete, Key: k, Outcome: checks.Unknown, Call: 100, Return: 110, Out: checks.Output{Err: "timeout"}})
			h.MrWrite(1, checks.KindTableUpsertMerge, k, "m1", mrProps("p0"), checks.OK, 200, 210)
			h.MrGet(2, k, 300, 310, "p0=m1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown replace never applied", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.Unknown, 100, 110)
			h.MrGet(1, k, 200, 210, "p0=s", "p1=s", "p2=s")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown merge never read", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			h.MrWrite(0, checks.KindTableMerge, k, "m2", mrProps("p1"), checks.Unknown, 120, 130)
			h.MrGet(1, k, 200, 210, "p0=s", "p1=m1", "p2=s")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a retried merge: the unknown first attempt may land after the acknowledged retry", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.Unknown, 100, 110)
			s := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 120, 130)
			h.Op(s).Attempt = 2
			h.MrWrite(1, checks.KindTableMerge, k, "m2", mrProps("p1"), checks.OK, 140, 150)
			h.MrGet(2, k, 200, 210, "p0=s", "p1=m1", "p2=s")
			return checkstest.Want{Verdict: checks.Pass}
		}},

		// Rule 1.
		{"a value nobody wrote", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			rd := h.MrGet(1, k, 100, 110, "p0=s", "p1=ghost", "p2=s")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`value nobody wrote: property "p1" reads "ghost"`, rd)}}
		}},
		{"a refused write visible", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			m := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.Conflict, 100, 110)
			rd := h.MrGet(1, k, 120, 130, "p0=s", "p1=m1", "p2=s")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`refused write visible: property "p1" reads the tag of merge "m1" (#2), which was answered conflict 412 ConditionNotMet`, m, rd)}}
		}},
		{"a tag on a property its write did not set", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			m := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			rd := h.MrGet(1, k, 120, 130, "p0=s", "p1=m1", "p2=m1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`property "p2" reads the tag of merge "m1" (#2), which wrote only [p1]`, m, rd)}}
		}},
		{"a value read before its write was sent", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			rd := h.MrGet(1, k, 50, 60, "p0=s", "p1=m1", "p2=s")
			m := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`value read before it was written: property "p1"`, m, rd)}}
		}},

		// Rule 2.
		{"two replaces visible", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			r1 := h.MrWrite(0, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.OK, 100, 110)
			r2 := h.MrWrite(1, checks.KindTableUpsert, k, "r2", mrProps("p1"), checks.OK, 100, 110)
			rd := h.MrGet(2, k, 120, 130, "p0=r1", "p1=r2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`two replaces visible: property "p0" shows replace "r1" (#2) and property "p1" shows replace "r2" (#3)`, r1, r2, rd)}}
		}},
		{"a property of the visible replace missing", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			r1 := h.MrWrite(0, checks.KindTableUpdate, k, "r1", mrProps("p0", "p1"), checks.OK, 100, 110)
			rd := h.MrGet(2, k, 120, 130, "p0=r1")
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`property of a visible replace missing: property "p0" shows replace "r1" (#2), which also wrote "p1", but "p1" is missing`, r1, rd),
				checkstest.Vio(`missing property: the read lacks "p1"`, r1, rd)}}
		}},
		{"a merge certainly earlier than the visible replace", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			m := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			r := h.MrWrite(1, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.Unknown, 120, 130)
			rd := h.MrGet(2, k, 140, 150, "p0=r1", "p1=m1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`a property that neither the last replace nor a later merge wrote: property "p1" shows merge "m1" (#2), which took effect before replace "r1" (#3) (visible on "p0") was sent`, m, r, rd)}}
		}},

		// Rule 3.
		{"stale read: a later acknowledged merge overwrote it", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			m1 := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			m2 := h.MrWrite(1, checks.KindTableUpsertMerge, k, "m2", mrProps("p1", "p2"), checks.OK, 120, 130)
			rd := h.MrGet(2, k, 140, 150, "p0=s", "p1=m1", "p2=m2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`stale read: property "p1" shows merge "m1" (#2), but merge "m2" (#3), which also wrote it, was sent after it returned`, m1, m2, rd)}}
		}},
		{"stale read: a later acknowledged replace erased it", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			m1 := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			r1 := h.MrWrite(1, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.OK, 120, 130)
			rd := h.MrGet(2, k, 140, 150, "p0=r1", "p1=m1")
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`stale read: property "p1" shows merge "m1" (#2), but replace "r1" (#3), which erased it`, m1, r1, rd),
				checkstest.Vio(`a property that neither the last replace nor a later merge wrote`, m1, r1, rd)}}
		}},
		{"stale read of the setup value, the overwrite proven by an earlier read", func(h *checkstest.Hist) checkstest.Want {
			s := h.MrSetup(k)
			m1 := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.Unknown, 100, 110)
			h.MrGet(1, k, 120, 130, "p0=s", "p1=m1", "p2=s")
			rd := h.MrGet(2, k, 140, 150, "p0=s", "p1=s", "p2=s")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`stale read: property "p1" shows setup replace "s" (#1)`, s, m1, rd)}}
		}},

		// Rule 4.
		{"missing property an acknowledged merge wrote", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableMerge, k, "m0", mrProps("p0", "p2"), checks.OK, 80, 90)
			m1 := h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			rd := h.MrGet(1, k, 140, 150, "p0=m0", "p2=m0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`missing property: the read lacks "p1", but merge "m1" (#3) wrote it and took effect before the read was sent, and no replace without "p1" could have applied after it`, m1, rd)}}
		}},
		{"missing property: the only replace without it is certainly earlier", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableUpdate, k, "r1", mrProps("p0"), checks.OK, 50, 60)
			m1 := h.MrWrite(1, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			h.MrWrite(2, checks.KindTableUpdate, k, "r2", mrProps("p0"), checks.OK, 400, 410) // sent after the read returned
			rd := h.MrGet(3, k, 140, 150, "p0=r1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`missing property: the read lacks "p1"`, m1, rd)}}
		}},

		// Missing information.
		{"no reads", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, nothing to check"}
		}},
		{"a tag reused by two writes", func(h *checkstest.Hist) checkstest.Want {
			h.MrSetup(k)
			h.MrWrite(0, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			h.MrWrite(1, checks.KindTableMerge, k, "m1", mrProps("p1"), checks.OK, 100, 110)
			h.MrGet(2, k, 120, 130, "p0=s", "p1=m1", "p2=s")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 tag reused by several writes"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := checkstest.NewHist()
			w := tc.build(h)
			r := h.Check(t, MergeReplaceName)
			w.Assert(t, r)
			tbCheckKeys(t, r)
		})
	}
}

// A simulated entity: every write applies at one point inside its interval
// (an unknown one at any later point, or never), every read copies the
// entity at one point inside its own.

type mrSimWrite struct {
	tag       string
	replace   bool
	props     []string
	firstCall int64
	ret       int64 // Return of its only attempt
	onlyOK    bool
	ok        bool
}

func simulateMergeReplace(r *rand.Rand, actors, n int, unknown, refused float64) ([]checks.Op, map[string]*mrSimWrite) {
	const key = "pk/rk"
	all := []string{"p0", "p1", "p2", "p3"}
	writes := map[string]*mrSimWrite{"s": {tag: "s", replace: true, props: all, firstCall: 1, ret: 2, onlyOK: true, ok: true}}
	ops := []checks.Op{{Actor: checks.ActorSetup, Kind: checks.KindTableUpsert, Key: key, Attempt: 1, Call: 1, Return: 2, In: checks.Input{Value: "s", Props: all}, Out: checks.Output{Status: 204}}}
	type event struct {
		at, n int64
		w     *mrSimWrite // nil: a read
		read  int
	}
	events := []event{{at: 1, w: writes["s"]}}
	seq := int64(1)
	ev := func(e event) {
		e.n = seq
		seq++
		events = append(events, e)
	}
	end := int64(0)
	for a := range actors {
		now := 10 + r.Int64N(20)
		var retry *checks.Op
		for i := range n {
			call := now
			ret := call + 1 + r.Int64N(60)
			now = ret + 1 + r.Int64N(30)
			end = max(end, ret)
			if retry == nil && r.IntN(3) == 0 {
				ops = append(ops, checks.Op{Actor: a, Kind: checks.KindTableGet, Key: key, Attempt: 1, Call: call, Return: ret, Out: checks.Output{Status: 200}})
				ev(event{at: call + r.Int64N(ret-call+1), read: len(ops) - 1})
				continue
			}
			var op checks.Op
			if retry != nil {
				op = *retry
				op.Attempt++
				retry = nil
			} else {
				kinds := []string{checks.KindTableUpdate, checks.KindTableUpsert, checks.KindTableMerge, checks.KindTableUpsertMerge}
				p := slices.Clone(all)
				r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
				op = checks.Op{Actor: a, Kind: kinds[r.IntN(len(kinds))], Key: key, Attempt: 1,
					In: checks.Input{Value: fmt.Sprintf("a%d-%d", a, i), Props: p[:1+r.IntN(len(p))]}}
			}
			op.Call, op.Return = call, ret
			w := writes[op.In.Value]
			if w == nil {
				w = &mrSimWrite{tag: op.In.Value, replace: op.Kind == checks.KindTableUpdate || op.Kind == checks.KindTableUpsert,
					props: op.In.Props, firstCall: call, ret: ret, onlyOK: true}
				writes[w.tag] = w
			} else {
				w.onlyOK = false
			}
			switch x := r.Float64(); {
			case x < refused:
				op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "UpdateConditionNotSatisfied"}
				w.onlyOK = false
			case x < refused+unknown:
				op.Outcome, op.Out = checks.Unknown, checks.Output{Err: "timeout"}
				w.onlyOK = false
				if r.IntN(2) == 0 {
					at := call + r.Int64N(ret-call+150)
					end = max(end, at)
					ev(event{at: at, w: w})
				}
				if r.IntN(2) == 0 {
					retry = &op
				}
			default:
				op.Outcome, op.Out = checks.OK, checks.Output{Status: 204}
				w.ok = true
				ev(event{at: call + r.Int64N(ret-call+1), w: w})
			}
			ops = append(ops, op)
		}
	}
	ops = append(ops, checks.Op{Actor: checks.ActorFinal, Kind: checks.KindTableGet, Key: key, Attempt: 1, Call: end + 1000, Return: end + 1010, Out: checks.Output{Status: 200}})
	ev(event{at: end + 1005, read: len(ops) - 1})

	sort.Slice(events, func(i, j int) bool {
		if events[i].at != events[j].at {
			return events[i].at < events[j].at
		}
		return events[i].n < events[j].n
	})
	state := map[string]string{}
	for _, e := range events {
		if e.w == nil {
			ops[e.read].Out.Props = mrCopy(state)
			continue
		}
		if e.w.replace {
			clear(state)
		}
		for _, p := range e.w.props {
			state[p] = e.w.tag
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Return < ops[j].Return })
	for i := range ops {
		ops[i].Seq, ops[i].Workload, ops[i].Intended = uint64(i+1), "table.merge-vs-replace", ops[i].Call
	}
	return ops, writes
}

func mrCopy(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Random valid merge/replace histories pass; the final read changed to show,
// on one property, an older write that a later acknowledged write overwrote
// or erased fails.
func TestMergeReplaceSimulation(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 60
	}
	injected := 0
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 21))
		actors, n := 2+r.IntN(5), 5+r.IntN(30)
		unknown, refused := r.Float64()*0.25, r.Float64()*0.15
		ops, writes := simulateMergeReplace(r, actors, n, unknown, refused)
		if res := checks.Run(ops, NewMergeReplace())[0]; res.Verdict != checks.Pass {
			t.Fatalf("seed %d (%d actors x %d ops, unknown %.2f): valid history judged %s\n%s", seed, actors, n, unknown, res.Verdict, checkstest.Describe(res))
		}
		// Mutation: in the final read, property p shows W2 (acknowledged);
		// show instead an older write W of p (or the setup) that returned
		// before W2 was first sent.
		final := &ops[len(ops)-1]
		var names []string
		for p := range final.Out.Props {
			names = append(names, p)
		}
		slices.Sort(names)
		for _, p := range names {
			w2 := writes[final.Out.Props[p]]
			if w2.tag == "s" || !w2.ok {
				continue
			}
			old := "s"
			for _, w := range writes {
				if w.onlyOK && w.ret < w2.firstCall && slices.Contains(w.props, p) && w.ret > writes[old].ret {
					old = w.tag
				}
			}
			mut := slices.Clone(ops)
			mut[len(mut)-1].Out.Props = mrCopy(final.Out.Props)
			mut[len(mut)-1].Out.Props[p] = old
			injected++
			if res := checks.Run(mut, NewMergeReplace())[0]; res.Verdict != checks.Fail {
				t.Fatalf("seed %d: final %s %s -> %s judged %s\n%s", seed, p, w2.tag, old, res.Verdict, checkstest.Describe(res))
			} else {
				checkstest.CheckKinds(t, res)
			}
			break
		}
	}
	if injected < int(seeds)/2 {
		t.Fatalf("only %d/%d histories mutated", injected, seeds)
	}
	t.Logf("%d histories, %d with a stale final property", seeds, injected)
}
