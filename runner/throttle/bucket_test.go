package throttle

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// try is one request of amount n at now: advance, touch, admit and take.
func try(b *bucket, now time.Time, n float64) bool {
	b.advance(now)
	b.touch(now)
	if !b.allows(n) {
		return false
	}
	b.take(n)
	return true
}

func TestBucketSteadyRate(t *testing.T) {
	b := newBucket(10, time.Second, 0, t0)
	for i := range 10 {
		if !try(b, t0, 1) {
			t.Fatalf("request %d of a full 10-deep bucket refused", i+1)
		}
	}
	if try(b, t0, 1) {
		t.Fatal("11th request at once admitted")
	}
	if !try(b, at(0.1), 1) {
		t.Fatal("100 ms at 10/s did not refill one token")
	}
	if try(b, at(0.1), 1) {
		t.Fatal("a second request in the same 100 ms admitted")
	}
	// Offered 100/s for 10 s: admits the depth plus 10/s.
	b = newBucket(10, time.Second, 0, t0)
	admitted := 0
	for i := range 1000 {
		if try(b, at(float64(i)*0.01), 1) {
			admitted++
		}
	}
	if admitted < 109 || admitted > 111 {
		t.Errorf("admitted %d of 1000 offered over 10 s at a 10/s limit, want 10+100", admitted)
	}
}

func TestBucketDebtAndSettle(t *testing.T) {
	b := newBucket(10, time.Second, 0, t0)
	if !try(b, t0, 30) {
		t.Fatal("an amount above the depth must pass from a full bucket")
	}
	if !near(b.tokens, -20) {
		t.Fatalf("tokens %v after taking 30 of 10, want -20", b.tokens)
	}
	if try(b, at(2), 1) {
		t.Error("admitted at 2 s with 0 tokens")
	}
	if !try(b, at(2.1), 1) {
		t.Error("refused at 2.1 s with 1 token")
	}
	// A reservation of 5 settled to 2 refunds 3; a refund never overfills.
	b = newBucket(10, time.Second, 0, t0)
	try(b, t0, 5)
	b.settle(2 - 5)
	if !near(b.tokens, 8) {
		t.Errorf("tokens %v after reserving 5 and settling 2, want 8", b.tokens)
	}
	b.settle(-100)
	if !near(b.tokens, 10) {
		t.Errorf("tokens %v after a large refund, want the depth 10", b.tokens)
	}
	// A query reserved 1 and returned 500: 499 in debt.
	b = newBucket(10, time.Second, 0, t0)
	try(b, t0, 1)
	b.settle(500 - 1)
	if !near(b.tokens, -490) {
		t.Errorf("tokens %v, want 10-1-499", b.tokens)
	}
}

func TestWarmupArithmetic(t *testing.T) {
	// Target 100/s, warm-up 10 s: cold rate 20/s. A deep bucket (100 s)
	// so that nothing is capped and the integral shows.
	b := newBucket(100, 100*time.Second, 10*time.Second, t0)
	if !near(b.rate(), 20) || !near(b.depth(), 2000) {
		t.Fatalf("cold rate %v depth %v, want 20 and 2000", b.rate(), b.depth())
	}
	b.tokens = 0
	for s := 0.0; s <= 5; s += 0.5 { // a request every 0.5 s: under load throughout
		b.advance(at(s))
		b.touch(at(s))
	}
	if !near(b.warm, 5) || !near(b.rate(), 60) {
		t.Fatalf("after 5 s of load: warm %v rate %v, want 5 and 60", b.warm, b.rate())
	}
	if want := 20*5 + 8*5*5/2.0; !near(b.tokens, want) { // ∫0..5 (20+8t) dt
		t.Fatalf("tokens %v after 5 s of load, want %v", b.tokens, want)
	}
	// Last request at 5 s: loaded until 6 s (warm 6, rate 68), then idle:
	// warm falls to 0 by 12 s (rate 20), and stays there to 20 s.
	b.advance(at(20))
	want := 200 + (60+68)/2.0 + 6*(68+20)/2.0 + 8*20
	if !near(b.warm, 0) || !near(b.tokens, want) {
		t.Fatalf("after idling to 20 s: warm %v tokens %v, want 0 and %v", b.warm, b.tokens, want)
	}
	// Warmth stops at the warm-up: 15 s of load reaches the target at 10 s.
	b = newBucket(100, 100*time.Second, 10*time.Second, t0)
	b.tokens = 0
	for s := 0.0; s <= 15; s += 0.25 {
		b.advance(at(s))
		b.touch(at(s))
	}
	if !near(b.warm, 10) || !near(b.rate(), 100) {
		t.Fatalf("after 15 s of load: warm %v rate %v, want 10 and 100", b.warm, b.rate())
	}
	if want := (20+100)/2.0*10 + 100*5; !near(b.tokens, want) {
		t.Fatalf("tokens %v, want %v", b.tokens, want)
	}
	// A gap shorter than the load window keeps the unit under load.
	b = newBucket(100, 100*time.Second, 10*time.Second, t0)
	b.touch(t0)
	b.advance(at(0.9))
	b.touch(at(0.9))
	b.advance(at(1.8))
	if !near(b.warm, 1.8) {
		t.Errorf("warm %v after requests 0.9 s apart, want 1.8", b.warm)
	}
	// Without warm-up the rate is the target from the start.
	if b := newBucket(100, time.Second, 0, t0); !near(b.rate(), 100) || !near(b.depth(), 100) {
		t.Errorf("no warm-up: rate %v depth %v", b.rate(), b.depth())
	}
}

