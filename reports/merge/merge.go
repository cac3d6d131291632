package merge

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// This file holds what `stormcheck merge` decides before it reads a
// history: whether the shards' results directories belong to one run, and
// how each shard's times go onto the merged time line (rebased to the
// earliest shard's start, every real-time interval widened by the shard's
// clock-offset bound).

// ShardResults is one shard's results directory as the merge reads it.
type ShardResults struct {
	// Dir is the directory (as given, for messages); Summary its
	// summary.json; Scenario the bytes of its scenario.yaml.
	Dir      string
	Summary  *reports.Summary
	Scenario []byte
}

// CheckShards refuses shards that are not the whole of one sharded run:
// a directory that is no shard, different run ids, scenarios or shard
// counts, a duplicate or a missing shard. Each error names the directories
// (and shard numbers) at fault. It returns the shards ordered by index.
func CheckShards(shards []ShardResults) ([]ShardResults, error) {
	if len(shards) == 0 {
		return nil, errors.New("no shard results to merge")
	}
	var errs []string
	for _, s := range shards {
		if s.Summary.Shard == nil {
			errs = append(errs, fmt.Sprintf("%s: summary.json has no \"shard\": not one shard of a sharded run (stormcheck run --shard I/N writes it)", s.Dir))
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n"))
	}
	first := shards[0]
	fi := first.Summary.Shard
	for _, s := range shards[1:] {
		si := s.Summary.Shard
		switch {
		case si.RunID != fi.RunID:
			errs = append(errs, fmt.Sprintf("%s is run %q but %s is run %q: shards of different runs", s.Dir, si.RunID, first.Dir, fi.RunID))
		case s.Summary.Scenario != first.Summary.Scenario:
			errs = append(errs, fmt.Sprintf("%s ran scenario %q but %s ran %q", s.Dir, s.Summary.Scenario, first.Dir, first.Summary.Scenario))
		case string(s.Scenario) != string(first.Scenario):
			errs = append(errs, fmt.Sprintf("%s/scenario.yaml differs from %s/scenario.yaml: every shard must run the same scenario", s.Dir, first.Dir))
		case si.Count != fi.Count:
			errs = append(errs, fmt.Sprintf("%s is shard %d of %d but %s is shard %d of %d: different shard counts", s.Dir, si.Index, si.Count, first.Dir, fi.Index, fi.Count))
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n"))
	}
	n := fi.Count
	byIndex := map[int][]string{}
	for _, s := range shards {
		i := s.Summary.Shard.Index
		if i < 0 || i >= n {
			errs = append(errs, fmt.Sprintf("%s is shard %d of %d: no such shard", s.Dir, i, n))
			continue
		}
		byIndex[i] = append(byIndex[i], s.Dir)
	}
	var missing []string
	for i := range n {
		switch d := byIndex[i]; {
		case len(d) == 0:
			missing = append(missing, fmt.Sprint(i))
		case len(d) > 1:
			errs = append(errs, fmt.Sprintf("shard %d of %d given twice: %s", i, n, strings.Join(d, " and ")))
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Sprintf("run %s has %d shards; missing: shard %s (a merge needs every shard's results; a shard that died before it finished also left the run's resources on the target: stormcheck cleanup --run %s)", fi.RunID, n, strings.Join(missing, ", "), fi.RunID))
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n"))
	}
	out := slices.Clone(shards)
	sort.Slice(out, func(i, j int) bool { return out[i].Summary.Shard.Index < out[j].Summary.Shard.Index })
	return out, nil
}

// PlanShards puts the shards (ordered by index, as CheckShards returns
// them) on one time line: the origin is the earliest Started, each shard's
// Shift is its Started minus it, and Widened is how much every interval of
// the shard is widened on each side so that the clocks' offsets can never
// order two operations of different shards the wrong way.
//
// Each shard holds its clock offset against the service in an interval
// [Lo, Hi] (ClockOffset). Two shards i and j are then certainly at least
// max(Lo_i-Hi_j, Lo_j-Hi_i) apart, and at most max(Hi_i-Lo_j, Hi_j-Lo_i).
// The stated bound B (clock_offset_bound) is trusted unless a pair is
// certainly further apart than B: then the bound was exceeded, and the
// shard of the pair whose offset lies further from the others' (from the
// median of the estimates' midpoints) is widened by the pair's largest
// possible difference minus B (the other keeps at least B), and
// BeyondBound says by how much at least the bound was exceeded. Every
// shard is widened by at least B. Notes say, in words, every exceeded
// bound and every shard without an estimate.
func PlanShards(shards []ShardResults) (origin time.Time, plan []reports.MergedShard, notes []string) {
	for i, s := range shards {
		if i == 0 || s.Summary.Started.Before(origin) {
			origin = s.Summary.Started
		}
	}
	var bound time.Duration
	for _, s := range shards {
		bound = max(bound, s.Summary.Shard.ClockOffsetBound)
	}
	plan = make([]reports.MergedShard, len(shards))
	var mids []time.Duration
	for i, s := range shards {
		si := s.Summary.Shard
		plan[i] = reports.MergedShard{Dir: s.Dir, Index: si.Index, Count: si.Count, Started: s.Summary.Started,
			Shift: s.Summary.Started.Sub(origin), Bound: bound, Late: si.Late, ClockOffset: si.ClockOffset, Widened: bound,
			ExitCode: s.Summary.ExitCode, Interrupted: s.Summary.Interrupted, Error: s.Summary.Error}
		co := si.ClockOffset
		switch {
		case co.Samples == 0:
			notes = append(notes, fmt.Sprintf("shard %d has no clock offset estimate (no response carried a Date header): its clock is trusted to the stated bound %s", si.Index, bound))
		case co.Lo > co.Hi:
			// The intersection is empty: the clock moved during the run.
			plan[i].Widened = bound + co.Lo - co.Hi
			notes = append(notes, fmt.Sprintf("shard %d's clock offset estimates disagree by %s (its clock was stepped during the run?): its intervals are widened by %s", si.Index, co.Lo-co.Hi, plan[i].Widened))
		default:
			mids = append(mids, (co.Lo+co.Hi)/2)
		}
	}
	if len(mids) == 0 {
		return origin, plan, notes
	}
	slices.Sort(mids)
	median := mids[len(mids)/2]
	usable := func(c reports.ClockOffset) bool { return c.Samples > 0 && c.Lo <= c.Hi }
	dist := func(c reports.ClockOffset) time.Duration { return absDuration((c.Lo+c.Hi)/2 - median) }
	for i := range plan {
		for j := i + 1; j < len(plan); j++ {
			a, b := plan[i].ClockOffset, plan[j].ClockOffset
			if !usable(a) || !usable(b) {
				continue
			}
			least := max(0, a.Lo-b.Hi, b.Lo-a.Hi)
			if least <= bound {
				continue
			}
			most := max(a.Hi-b.Lo, b.Hi-a.Lo)
			off, other := i, j
			if dist(b) > dist(a) || dist(b) == dist(a) {
				off, other = j, i
			}
			p := &plan[off]
			p.Widened = max(p.Widened, most-bound)
			if least-bound > p.BeyondBound {
				p.BeyondBound, p.Versus = least-bound, plan[other].Index
			}
		}
	}
	var exceeded []string
	for _, p := range plan {
		if p.BeyondBound > 0 {
			exceeded = append(exceeded, fmt.Sprintf("clock offset bound exceeded: shard %d's clock is at least %s off shard %d's, %s beyond the stated bound %s (clock_offset_bound); its intervals are widened by %s instead, so the skew makes no false violation",
				p.Index, (p.BeyondBound+bound).Round(time.Millisecond), p.Versus, p.BeyondBound.Round(time.Millisecond), bound, p.Widened.Round(time.Millisecond)))
		}
	}
	return origin, plan, append(exceeded, notes...)
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
