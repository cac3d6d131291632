package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCompareFlagsASlowedRun runs one scenario four times against managed
// Azurite, two at a time so that each compared pair shares the machine's
// conditions (other test packages load the same two cores): two unchanged
// runs side by side, then an unchanged run beside one through the
// emulation proxy adding 200 ms to every request (far above what a loaded
// CI machine adds by itself: this test must not flake). compare passes the
// first pair and flags the second (exit 6): latency and, the loop being
// closed, throughput regressed beyond the noise.
func TestCompareFlagsASlowedRun(t *testing.T) {
	tmp := t.TempDir()
	base := `name: bench
duration: 5s
compare: {tolerance: 0.5}
workloads:
  - {name: counter, kind: blob.lww, actors: 4, keys: 4}
`
	runPair := func(names ...string) map[string]string {
		dirs := map[string]string{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, name := range names {
			src := base
			if strings.HasPrefix(name, "slow") {
				src += "emulation: {delay: 200ms}\n"
			}
			sc := filepath.Join(tmp, name+".yaml")
			if err := os.WriteFile(sc, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(tmp, "r-"+name)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out, errOut bytes.Buffer
				if code := run([]string{"run", "--out", dir, "--progress", "none", sc}, &out, &errOut); code != exitOK {
					t.Errorf("run %s: exit %d\n%s\n%s", name, code, out.String(), errOut.String())
				}
				mu.Lock()
				dirs[name] = dir
				mu.Unlock()
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		return dirs
	}
	same := runPair("a", "b")
	var out, errOut bytes.Buffer
	if code := run([]string{"compare", same["a"], same["b"]}, &out, &errOut); code != exitOK {
		t.Errorf("two unchanged runs side by side: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	slowed := runPair("c", "slow")
	out.Reset()
	code := run([]string{"compare", slowed["c"], slowed["slow"]}, &out, &errOut)
	if code != exitRegression || strings.Count(out.String(), "REGRESSION") < 3 {
		t.Errorf("slowed run: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	t.Logf("compare of the slowed run:\n%s", out.String())
}
