package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareFlagsASlowedRun runs one scenario three times against managed
// Azurite: twice unchanged, once through the emulation proxy adding 20 ms
// to every request. compare passes the two unchanged runs and flags the
// slowed one (exit 6), latency regressed beyond the noise.
func TestCompareFlagsASlowedRun(t *testing.T) {
	tmp := t.TempDir()
	base := `name: bench
duration: 5s
compare: {tolerance: 0.3}
workloads:
  - {name: counter, kind: blob.lww, executor: open, rate: 100, actors: 16, keys: 4}
`
	runs := map[string]string{"a": base, "b": base, "slow": base + "emulation: {delay: 20ms}\n"}
	dirs := map[string]string{}
	for name, src := range runs {
		sc := filepath.Join(tmp, name+".yaml")
		if err := os.WriteFile(sc, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "r-"+name)
		var out, errOut bytes.Buffer
		if code := run([]string{"run", "--out", dir, "--progress", "none", sc}, &out, &errOut); code != exitOK {
			t.Fatalf("run %s: exit %d\n%s\n%s", name, code, out.String(), errOut.String())
		}
		dirs[name] = dir
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"compare", dirs["a"], dirs["b"]}, &out, &errOut); code != exitOK {
		t.Errorf("two unchanged runs: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	code := run([]string{"compare", dirs["a"], dirs["slow"]}, &out, &errOut)
	if code != exitRegression || strings.Count(out.String(), "REGRESSION") < 4 {
		t.Errorf("slowed run: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	t.Logf("compare of the slowed run:\n%s", out.String())
}
