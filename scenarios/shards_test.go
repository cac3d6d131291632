package scenarios

import "testing"

func TestShardPart(t *testing.T) {
	for _, tc := range []struct{ total, n int }{{32, 4}, {10, 3}, {3, 4}, {1, 1}, {7, 7}, {100, 7}, {0, 3}} {
		sum, prev := 0, tc.total
		for i := range tc.n {
			p := ShardPart(tc.total, tc.n, i)
			if p > prev || (i > 0 && prev-p > 1) || p < tc.total/tc.n || p > tc.total/tc.n+1 {
				t.Errorf("%d over %d: shard %d gets %d after %d", tc.total, tc.n, i, p, prev)
			}
			sum, prev = sum+p, p
		}
		if sum != tc.total {
			t.Errorf("%d over %d shards: parts sum to %d", tc.total, tc.n, sum)
		}
	}
	if got := ShardPart(10, 3, 0); got != 4 {
		t.Errorf("10 over 3: shard 0 gets %d, want 4 (the remainder goes first)", got)
	}
}
