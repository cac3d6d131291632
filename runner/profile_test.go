package runner

import (
	"math"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

func TestProfileConstantRate(t *testing.T) {
	p := NewProfile(100, nil, 10*time.Second)
	for _, n := range []int64{0, 1, 50, 999} {
		got, ok := p.ArrivalTime(n)
		want := time.Duration(n) * 10 * time.Millisecond
		if !ok || absDur(got-want) > time.Microsecond {
			t.Errorf("arrival %d at %v (ok %v), want %v", n, got, ok, want)
		}
	}
	if _, ok := p.ArrivalTime(1000); ok {
		t.Error("arrival 1000 of 100/s over 10s must fall after the end")
	}
}

func TestProfileRampCountsArrivals(t *testing.T) {
	// 50/s ramping to 400/s over 10s, then 400/s for 10s:
	// (50+400)/2*10 + 400*10 = 2250 + 4000 = 6250 arrivals.
	p := NewProfile(50, []scenarios.Stage{{Duration: 10 * time.Second, Target: 400}, {Duration: 10 * time.Second, Target: 400}}, 0)
	var n int64
	prev := time.Duration(-1)
	for {
		at, ok := p.ArrivalTime(n)
		if !ok {
			break
		}
		if at < prev {
			t.Fatalf("arrival %d at %v before arrival %d at %v", n, at, n-1, prev)
		}
		prev = at
		n++
	}
	if n < 6249 || n > 6251 {
		t.Errorf("got %d arrivals, want 6250±1", n)
	}
	// Half the ramp's arrivals come late in the ramp: at t=5s the rate is 225/s
	// and (50+225)/2*5 = 687.5 arrivals have been scheduled.
	at, _ := p.ArrivalTime(687)
	if math.Abs(at.Seconds()-5) > 0.01 {
		t.Errorf("arrival 687 at %v, want about 5s", at)
	}
	if got := p.At(5 * time.Second); math.Abs(got-225) > 1e-9 {
		t.Errorf("level at 5s = %v, want 225", got)
	}
	if got := p.At(time.Hour); got != 400 {
		t.Errorf("level after end = %v, want 400", got)
	}
}

func TestProfileZeroRateStageIsSkipped(t *testing.T) {
	p := NewProfile(0, []scenarios.Stage{{Duration: time.Second, Target: 0}, {Duration: time.Second, Target: 100}}, 0)
	at, ok := p.ArrivalTime(1)
	if !ok || at <= time.Second {
		t.Errorf("first arrivals must come in the second stage, got %v %v", at, ok)
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// TestArrivalsInvertsArrivalTime: the arrivals due by the time arrival n is
// due are n+1, on a steady rate and on ramps up and down.
func TestArrivalsInvertsArrivalTime(t *testing.T) {
	for _, p := range []Profile{
		NewProfile(100, nil, 10*time.Second),
		NewProfile(10, []scenarios.Stage{{Duration: 2 * time.Second, Target: 200}, {Duration: 3 * time.Second, Target: 20}}, 0),
	} {
		if p.Arrivals(-1) != 0 || p.Arrivals(0) != 1 {
			t.Errorf("arrivals by -1ns %d, by 0 %d; want 0 and 1", p.Arrivals(-1), p.Arrivals(0))
		}
		for n := int64(0); ; n++ {
			at, ok := p.ArrivalTime(n)
			if !ok {
				if got := p.Arrivals(p.End()); got != n && got != n+1 {
					t.Errorf("%d arrivals by the end, the schedule holds %d", got, n)
				}
				break
			}
			// float rounding may put the boundary a nanosecond either side
			if got := p.Arrivals(at + 1); got < n || got > n+2 {
				t.Fatalf("arrival %d due at %v: %d due by then", n, at, got)
			}
		}
	}
}
