package checks

import (
	"fmt"
	"testing"
)

func TestKindOf(t *testing.T) {
	for msg, want := range map[string]string{
		"lost update: final value 3 is below counter 4":               "lost update",
		"ETag/value mismatch: #3 read \"x\" with ETag 0x1":            "ETag/value mismatch",
		"409 on an absent blob: #3 was refused":                       "409 on an absent blob",
		"decided by version-chain (too large for porcupine): fork: x": "decided by version-chain (too large for porcupine)",
		"#12 (blob.lease.acquire) was answered ok":                    OtherKind,
		"no colon at all":             OtherKind,
		"x: too short a kind":         OtherKind,
		"a kind with a \"quote\": no": OtherKind,
	} {
		if got := KindOf(msg); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", msg, got, want)
		}
	}
	// Every violation is counted by kind, also past the listed ones.
	var v Violations
	for i := range MaxViolations + 5 {
		v.Add("k", fmt.Sprintf("lost update: #%d", i))
	}
	v.AddKind("two holders", "k", "#1 and #2 held")
	r := v.Result("c", "s")
	if r.Total != MaxViolations+6 || len(r.Violations) != MaxViolations || r.Kinds["lost update"] != MaxViolations+5 || r.Kinds["two holders"] != 1 {
		t.Errorf("total %d, %d listed, kinds %v", r.Total, len(r.Violations), r.Kinds)
	}
}
