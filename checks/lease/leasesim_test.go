package lease

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// A simulated lease service that follows the documented state machine, to
// check that the lease checkers never flag correct behaviour: its clock runs
// at a rate within rho of the harness's, calls take effect at a random
// instant of [call, return], unknown outcomes apply or not (some land after
// they returned), and after an expiry a new acquire may be refused for up to
// a minute. Where the documentation allows two answers it picks either.
//
// Actors do not look at answers: each sends random lease calls and writes
// with ids from a small pool, so that every state and transition is
// exercised, and the service decides every answer.

type lsimLease struct {
	id         string
	dur        int64 // service ns, lsInf for infinite
	expiry     int64 // harness time; lsInf for infinite
	breaking   bool
	breakEnd   int64 // harness time the break completes
	graceUntil int64 // a new id's acquire may be refused until then (after expiry)
}

type lsimKey struct {
	lease lsimLease
	etag  int
}

type lsimOp struct {
	op      checks.Op
	lin     int64
	applies bool // takes effect (at lin)
	hidden  bool // its answer is not recorded (unknown)
}

type lsimConfig struct {
	space        string // "blob." or "container."
	actors, keys int
	opsPerActor  int
	unknown      float64
	fault        string // "" or a fault to inject
}

func (c lsimConfig) String() string {
	return fmt.Sprintf("%s actors=%d keys=%d ops=%d unknown=%.2f fault=%q", c.space, c.actors, c.keys, c.opsPerActor, c.unknown, c.fault)
}

// lsimState is the lease state at harness time t.
func (l *lsimLease) state(t int64) leaseStateKind {
	switch {
	case l.id == "":
		return lsAvailable
	case l.breaking && t < l.breakEnd:
		return lsBreaking
	case l.breaking:
		return lsBroken
	case t < l.expiry:
		return lsLeased
	}
	return lsExpired
}

type leaseSim struct {
	r       *rand.Rand
	cfg     lsimConfig
	rate    float64 // service clock rate: service time = harness time * rate
	keys    map[string]*lsimKey
	ids     []string
	gen     int
	injects int // faults injected
}

func (s *leaseSim) pick(opts ...string) string { return opts[s.r.IntN(len(opts))] }

// toHarness converts a service duration to harness time.
func (s *leaseSim) toHarness(d int64) int64 {
	if d == checks.LsInf {
		return checks.LsInf
	}
	return int64(float64(d) / s.rate)
}

func (s *leaseSim) key(k string) *lsimKey {
	if s.keys[k] == nil {
		s.keys[k] = &lsimKey{}
	}
	return s.keys[k]
}

