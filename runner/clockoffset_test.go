package runner

import (
	"github.com/stormcheck/stormcheck/runner/workload"
	"net/http"
	"testing"
	"time"
)

// TestDateClockBoundsTheOffset: responses stamped by a service whose clock
// is off by a known amount give an interval that holds it, narrowed by
// every response; a missing or bad Date header adds nothing.
func TestDateClockBoundsTheOffset(t *testing.T) {
	zero := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, offset := range []time.Duration{0, 300 * time.Millisecond, -2 * time.Second, 5 * time.Minute} {
		var c workload.DateClock
		// Calls at 0.1 s steps, each 20 ms long, stamped midway by the
		// service, whose clock reads ours minus offset.
		for i := 0; i < 40; i++ {
			call := time.Duration(i) * 100 * time.Millisecond
			ret := call + 20*time.Millisecond
			stamped := zero.Add(call + 10*time.Millisecond - offset)
			resp := &http.Response{Header: http.Header{"Date": {stamped.Format(http.TimeFormat)}}}
			c.Observe(resp, int64(call), int64(ret), zero.UnixNano())
		}
		c.Observe(nil, 0, 1, zero.UnixNano())
		c.Observe(&http.Response{Header: http.Header{"Date": {"yesterday"}}}, 0, 1, zero.UnixNano())
		got := c.Offset()
		if got.Samples != 40 || !got.Contains(offset) {
			t.Errorf("offset %v: estimate %+v does not hold it", offset, got)
		}
		if got.Hi-got.Lo > 120*time.Millisecond { // the spacing plus one call
			t.Errorf("offset %v: estimate %+v is wider than the calls' spacing: the second boundaries should narrow it", offset, got)
		}
		var all workload.DateClock
		all.Merge(&workload.DateClock{})
		all.Merge(&c)
		if all.Offset() != got {
			t.Errorf("merge into empty: %+v, want %+v", all.Offset(), got)
		}
	}
}

// BenchmarkDateClockObserve is the estimate's cost per response on the
// hot path (the Date header is parsed once a second, as a real run sees
// it change).
func BenchmarkDateClockObserve(b *testing.B) {
	zero := time.Now()
	resp := &http.Response{Header: http.Header{"Date": {zero.UTC().Format(http.TimeFormat)}, "Etag": {`"0x1"`}, "X-Ms-Request-Id": {"x"}}}
	var c workload.DateClock
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Observe(resp, int64(i), int64(i)+1000, zero.UnixNano())
	}
}
