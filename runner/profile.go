package runner

import (
	"math"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// Profile is a piecewise-linear load level over time: Start at t=0, then a
// linear ramp to each stage's target over the stage's duration. Without
// stages the level stays Start until End. It is a pure function of elapsed
// time, so schedules are absolute and never drift (k6's lesson).
type Profile struct {
	segs []segment
}

type segment struct {
	from, to time.Duration // elapsed time span
	r0, r1   float64       // level at from and to
	area0    float64       // integral of the level before from (in level·seconds)
}

// NewProfile builds a profile; end bounds a stage-less profile (0: open-ended).
func NewProfile(start float64, stages []scenarios.Stage, end time.Duration) Profile {
	var p Profile
	if len(stages) == 0 {
		if end <= 0 {
			end = time.Duration(math.MaxInt64)
		}
		p.segs = []segment{{from: 0, to: end, r0: start, r1: start}}
		return p
	}
	t, lvl, area := time.Duration(0), start, 0.0
	for _, s := range stages {
		seg := segment{from: t, to: t + s.Duration, r0: lvl, r1: s.Target, area0: area}
		area += (seg.r0 + seg.r1) / 2 * s.Duration.Seconds()
		p.segs = append(p.segs, seg)
		t, lvl = seg.to, s.Target
	}
	return p
}

// End is when the profile stops.
func (p Profile) End() time.Duration { return p.segs[len(p.segs)-1].to }

// At is the level at elapsed time t (the last level after the end).
func (p Profile) At(t time.Duration) float64 {
	for _, s := range p.segs {
		if t < s.to {
			if t <= s.from {
				return s.r0
			}
			f := float64(t-s.from) / float64(s.to-s.from)
			return s.r0 + (s.r1-s.r0)*f
		}
	}
	return p.segs[len(p.segs)-1].r1
}

// ArrivalTime is when arrival n (from 0) is due if the level is a rate per
// second: the time at which the integral of the rate reaches n. ok is false
// when arrival n falls after the end of the profile.
func (p Profile) ArrivalTime(n int64) (t time.Duration, ok bool) {
	x := float64(n)
	for _, s := range p.segs {
		d := (s.to - s.from).Seconds()
		area := (s.r0 + s.r1) / 2 * d
		if x > s.area0+area || (s.r0 == 0 && s.r1 == 0) {
			continue
		}
		rem := x - s.area0
		var tau float64
		if s.r1 == s.r0 {
			tau = rem / s.r0
		} else {
			a := (s.r1 - s.r0) / (2 * d)
			tau = (-s.r0 + math.Sqrt(s.r0*s.r0+4*a*rem)) / (2 * a)
		}
		at := s.from + time.Duration(tau*float64(time.Second))
		if at >= s.to {
			continue
		}
		return at, true
	}
	return 0, false
}

// Arrivals is how many arrivals are due by elapsed time t (arrival 0 is due
// at 0): one more than the integral of the rate up to t, rounded down, and
// never more than the profile holds. It is ArrivalTime's inverse, used to
// count in one step the arrivals that fall due while the backlog is full.
func (p Profile) Arrivals(t time.Duration) int64 {
	if t < 0 {
		return 0
	}
	var area float64
	for _, s := range p.segs {
		if t >= s.to {
			area = s.area0 + (s.r0+s.r1)/2*(s.to-s.from).Seconds()
			continue
		}
		d := (t - s.from).Seconds()
		if d < 0 {
			break
		}
		lvl := p.At(t)
		area = s.area0 + (s.r0+lvl)/2*d
		break
	}
	if area >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(area) + 1
}