// apply runs one call at harness time t and fills its answer.
func (s *leaseSim) apply(op *checks.Op, t int64) {
	k := s.key(op.Key)
	l := &k.lease
	st := l.state(t)
	x := normLeaseID(op.In.LeaseID)
	conflict := func(code string) { op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 409, ErrorCode: code} }
	refuse := func(code string) { op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: code} }
	ok := func(status int) {
		op.Outcome = checks.OK
		op.Out.Status = status
		op.Out.ETag = "0x" + op.Key + "-" + strconv.Itoa(k.etag)
	}
	grant := func(id string, dur int64) {
		h := s.toHarness(dur)
		*l = lsimLease{id: id, dur: dur, expiry: checks.AddBound(t, h)}
		l.graceUntil = checks.AddBound(l.expiry, int64(s.r.Float64()*0.95*float64(LeaseReacquireGrace)))
	}
	sp := blobLeaseSpace
	if s.cfg.space == "container." {
		sp = containerLeaseSpace
	}
	switch act := sp.action(op.Kind); act {
	case laAcquire:
		d := int64(op.In.LeaseDuration) * checks.LsSecond
		if op.In.LeaseDuration == -1 {
			d = checks.LsInf
		}
		p := x
		if p == "" {
			s.gen++
			p = "gen" + strconv.Itoa(s.gen)
		}
		fault := s.cfg.fault == "grant" && st == lsLeased && p != l.id && s.r.IntN(3) == 0
		switch {
		case fault:
			s.injects++
			grant(p, d)
		case st == lsLeased && p == l.id:
			grant(p, d) // renews, with the new duration
		case st == lsLeased:
			conflict(lcAlreadyPresent)
			return
		case st == lsBreaking && p == l.id:
			conflict(lcBreakingNoAcquire)
			return
		case st == lsBreaking:
			conflict(s.pick(lcAlreadyPresent, lcBreakingNoAcquire))
			return
		case st == lsExpired && p != l.id && t < l.graceUntil:
			conflict(lcAlreadyPresent)
			return
		default:
			grant(p, d)
		}
		ok(201)
		op.Out.Value = p
	case laRenew:
		switch {
		case st == lsLeased && x == l.id, st == lsExpired && x == l.id:
			if l.dur != checks.LsInf {
				l.expiry = checks.AddBound(t, s.toHarness(l.dur))
				l.graceUntil = checks.AddBound(l.expiry, int64(s.r.Float64()*0.95*float64(LeaseReacquireGrace)))
			}
			ok(200)
		case (st == lsBreaking || st == lsBroken) && x == l.id:
			conflict(lcBrokenNoRenew)
		case st == lsAvailable || st == lsExpired:
			conflict(s.pick(lcMismatchLeaseOp, lcNotPresentLeaseOp))
		default:
			conflict(lcMismatchLeaseOp)
		}
	case laChange:
		p := normLeaseID(op.In.ProposedLeaseID)
		switch {
		case st == lsLeased && (x == l.id || p == l.id):
			l.id = p
			ok(200)
			op.Out.Value = p
		case st == lsBreaking && x == l.id:
			conflict(lcBreakingNoChange)
		case st == lsLeased || st == lsBreaking:
			conflict(lcMismatchLeaseOp)
		default:
			conflict(s.pick(lcNotPresentLeaseOp, lcMismatchLeaseOp))
		}
	case laRelease:
		switch {
		case st != lsAvailable && x == l.id:
			*l = lsimLease{}
			ok(200)
		case st == lsLeased || st == lsBreaking:
			conflict(lcMismatchLeaseOp)
		default:
			conflict(s.pick(lcMismatchLeaseOp, lcNotPresentLeaseOp))
		}
	case laBreak:
		var p int64 = -1
		if op.In.BreakPeriod != nil {
			p = s.toHarness(int64(*op.In.BreakPeriod) * checks.LsSecond)
		}
		switch st {
		case lsAvailable:
			conflict(lcNotPresentLeaseOp)
			return
		case lsLeased:
			l.breaking = true
			switch {
			case l.expiry == checks.LsInf && p < 0:
				l.breakEnd = t
			case p < 0:
				l.breakEnd = l.expiry
			default:
				l.breakEnd = min(checks.AddBound(t, p), l.expiry)
			}
		case lsBreaking:
			if p >= 0 {
				l.breakEnd = min(l.breakEnd, checks.AddBound(t, p))
			}
		case lsBroken, lsExpired:
			l.breaking, l.breakEnd = true, t
		}
		ok(202)
		left := int((float64(max(l.breakEnd-t, 0)) * s.rate) / 1e9) // whole service seconds, rounded down
		op.Out.LeaseTime = &left
	default:
		c := sp.class(op.Kind)
		switch {
		case x == "" && !c.enforced:
			if s.cfg.fault == "overenforce" && (st == lsLeased || st == lsBreaking) && s.r.IntN(2) == 0 {
				s.injects++
				refuse(lcIDMissing)
				return
			}
		case x == "" && (st == lsLeased || st == lsBreaking):
			if s.cfg.fault == "nofence" && st == lsLeased && s.r.IntN(2) == 0 {
				s.injects++
				break
			}
			refuse(lcIDMissing)
			return
		case x != "" && (st == lsLeased || st == lsBreaking) && x != l.id:
			refuse(sp.mismatch)
			return
		case x != "" && st != lsLeased && st != lsBreaking:
			if s.cfg.fault == "stale" && st == lsExpired && x == l.id && s.r.IntN(2) == 0 {
				s.injects++
				defer func() { op.Out.RequestID = "fault" }()
				break
			}
			refuse(s.pick(sp.notPresent, lcLeaseLost, sp.mismatch))
			return
		}
		if c.modifies {
			k.etag++
			if x == "" && (st == lsExpired || st == lsBroken) {
				*l = lsimLease{} // a change makes an expired or broken lease forget its id
			}
		}
		ok(200)
		if c.modifies {
			op.Out.Status = 201
		}
		if s.cfg.fault == "etag" && act == laNone && !c.modifies && s.r.IntN(8) == 0 {
			s.injects++
			k.etag++ // a read that sees a changed ETag without any write
			op.Out.ETag = "0x" + op.Key + "-" + strconv.Itoa(k.etag)
		}
	}
}

