package runner_test

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestCapacityLineOfASambaRun: a run against the managed Samba names only
// the Azure Files targets (per file, per share), never the Blob, Table or
// Queue ones nor the account's; an Azurite run's line is unchanged.
func TestCapacityLineOfASambaRun(t *testing.T) {
	load := func(target string) string {
		sc, err := scenarios.Parse("", []byte("name: t\nduration: 1s\ntarget: {kind: "+target+"}\nworkloads: [{name: a, kind: files.share-modes}]\n"))
		if target == scenarios.TargetAzurite {
			sc, err = scenarios.Parse("", []byte("name: t\nduration: 1s\nworkloads: [{name: a, kind: blob.etag-counter}]\n"))
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(reports.CapacityParts(runner.CapacityInfo(sc)), ", ")
	}
	if got, want := load(scenarios.TargetSamba), "file 1000/s, share 20000/s"; got != want {
		t.Errorf("samba run: capacity line targets %q, want %q", got, want)
	}
	if got := load(scenarios.TargetAzurite); !strings.HasPrefix(got, "blob 500/s, partition 2000/s, queue 2000/s, account 20000/s") || strings.Contains(got, "file") {
		t.Errorf("azurite run: capacity line targets %q", got)
	}
}
