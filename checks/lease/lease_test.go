package lease

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// lh builds hand-made lease histories on a timeline in seconds. Every call
// takes explicit [call, return] times; answers are written as "ok", "ok 200"
// (an explicit status), "409 LeaseAlreadyPresent", "412 LeaseIdMissing",
// "412" (no code), "404 BlobNotFound", "unknown", "503" or "500".
type lh struct {
	*checkstest.Hist
	space string // "blob." or "container."
}

func newLH(space string) lh { return lh{Hist: checkstest.NewHist(), space: space} }

func sec(s float64) int64 { return int64(math.Round(s * 1e9)) }

func pint(n int) *int { return &n }

// documented success statuses
var lhOKStatus = map[string]int{
	"lease.acquire": 201, "lease.renew": 200, "lease.change": 200, "lease.release": 200, "lease.break": 202,
	"blob.put": 201, "blob.create": 201, "blob.commit": 201, "blob.stage": 201, "blob.delete": 202,
	"container.delete": 202,
}

func lhAnswer(kind, spec string) (checks.Outcome, checks.Output) {
	f := strings.Fields(spec)
	switch f[0] {
	case "ok":
		st := 200
		for k, v := range lhOKStatus {
			if strings.HasSuffix(kind, k) {
				st = v
			}
		}
		if len(f) > 1 {
			st, _ = strconv.Atoi(f[1])
		}
		return checks.OK, checks.Output{Status: st}
	case "unknown":
		return checks.Unknown, checks.Output{Err: "timeout"}
	case "503":
		return checks.Throttled, checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	case "500":
		return checks.Throttled, checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}
	}
	st, err := strconv.Atoi(f[0])
	if err != nil {
		panic("bad answer " + spec)
	}
	out := checks.Output{Status: st}
	if len(f) > 1 {
		out.ErrorCode = f[1]
	}
	o := checks.Conflict
	if st == 404 || st == 400 {
		o = checks.Error
	}
	return o, out
}

// call records one operation.
func (h lh) call(actor int, kind, key string, in checks.Input, t0, t1 float64, ans string) uint64 {
	o, out := lhAnswer(kind, ans)
	return h.Add(checks.Op{Actor: actor, Kind: kind, Key: key, Outcome: o, In: in, Out: out, Call: sec(t0), Return: sec(t1)})
}

func (h lh) acq(actor int, key, id string, d int, t0, t1 float64, ans string) uint64 {
	s := h.call(actor, h.space+"lease.acquire", key, checks.Input{LeaseID: id, LeaseDuration: d}, t0, t1, ans)
	if h.Op(s).Outcome == checks.OK {
		h.Op(s).Out.Value = id
	}
	return s
}

func (h lh) renew(actor int, key, id string, t0, t1 float64, ans string) uint64 {
	return h.call(actor, h.space+"lease.renew", key, checks.Input{LeaseID: id}, t0, t1, ans)
}

func (h lh) release(actor int, key, id string, t0, t1 float64, ans string) uint64 {
	return h.call(actor, h.space+"lease.release", key, checks.Input{LeaseID: id}, t0, t1, ans)
}

func (h lh) change(actor int, key, from, to string, t0, t1 float64, ans string) uint64 {
	s := h.call(actor, h.space+"lease.change", key, checks.Input{LeaseID: from, ProposedLeaseID: to}, t0, t1, ans)
	if h.Op(s).Outcome == checks.OK {
		h.Op(s).Out.Value = to
	}
	return s
}

// brk records a break; period nil: no break period sent.
func (h lh) brk(actor int, key string, period *int, t0, t1 float64, ans string) uint64 {
	return h.call(actor, h.space+"lease.break", key, checks.Input{BreakPeriod: period}, t0, t1, ans)
}

// data records a non-lease operation sent with lease id id ("" for none).
func (h lh) data(actor int, kind, key, id string, t0, t1 float64, ans string) uint64 {
	return h.call(actor, kind, key, checks.Input{LeaseID: id, Value: checkstest.Cval(1, "w"+strconv.Itoa(len(h.Ops)))}, t0, t1, ans)
}

// read records a blob.get sent with lease id id; etag is what it returned.
func (h lh) read(actor int, key, id, etag string, t0, t1 float64, ans string) uint64 {
	s := h.call(actor, checks.KindBlobGet, key, checks.Input{LeaseID: id}, t0, t1, ans)
	if h.Op(s).Outcome == checks.OK {
		h.Op(s).Out.ETag = etag
		h.Op(s).Out.Value = checkstest.Cval(1, "r")
	}
	return s
}

type leaseCase struct {
	name  string
	build func(h lh) checkstest.Want
}

func runLeaseCases(t *testing.T, check, space string, cases []leaseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newLH(space)
			w := tc.build(h)
			w.Assert(t, h.Check(t, check))
		})
	}
}

func TestLeaseIDNormalization(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},
		{"{aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee}", "aaaaaaaabbbbccccddddeeeeeeeeeeee"},
		{"(AAAAAAAA-bbbb-cccc-dddd-eeeeeeeeeeee)", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},
		{"Lease-A", "lease-a"},
	} {
		if normLeaseID(c.a) != normLeaseID(c.b) {
			t.Errorf("%q and %q should name the same lease (%q, %q)", c.a, c.b, normLeaseID(c.a), normLeaseID(c.b))
		}
	}
	if normLeaseID("lease-a") == normLeaseID("lease-b") {
		t.Error("different ids compare equal")
	}
}

func TestLeaseCheckersRegistered(t *testing.T) {
	for _, n := range []string{LeaseExclusionName, LeaseProtocolName, ContainerLeaseName} {
		c, err := checks.New(n)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != n {
			t.Errorf("checker %q names itself %q", n, c.Name())
		}
	}
}