// randomCall makes one random call of an actor (answers are filled later).
func (s *leaseSim) randomCall(actor int) checks.Op {
	key := "k" + strconv.Itoa(s.r.IntN(s.cfg.keys))
	id := s.ids[s.r.IntN(len(s.ids))]
	lease := s.cfg.space + "lease."
	dur := []int{15, 15, 20, 30, 60, -1}[s.r.IntN(6)]
	switch x := s.r.IntN(20); {
	case x < 5:
		if s.r.IntN(10) == 0 {
			id = ""
		}
		return checks.Op{Kind: lease + "acquire", Key: key, In: checks.Input{LeaseID: id, LeaseDuration: dur}}
	case x < 7:
		return checks.Op{Kind: lease + "renew", Key: key, In: checks.Input{LeaseID: id}}
	case x < 8:
		return checks.Op{Kind: lease + "change", Key: key, In: checks.Input{LeaseID: id, ProposedLeaseID: s.ids[s.r.IntN(len(s.ids))]}}
	case x < 10:
		return checks.Op{Kind: lease + "release", Key: key, In: checks.Input{LeaseID: id}}
	case x < 11:
		var p *int
		if s.r.IntN(3) > 0 {
			p = pint([]int{0, 1, 5, 10, 30, 60}[s.r.IntN(6)])
		}
		return checks.Op{Kind: lease + "break", Key: key, In: checks.Input{BreakPeriod: p}}
	}
	if s.r.IntN(3) == 0 {
		id = ""
	}
	var kinds []string
	if s.cfg.space == "container." {
		kinds = []string{"container.setmeta", "container.getprops", "container.setacl"}
	} else {
		kinds = []string{"blob.put", "blob.get", "blob.setmeta", "blob.stage", "blob.commit", "blob.get"}
	}
	return checks.Op{Kind: kinds[s.r.IntN(len(kinds))], Key: key, In: checks.Input{LeaseID: id, Value: checkstest.Cval(1, "a"+strconv.Itoa(actor))}}
}

// simulateLeases generates one history.
func simulateLeases(r *rand.Rand, cfg lsimConfig) ([]checks.Op, *leaseSim) {
	s := &leaseSim{r: r, cfg: cfg, keys: map[string]*lsimKey{}}
	// The service's clock rate, within 0.9 rho of the harness's.
	s.rate = 1 / (1 + (2*r.Float64()-1)*0.9*LeaseClockRho)
	for i := range 3 + r.IntN(3) {
		s.ids = append(s.ids, fmt.Sprintf("%08x-0000-4000-8000-%012d", i+1, i+1))
	}
	var all []*lsimOp
	for a := range cfg.actors {
		t := checks.LsSecond + int64(r.IntN(3000))*int64(1e6)
		for range cfg.opsPerActor {
			op := s.randomCall(a)
			op.Actor = a
			think := int64(r.ExpFloat64() * 2e9)
			if r.IntN(10) == 0 {
				think += int64(r.IntN(40)) * checks.LsSecond // long pauses let leases expire
			}
			lat := int64(1e6) + r.Int64N(int64(1.5e9))
			op.Call = t + think
			op.Return = op.Call + lat
			q := &lsimOp{op: op, lin: op.Call + r.Int64N(lat+1), applies: true}
			if r.Float64() < cfg.unknown {
				q.hidden = true
				switch r.IntN(3) {
				case 0:
					q.applies = false
				case 1:
					q.lin = op.Return + r.Int64N(20*checks.LsSecond) // lands after the client gave up
				}
			}
			all = append(all, q)
			t = op.Return
		}
	}
	// The service applies calls in the order they take effect.
	order := append([]*lsimOp(nil), all...)
	sort.Slice(order, func(i, j int) bool { return order[i].lin < order[j].lin })
	for _, q := range order {
		if q.applies {
			s.apply(&q.op, q.lin)
		}
	}
	// The runner records calls as they return.
	sort.SliceStable(all, func(i, j int) bool { return all[i].op.Return < all[j].op.Return })
	ops := make([]checks.Op, 0, len(all))
	for i, q := range all {
		op := q.op
		op.Seq, op.Workload, op.Attempt, op.Intended = uint64(i+1), "sim", 1, op.Call
		if q.hidden {
			op.Outcome, op.Out = checks.Unknown, checks.Output{Err: "timeout"}
			if r.IntN(4) == 0 {
				op.Outcome, op.Out = checks.Throttled, checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}
			}
			// A target that ended the call itself (Output.Done) was done
			// with it by Return: only a call that landed by then, or never.
			if (!q.applies || q.lin <= op.Return) && r.IntN(2) == 0 {
				op.Out.Done = true
			}
		}
		ops = append(ops, op)
	}
	return ops, s
}

func randomLeaseSimConfig(r *rand.Rand, space string) lsimConfig {
	return lsimConfig{space: space, actors: 2 + r.IntN(5), keys: 1 + r.IntN(2), opsPerActor: 20 + r.IntN(60),
		unknown: []float64{0, 0, 0.02, 0.1}[r.IntN(4)]}
}

