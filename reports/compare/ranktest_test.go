package compare

import (
	"math"
	"testing"
)

// TestMannWhitney checks the rank test against values computed by hand
// and by R's wilcox.test (exact, two-sided).
func TestMannWhitney(t *testing.T) {
	for _, c := range []struct {
		xs, ys []float64
		p      float64
	}{
		// Disjoint samples of 3 and 3: U = 0, P = 2/C(6,3) = 0.1.
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		// 4 and 4 disjoint: 2/70.
		{[]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		// wilcox.test(c(1,3,5,7), c(2,4,6,8)): W = 6, p-value = 0.6857.
		{[]float64{1, 3, 5, 7}, []float64{2, 4, 6, 8}, 0.6857},
		// One against one: never below 1.
		{[]float64{1}, []float64{2}, 1},
	} {
		if p := MannWhitney(c.xs, c.ys); math.Abs(p-c.p) > 1e-3 {
			t.Errorf("MannWhitney(%v, %v) = %.4f, want %.4f", c.xs, c.ys, p, c.p)
		}
	}
	if p := MinP(2, 2); p < 0.3 {
		t.Errorf("MinP(2, 2) = %v: two runs a side cannot reach 0.05", p)
	}
	// Ties: identical samples are not different.
	if p := MannWhitney([]float64{5, 5, 5}, []float64{5, 5, 5}); p < 0.99 {
		t.Errorf("identical samples: p = %v", p)
	}
}
