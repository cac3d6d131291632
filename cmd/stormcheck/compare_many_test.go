package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareSeveralRunsASide: four runs a side (known distributions) are
// judged with the rank test: a run 10 times slower is a regression at
// p = 2/70 (exit 6), draws of one run are not (exit 0); two runs a side
// are too few for the test to call anything (exit 0, saying so); one run a
// side says its verdict is weak.
func TestCompareSeveralRunsASide(t *testing.T) {
	tmp := t.TempDir()
	var base, same, slow []string
	for i := 0; i < 4; i++ {
		base = append(base, syntheticRun(t, filepath.Join(tmp, fmt.Sprintf("base%d", i)), uint64(1+i), 200, 20))
		same = append(same, syntheticRun(t, filepath.Join(tmp, fmt.Sprintf("same%d", i)), uint64(11+i), 200, 20))
		slow = append(slow, syntheticRun(t, filepath.Join(tmp, fmt.Sprintf("slow%d", i)), uint64(21+i), 100, 220))
	}
	cmp := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"compare"}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	sides := func(a, b []string) []string { return append(append(append([]string(nil), a...), "--"), b...) }

	code, out := cmp(sides(base, slow)...)
	if code != exitRegression || !strings.Contains(out, "4 base runs against 4 new") || !strings.Contains(out, "p=0.029") || !strings.Contains(out, "result: 8 regressions") {
		t.Errorf("4 a side, slowed: exit %d, want %d with 8 regressions at p=0.029\n%s", code, exitRegression, out)
	}
	if code, out := cmp(sides(base, same)...); code != exitOK || strings.Contains(out, "REGRESSION") {
		t.Errorf("4 a side, draws of one run: exit %d\n%s", code, out)
	}
	if code, out := cmp(sides(base[:2], slow[:2])...); code != exitOK || strings.Contains(out, "REGRESSION") ||
		!strings.Contains(out, "2 and 2 runs are too few for the rank test") || !strings.Contains(out, "too thin") {
		t.Errorf("2 a side: exit %d, want %d saying the runs are too few\n%s", code, exitOK, out)
	}
	if code, out := cmp(base[0], slow[0]); code != exitRegression || !strings.Contains(out, "weak verdict: one run a side") {
		t.Errorf("1 a side: exit %d, want %d with a weak verdict\n%s", code, exitRegression, out)
	}
	for _, args := range [][]string{{base[0], "--"}, {"--", base[0]}, {base[0], base[1], base[2]}} {
		if code, out := cmp(args...); code != exitUsage {
			t.Errorf("compare %v: exit %d, want %d\n%s", args, code, exitUsage, out)
		}
	}
}
