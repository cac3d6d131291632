package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/internal/synthhist"
	"github.com/stormcheck/stormcheck/runner"
)

// TestCheckWithoutChecksSaysSo: a saved run whose scenario names no checks
// gets a line saying nothing
// was judged and why, not the header alone; exit 0.
func TestCheckWithoutChecksSaysSo(t *testing.T) {
	for name, c := range map[string]struct{ checks, want string }{
		"none": {"checks: []", "names no checks"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sc := strings.Replace(synthhist.Scenario, "checks: [no-lost-updates, version-chain, linearizable, single-winner]", c.checks, 1)
			if sc == synthhist.Scenario {
				t.Fatal("the synthetic scenario's checks line moved")
			}
			if err := os.WriteFile(filepath.Join(dir, runner.ScenarioFile), []byte(sc), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := synthhist.WriteFile(filepath.Join(dir, runner.HistoryFile), synthhist.Config{Ops: 2_000, CounterKeys: 10, LWWKeys: 5, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			if code := run([]string{"check", dir}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), c.want) || !strings.Contains(out.String(), "nothing was judged") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
			}
		})
	}
}
