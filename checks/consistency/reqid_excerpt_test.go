package consistency

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// A violation's excerpt shows each operation's request id (and kind, date
// and error code) as it was recorded, whatever its shape (a UUID, a number, one with a leading zero,
// any other string, none): the checkers keep ids without strings where they
// can, and must give back exactly what was read.
func TestExcerptRequestIDsAsRecorded(t *testing.T) {
	h := checkstest.NewHist()
	ids := map[uint64]string{}
	set := func(seq uint64, id string) { h.Op(seq).Out.RequestID, ids[seq] = id, id }
	set(h.Setup("k", `"E0"`), "1483972")
	g1 := h.Get(0, "k", 0, "setup-1", `"E0"`)
	set(g1, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
	set(h.Get(1, "k", 0, "setup-1", `"E0"`), "0042")
	// a fork: both writes applied on the same base
	set(h.Put(0, "k", `"E0"`, 1, "a0-1", checks.OK, `"E1"`), "9999999999999999999")
	set(h.Put(1, "k", `"E0"`, 1, "a1-1", checks.OK, `"E2"`), "req-7")
	h.Final("k", 1, "a1-1", `"E2"`) // no request id
	dates := []string{"Fri, 27 Nov 2026 08:10:49 GMT", "Fri, 27 Nov 2026 08:10:50 GMT"}
	for i := range h.Ops { // kinds and dates that change and repeat from one op to the next
		h.Ops[i].Out.LastModified = dates[i/2%2]
	}
	for _, name := range []string{NoLostUpdatesName, VersionChainName} {
		r := h.Check(t, name)
		if r.Verdict != checks.Fail || len(r.Violations) == 0 {
			t.Fatalf("%s: %s, want the fork reported", name, r.Summary)
		}
		seen := 0
		for _, v := range r.Violations {
			for _, op := range v.Ops {
				if got, want := op.Out.RequestID, ids[op.Seq]; got != want {
					t.Errorf("%s: %s: op #%d request id %q, recorded %q", name, v.Kind, op.Seq, got, want)
				}
				if rec := h.Op(op.Seq); op.Kind != rec.Kind || op.Out.LastModified != rec.Out.LastModified || op.Out.ErrorCode != rec.Out.ErrorCode {
					t.Errorf("%s: %s: op #%d is %s %q %q, recorded %s %q %q", name, v.Kind, op.Seq, op.Kind, op.Out.LastModified,
						op.Out.ErrorCode, rec.Kind, rec.Out.LastModified, rec.Out.ErrorCode)
				}
				seen++
			}
		}
		if seen < 2 {
			t.Errorf("%s: excerpts hold %d operations, want both writes of the fork", name, seen)
		}
	}
}
