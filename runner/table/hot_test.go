package table

import (
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

func TestHotPartitionKeyPatterns(t *testing.T) {
	e := &workload.Env{Name: "w", Keys: 10, Params: scenarios.Params{ZipfS: 1.5}}
	a := e.Actor(0)
	now := time.Date(2026, 11, 22, 8, 30, 15, 0, time.UTC)
	if got := hotPartition(scenarios.KeySingle, a, "a0-1", now); got != "hot" {
		t.Errorf("single: %q", got)
	}
	if got := hotPartition(scenarios.KeyAppend, a, "a0-1", now); got != "20261122083015" {
		t.Errorf("append: %q", got)
	}
	// Prepend: later seconds sort lower.
	if p1, p2 := hotPartition(scenarios.KeyPrepend, a, "x", now), hotPartition(scenarios.KeyPrepend, a, "x", now.Add(time.Second)); !(p2 < p1) || len(p1) != len(p2) {
		t.Errorf("prepend: %q then %q, want decreasing keys of one length", p1, p2)
	}
	h := hotPartition(scenarios.KeyHashPrefix, a, "a0-1", now)
	if len(h) != len("000-20261122083015") || !strings.HasSuffix(h, "-20261122083015") {
		t.Errorf("hash-prefix: %q", h)
	}
	prefixes := map[string]bool{}
	counts := map[string]int{}
	for i := 0; i < 2000; i++ {
		prefixes[hotPartition(scenarios.KeyHashPrefix, a, "a0-"+string(rune('a'+i%26))+string(rune('a'+i/26)), now)[:3]] = true
		counts[hotPartition(scenarios.KeyZipf, a, "", now)]++
		if u := hotPartition(scenarios.KeyUniform, a, "", now); u < "k0" || u > "k9" {
			t.Fatalf("uniform outside k0..k9: %q", u)
		}
	}
	if len(prefixes) < 500 {
		t.Errorf("hash-prefix used %d of 1000 prefixes over 2000 keys", len(prefixes))
	}
	if !(counts["k0"] > counts["k1"] && counts["k1"] > counts["k5"] && counts["k0"] > 2000/3) {
		t.Errorf("zipf(1.5) over 10 keys: %v; want k0 hottest and falling", counts)
	}
}
