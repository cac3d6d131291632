package workload

import (
	"net/http"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// dateClock is one actor's estimate of its wall clock minus the service's,
// from the Date header of every response (see reports.ClockOffset). It
// costs a header lookup, a string compare and two compares per response:
// the header is parsed only when its text changes (once a second).
// Times are ns since the run's time zero (Recorder.Now).
type DateClock struct {
	date string // the last Date header parsed
	at   int64  // its instant, ns since time zero (the service's clock)
	// lo, hi bound the offset; n counts the responses that gave a sample.
	lo, hi int64
	n      int64
}

// observe takes one response whose call went out at call and returned at
// ret; zero is the wall time (UnixNano) of time zero, by this machine's
// clock.
func (c *DateClock) Observe(resp *http.Response, call, ret, zero int64) {
	if resp == nil {
		return
	}
	d := first(resp.Header["Date"]) // net/http keys a response's headers canonically
	if d == "" {
		return
	}
	if d != c.date {
		t, err := http.ParseTime(d)
		if err != nil {
			return
		}
		c.date, c.at = d, t.UnixNano()-zero
	}
	// The service stamped D at some instant in [call, ret] of ours, and D
	// is its clock truncated to the second.
	lo, hi := call-(c.at+int64(time.Second)), ret-c.at
	if c.n == 0 || lo > c.lo {
		c.lo = lo
	}
	if c.n == 0 || hi < c.hi {
		c.hi = hi
	}
	c.n++
}

// merge intersects another actor's estimate into c.
func (c *DateClock) Merge(o *DateClock) {
	if o.n == 0 {
		return
	}
	if c.n == 0 {
		c.lo, c.hi = o.lo, o.hi
	} else {
		c.lo, c.hi = max(c.lo, o.lo), min(c.hi, o.hi)
	}
	c.n += o.n
}

func (c *DateClock) Offset() reports.ClockOffset {
	return reports.ClockOffset{Lo: time.Duration(c.lo), Hi: time.Duration(c.hi), Samples: c.n}
}