// TestLeaseCheckersPassCorrectService: no correct history is flagged.
func TestLeaseCheckersPassCorrectService(t *testing.T) {
	iters := 150
	if testing.Short() {
		iters = 30
	}
	judged := map[string]int{}
	for seed := range iters {
		for _, space := range []string{"blob.", "container."} {
			r := rand.New(rand.NewPCG(uint64(seed), 7))
			cfg := randomLeaseSimConfig(r, space)
			ops, _ := simulateLeases(r, cfg)
			names := []string{LeaseExclusionName, LeaseProtocolName}
			if space == "container." {
				names = []string{ContainerLeaseName}
			}
			for _, n := range names {
				c, _ := checks.New(n)
				res := checks.Run(ops, c)[0]
				if res.Verdict == checks.Fail {
					t.Fatalf("seed %d %v: %s flagged a correct history:\n%s", seed, cfg, n, checkstest.Describe(res))
				}
				if res.Verdict == checks.Pass {
					judged[n]++
				}
			}
		}
	}
	for _, n := range []string{LeaseExclusionName, LeaseProtocolName, ContainerLeaseName} {
		if judged[n] < iters/2 {
			t.Errorf("%s passed only %d of %d histories (the rest undecided)", n, judged[n], iters)
		}
	}
}

// TestLeaseCheckersCatchFaults: a service that grants a second holder,
// accepts a write without the lease, accepts a stale lease id, over-enforces
// a container lease or changes an ETag without a write is caught in most
// histories where it happened.
func TestLeaseCheckersCatchFaults(t *testing.T) {
	iters := 120
	if testing.Short() {
		iters = 40
	}
	for _, f := range []struct {
		fault, space string
		checks       []string
		atLeast      float64 // share of faulty histories caught
	}{
		{"grant", "blob.", []string{LeaseExclusionName, LeaseProtocolName}, 0.7},
		{"nofence", "blob.", []string{LeaseExclusionName, LeaseProtocolName}, 0.7},
		{"stale", "blob.", []string{LeaseExclusionName, LeaseProtocolName}, 0.5},
		{"etag", "blob.", []string{LeaseProtocolName}, 0.5},
		{"grant", "container.", []string{ContainerLeaseName}, 0.7},
		{"overenforce", "container.", []string{ContainerLeaseName}, 0.95},
	} {
		t.Run(f.fault+" "+f.space, func(t *testing.T) {
			faulty, caught := 0, 0
			for seed := range iters {
				r := rand.New(rand.NewPCG(uint64(seed), 11))
				cfg := randomLeaseSimConfig(r, f.space)
				cfg.fault, cfg.unknown = f.fault, 0
				ops, s := simulateLeases(r, cfg)
				if s.injects == 0 {
					continue
				}
				faulty++
				for _, n := range f.checks {
					c, _ := checks.New(n)
					if r := checks.Run(ops, c)[0]; r.Verdict == checks.Fail {
						checkstest.CheckKinds(t, r)
						caught++
						break
					}
				}
			}
			if faulty < iters/10 || float64(caught) < f.atLeast*float64(faulty) {
				t.Errorf("caught %d of %d faulty histories (of %d), want at least %.0f%%", caught, faulty, iters, 100*f.atLeast)
			}
			t.Logf("caught %d of %d faulty histories", caught, faulty)
		})
	}
}

func benchLeaseHistory(b *testing.B, space string, actors, perActor int, unknown float64) []checks.Op {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	ops, _ := simulateLeases(r, lsimConfig{space: space, actors: actors, keys: 1, opsPerActor: perActor, unknown: unknown})
	return ops
}

func BenchmarkLeaseCheckers(b *testing.B) {
	for _, c := range []struct {
		name             string
		actors, perActor int
		unknown          float64
	}{
		{"8x1250", 8, 1250, 0},
		{"8x1250-unknown", 8, 1250, 0.02},
		{"32x1250-unknown", 32, 1250, 0.02},
	} {
		ops := benchLeaseHistory(b, "blob.", c.actors, c.perActor, c.unknown)
		for _, n := range []string{LeaseExclusionName, LeaseProtocolName} {
			b.Run(c.name+"/"+n, func(b *testing.B) {
				for b.Loop() {
					ch, _ := checks.New(n)
					checks.Run(ops, ch)
				}
			})
		}
	}
}

// TestLeaseCheckersPassCounterSim: the lease-mutex counter workload of
// sim_test.go (a correct service) passes both blob lease checks.
func TestLeaseCheckersPassCounterSim(t *testing.T) {
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		cfg := checkstest.RandomCounterConfig(r)
		cfg.Lease = true
		ops := checkstest.SimulateCounter(r, &cfg)
		for _, n := range []string{LeaseExclusionName, LeaseProtocolName} {
			c, _ := checks.New(n)
			if res := checks.Run(ops, c)[0]; res.Verdict == checks.Fail {
				t.Fatalf("seed %d %v: %s flagged a correct history:\n%s", seed, cfg, n, checkstest.Describe(res))
			}
		}
	}
}