// offer runs arrivals (seconds from t0) through a bucket and returns the
// first refusal time (-1: none) and the number refused.
func offer(b *bucket, arrivals []float64) (first float64, refused int) {
	first = -1
	for _, s := range arrivals {
		if !try(b, at(s), 1) {
			refused++
			if first < 0 {
				first = s
			}
		}
	}
	return first, refused
}

func TestRampThrottlesLaterThanBurstModel(t *testing.T) {
	const target, warm = 100.0, 5.0
	// Burst: 100/s from the first instant, for 7 s.
	var burst []float64
	for i := range 700 {
		burst = append(burst, float64(i)/target)
	}
	// Ramp: the rate grows linearly from 0 to 100/s over the warm-up
	// (arrival k at sqrt(k/10) s, since 10 t² arrive by t), then holds
	// 100/s for 2 s.
	var ramp []float64
	for k := 0; ; k++ {
		s := math.Sqrt(float64(k) / (target / warm / 2 * 1))
		if s > warm {
			break
		}
		ramp = append(ramp, s)
	}
	for i := 1; i <= 200; i++ {
		ramp = append(ramp, warm+float64(i)/target)
	}
	bf, br := offer(newBucket(target, time.Second, warm*time.Second, t0), burst)
	rf, rr := offer(newBucket(target, time.Second, warm*time.Second, t0), ramp)
	t.Logf("burst: first refusal at %.3f s, %d of %d refused; ramp: first %.3f s, %d of %d refused", bf, br, len(burst), rf, rr, len(ramp))
	// The cold bucket (20 tokens, 20/s) empties at 0.8 net per arrival:
	// about 0.25 s into the burst.
	if bf < 0 || bf > 0.3 {
		t.Errorf("burst first refused at %v s, want within 0.3 s", bf)
	}
	if rr != 0 {
		t.Errorf("a ramp over the warm-up was refused %d times (first at %v s), want none", rr, rf)
	}
	// The same final rate without warm-up: the burst passes entirely.
	if f, n := offer(newBucket(target, time.Second, 0, t0), burst); n != 0 {
		t.Errorf("without warm-up, a burst at the target was refused %d times (first %v s)", n, f)
	}
	// A unit that warmed and then idled for longer than it warmed is cold
	// again: a burst after the idle throttles as early as the first one.
	b := newBucket(target, time.Second, warm*time.Second, t0)
	offer(b, ramp)
	var again []float64
	for i := range 100 {
		again = append(again, 30+float64(i)/target)
	}
	if f, _ := offer(b, again); f < 0 || f > 30.3 {
		t.Errorf("burst after 23 s idle first refused at %v s, want within 0.3 s of 30 s", f)
	}
}

func TestBucketFresh(t *testing.T) {
	b := newBucket(10, time.Second, 5*time.Second, t0)
	if !b.fresh(t0) {
		t.Fatal("a new bucket is not fresh")
	}
	try(b, t0, 1)
	if b.fresh(at(0.5)) {
		t.Fatal("fresh while under load")
	}
	if b.fresh(at(1.5)) {
		t.Fatal("fresh while still warm")
	}
	// Loaded until 1 s (warm 1), cold by 2 s, refilled long before 10 s.
	if !b.fresh(at(10)) {
		t.Fatalf("not fresh after idling: warm %v tokens %v depth %v", b.warm, b.tokens, b.depth())
	}
}
