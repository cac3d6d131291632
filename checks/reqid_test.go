package checks

import (
	"strconv"
	"testing"
)

// A request id kept as a ReqID reads back exactly as it was recorded, and
// one it cannot give back the same is not kept.
func TestReqIDKeepsExactly(t *testing.T) {
	kept := []string{"", "0", "7", "1483972", "9999999999999999999", strconv.FormatUint(1<<63, 10),
		"00000000-0000-4000-8000-000000000002", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}
	notKept := []string{"00", "007", "-1", "+1", "1a", " 1", "1 ", "18446744073709551615", "99999999999999999999",
		"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "req-1", "1.5", "１"}
	for _, s := range kept {
		var r ReqID
		if !r.Keep(s) {
			t.Errorf("Keep(%q) = false, want kept", s)
		} else if got := r.String(); got != s {
			t.Errorf("Keep(%q).String() = %q", s, got)
		}
	}
	for _, s := range notKept {
		r := ReqID{form: reqDecimal}
		if r.Keep(s) {
			t.Errorf("Keep(%q) = true (reads back %q), want not kept", s, r.String())
		}
		if got := r.String(); got != "" {
			t.Errorf("after Keep(%q) failed, String() = %q, want \"\"", s, got)
		}
	}
}

func FuzzReqID(f *testing.F) {
	for _, s := range []string{"", "0", "1483972", "00000000-0000-4000-8000-000000000002", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r ReqID
		if r.Keep(s) && r.String() != s {
			t.Fatalf("Keep(%q).String() = %q", s, r.String())
		}
	})
}
