package checks

import "testing"

// TestUnknownWritesResolved: the checks that judge writes of unknown outcome
// say what became of each: applied (its value was read), not applied (its
// base ETag was consumed by another applied write), or still open.
func TestUnknownWritesResolved(t *testing.T) {
	h := newHist()
	h.setup("k", `"e0"`)
	h.put(0, "k", `"e0"`, 1, "a-1", OK, `"e1"`)
	h.put(1, "k", `"e0"`, 1, "b-1", Unknown, "") // base e0 consumed by a-1: not applied
	h.put(0, "k", `"e1"`, 2, "a-2", Unknown, "") // read below: applied
	h.get(1, "k", 2, "a-2", `"e2"`)
	h.put(1, "k", `"e2"`, 3, "b-3", Unknown, "") // nothing settles it
	h.final("k", 2, "a-2", `"e2"`)
	want := UnknownWrites{Applied: 1, NotApplied: 1, Open: 1}
	for _, name := range []string{NoLostUpdatesName, VersionChainName} {
		c, _ := New(name)
		r := Run(h.ops, c)[0]
		if r.Verdict == Fail {
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
	h := newHist()
	h.tbSetup(p, "a", "b", "c", "d")
	h.tbBatch(0, p, "b1", tbRows("a", "b"), Unknown, 100, 110)
	h.tbBatch(1, p, "b2", tbRows("c", "d"), Unknown, 100, 110)
	h.tbFinal(p, "a=b1", "b=b1", "c=setup-p1", "d=setup-p1")
	r := h.check(t, BatchAtomicityName)
	want := UnknownWrites{Applied: 1, Open: 1}
	if r.Verdict != Pass || r.Unknown == nil || *r.Unknown != want {
		t.Errorf("%s, unknown batches %+v, want pass with %+v (%s)", r.Verdict, r.Unknown, want, r.Summary)
	}
}
