package checks_test

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/batch"
	"github.com/stormcheck/stormcheck/checks/checkstest"
	"github.com/stormcheck/stormcheck/checks/consistency"
)

// TestUnknownWritesResolved: the checks that judge writes of unknown outcome
// say what became of each: applied (its value was read), not applied (its
// base ETag was consumed by another applied write), or still open.
func TestUnknownWritesResolved(t *testing.T) {
	h := checkstest.NewHist()
	h.Setup("k", `"e0"`)
	h.Put(0, "k", `"e0"`, 1, "a-1", checks.OK, `"e1"`)
	h.Put(1, "k", `"e0"`, 1, "b-1", checks.Unknown, "") // base e0 consumed by a-1: not applied
	h.Put(0, "k", `"e1"`, 2, "a-2", checks.Unknown, "") // read below: applied
	h.Get(1, "k", 2, "a-2", `"e2"`)
	h.Put(1, "k", `"e2"`, 3, "b-3", checks.Unknown, "") // nothing settles it
	h.Final("k", 2, "a-2", `"e2"`)
	want := checks.UnknownWrites{Applied: 1, NotApplied: 1, Open: 1}
	for _, name := range []string{consistency.NoLostUpdatesName, consistency.VersionChainName} {
		c, _ := checks.New(name)
		r := checks.Run(h.Ops, c)[0]
		if r.Verdict == checks.Fail {
			t.Fatalf("%s: %s", name, r.Summary)
		}
		if r.Unknown == nil || *r.Unknown != want {
			t.Errorf("%s: unknown writes %+v, want %+v (%s)", name, r.Unknown, want, r.Summary)
		}
	}
}

// TestUnknownBatchesResolved: batch-atomicity counts an unknown batch read
// on some row as applied and leaves one read nowhere open.
func TestUnknownBatchesResolved(t *testing.T) {
	const p = "p1"
	h := checkstest.NewHist()
	h.TbSetup(p, "a", "b", "c", "d")
	h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
	h.TbBatch(1, p, "b2", checkstest.TbRows("c", "d"), checks.Unknown, 100, 110)
	h.TbFinal(p, "a=b1", "b=b1", "c=setup-p1", "d=setup-p1")
	r := h.Check(t, batch.BatchAtomicityName)
	want := checks.UnknownWrites{Applied: 1, Open: 1}
	if r.Verdict != checks.Pass || r.Unknown == nil || *r.Unknown != want {
		t.Errorf("%s, unknown batches %+v, want pass with %+v (%s)", r.Verdict, r.Unknown, want, r.Summary)
	}
}
