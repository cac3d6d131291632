package throttle

import "time"

// ColdFraction is the share of its target rate a cold unit sustains when
// Options.Warmup is on (see the package documentation).
const ColdFraction = 0.2

// LoadWindow is how long one request keeps its unit "under load": a unit is
// under load from each request it receives (admitted or throttled) until
// LoadWindow later.
const LoadWindow = time.Second

// eps absorbs floating-point noise in token comparisons.
const eps = 1e-9

// bucket is one unit's token bucket with the warm-up model. Times are
// passed in, never read from the clock, so the arithmetic can be tested.
// It is not safe for concurrent use; the Proxy serialises access.
type bucket struct {
	target float64 // tokens per second at full warmth; > 0
	burst  float64 // bucket depth in seconds of the current rate; > 0
	warmup float64 // seconds of load from cold to target; 0 = off

	tokens float64   // may be negative: debt from amounts known only after the response
	warm   float64   // seconds of load accumulated, in [0, warmup]
	last   time.Time // the time the bucket was last brought forward to
	seen   time.Time // the last request's arrival; zero: none yet
}

// newBucket returns a full, cold bucket as of now.
func newBucket(target float64, burst, warmup time.Duration, now time.Time) *bucket {
	b := &bucket{target: target, burst: burst.Seconds(), warmup: warmup.Seconds(), last: now}
	b.tokens = b.depth()
	return b
}

// rateAt is the sustainable rate with warm seconds of load behind the unit.
func (b *bucket) rateAt(warm float64) float64 {
	if b.warmup <= 0 {
		return b.target
	}
	return b.target * (ColdFraction + (1-ColdFraction)*min(max(warm, 0), b.warmup)/b.warmup)
}

// rate is the current sustainable rate.
func (b *bucket) rate() float64 { return b.rateAt(b.warm) }

// depth is the current bucket depth: burst seconds of the current rate.
func (b *bucket) depth() float64 { return b.rate() * b.burst }

// advance brings the bucket forward to now: the unit was under load from
// b.last until b.seen+LoadWindow (warm grows one second per second, up to
// warmup), idle afterwards (warm shrinks one second per second, down to 0),
// and the tokens grow by the exact integral of the rate over the interval,
// capped at the depth reached at now.
func (b *bucket) advance(now time.Time) {
	dt := now.Sub(b.last).Seconds()
	if dt <= 0 {
		return
	}
	loaded := 0.0
	if !b.seen.IsZero() {
		loaded = min(max(b.seen.Add(LoadWindow).Sub(b.last).Seconds(), 0), dt)
	}
	var area float64
	if b.warmup > 0 {
		area = b.move(+1, loaded) + b.move(-1, dt-loaded)
	} else {
		area = b.target * dt
	}
	b.tokens = min(b.tokens+area, b.depth())
	b.last = now
}

// move changes warm by dir (+1 or -1) per second for d seconds, clamped to
// [0, warmup], and returns the integral of the rate over those d seconds
// (the rate is linear in warm, so each piece is a trapezoid or a rectangle).
func (b *bucket) move(dir, d float64) float64 {
	if d <= 0 {
		return 0
	}
	var moving float64
	if dir > 0 {
		moving = min(d, b.warmup-b.warm)
	} else {
		moving = min(d, b.warm)
	}
	moving = max(moving, 0)
	r0 := b.rate()
	b.warm = min(max(b.warm+dir*moving, 0), b.warmup)
	r1 := b.rate()
	return moving*(r0+r1)/2 + (d-moving)*r1
}

// touch records a request's arrival at now (call after advance(now)).
func (b *bucket) touch(now time.Time) {
	if now.After(b.seen) {
		b.seen = now
	}
}

// allows reports whether an amount n may be admitted: the bucket must hold
// min(n, depth) tokens, so that an amount larger than the whole bucket (a
// batch of 100 against a 50-deep bucket) is admitted from a full bucket and
// leaves it in debt, rather than never.
func (b *bucket) allows(n float64) bool {
	return b.tokens+eps >= min(n, b.depth())
}

// take debits n (the bucket may go negative).
func (b *bucket) take(n float64) { b.tokens -= n }

// settle corrects an earlier take once the real amount is known: delta is
// real minus reserved (negative refunds, never above the depth).
func (b *bucket) settle(delta float64) {
	b.tokens = min(b.tokens-delta, b.depth())
}

// fresh reports whether the bucket, brought forward to now, is
// indistinguishable from a new one (cold, full, idle), so forgetting it
// changes nothing.
func (b *bucket) fresh(now time.Time) bool {
	b.advance(now)
	idle := b.seen.IsZero() || !b.seen.Add(LoadWindow).After(now)
	return idle && b.warm <= eps && b.tokens+eps >= b.depth()
}
