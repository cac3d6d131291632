package compare

import (
	"math"
	"sort"
)

// MannWhitney is the two-sided p-value of the Mann-Whitney U test (the
// rank test benchstat uses) that xs and ys come from one distribution:
// exact for samples without ties, else the normal approximation with the
// tie correction.
func MannWhitney(xs, ys []float64) float64 {
	m, n := len(xs), len(ys)
	if m == 0 || n == 0 {
		return 1
	}
	type obs struct {
		v float64
		x bool
	}
	all := make([]obs, 0, m+n)
	for _, v := range xs {
		all = append(all, obs{v, true})
	}
	for _, v := range ys {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	var rx, tie float64 // rank sum of xs; sum of t^3-t over tied groups
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // midrank of positions i..j-1 (1-based)
		for k := i; k < j; k++ {
			if all[k].x {
				rx += rank
			}
		}
		t := float64(j - i)
		tie += t*t*t - t
		i = j
	}
	u := rx - float64(m*(m+1))/2
	umin := math.Min(u, float64(m*n)-u)
	if tie == 0 && m+n <= 60 {
		return math.Min(1, 2*exactCDF(m, n, umin))
	}
	mu := float64(m*n) / 2
	N := float64(m + n)
	sigma := math.Sqrt(float64(m*n) / 12 * (N + 1 - tie/(N*(N-1))))
	if sigma == 0 {
		return 1
	}
	z := (umin - mu + 0.5) / sigma // continuity correction
	return math.Min(1, 2*0.5*math.Erfc(-z/math.Sqrt2))
}

// exactCDF is P(U <= u) for samples of m and n without ties: the number
// of orderings with U <= u over all C(m+n, m).
func exactCDF(m, n int, u float64) float64 {
	// f[i][j][k]: orderings of i xs and j ys with U = k (U counts the
	// (x, y) pairs with y before x).
	maxU := m * n
	prev := make([][]float64, n+1)
	for j := range prev {
		prev[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // no xs: U = 0
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		for j := 0; j <= n; j++ {
			cur[j] = make([]float64, maxU+1)
			for k := 0; k <= maxU; k++ {
				// the largest element is an x (beaten by all j ys) or a y
				if k >= j {
					cur[j][k] += prev[j][k-j]
				}
				if j > 0 {
					cur[j][k] += cur[j-1][k]
				}
			}
		}
		prev = cur
	}
	var le, total float64
	for k, c := range prev[n] {
		total += c
		if float64(k) <= u {
			le += c
		}
	}
	return le / total
}

// MinP is the smallest p-value MannWhitney can give for samples of m and
// n: with too few runs, no difference can be significant.
func MinP(m, n int) float64 { return math.Min(1, 2*exactCDF(m, n, 0)) }
