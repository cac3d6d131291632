package scenarios

import (
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// scenario decodes the top-level mapping root into s.
func (d *decoder) scenario(root *yaml.Node, s *Scenario) {
	fs := d.pairs(root, "")
	d.allow(fs, "", topFields, topHint)

	if p, ok := fs["name"]; ok {
		if v, ok := d.str(p.val, "name"); ok {
			if !scenarioName.MatchString(v) {
				d.errorf(p.val, "name", "must be %s, got %s", scenarioNameRule, describe(p.val))
			}
			s.Name = v
		}
	} else {
		d.errorf(root, "name", "required: the scenario's name, a non-empty string")
	}
	if p, ok := fs["description"]; ok {
		s.Description, _ = d.str(p.val, "description")
	}
	if p, ok := fs["seed"]; ok {
		s.Seed, _ = d.whole(p.val, "seed", math.MinInt64, math.MaxInt64)
	}
	if p, ok := fs["target"]; ok {
		d.target(p.val, &s.Target)
	}
	if p, ok := fs["duration"]; ok {
		s.Duration, _ = d.duration(p.val, "duration", 0, true)
	}
	if p, ok := fs["timeout"]; ok {
		s.Timeout, _ = d.duration(p.val, "timeout", 0, true)
	}
	if p, ok := fs["retry"]; ok {
		d.retry(p.val, &s.Retry)
	}
	if p, ok := fs["unreachable_after"]; ok {
		s.UnreachableAfter, _ = d.duration(p.val, "unreachable_after", time.Second, false)
	}
	if p, ok := fs["clock_offset_bound"]; ok {
		if v, ok := d.duration(p.val, "clock_offset_bound", 0, false); ok && v > maxClockOffsetBound {
			d.errorf(p.val, "clock_offset_bound", "must be a duration ≥ 0 and ≤ %v (the clocks of the shards' machines, synchronised by NTP, differ by less), got %s", maxClockOffsetBound, p.val.Value)
		} else if ok {
			s.ClockOffsetBound, s.clockOffsetBoundSet = v, true
		}
	}
	if p, ok := fs["workloads"]; ok {
		d.workloads(p.val, s)
	} else {
		d.errorf(root, "workloads", "required: a list of at least one workload (name, kind, ...)")
	}
	if p, ok := fs["checks"]; ok {
		d.checks(p.val, s)
	}
	if p, ok := fs["capacity"]; ok {
		d.capacity(p.val, &s.Capacity)
	}
	if p, ok := fs["emulation"]; ok {
		s.Emulation = d.emulation(p.val)
	}
	if p, ok := fs["thresholds"]; ok {
		d.thresholds(p.val, s)
	}
	if p, ok := fs["faults"]; ok {
		d.faults(p.val, s)
	}
	if p, ok := fs["compare"]; ok {
		d.compare(p.val, &s.Compare)
	}
}

// topHint explains top-level fields that are secrets or belong elsewhere.
func topHint(name string) string {
	if msg := secretHint(name); msg != "" {
		return msg
	}
	if contains(workloadFields, name) {
		return "unknown top-level field \"" + name + "\": it is a workload field; put it in an item of workloads"
	}
	if contains(retryFields, name) {
		return "unknown top-level field \"" + name + "\": it is a retry field; put it under retry"
	}
	if contains(targetFields, name) {
		return "unknown top-level field \"" + name + "\": it is a target field; put it under target"
	}
	return ""
}

// retry decodes the retry policy.
func (d *decoder) retry(n *yaml.Node, r *Retry) {
	fs, ok := d.mapping(n, "retry", "retry settings ("+strings.Join(retryFields, ", ")+")")
	if !ok {
		return
	}
	d.allow(fs, "retry", retryFields, nil)
	if p, ok := fs["max_attempts"]; ok {
		v, _ := d.whole(p.val, "retry.max_attempts", 1, 20)
		r.MaxAttempts = int(v)
	}
	baseOK, maxOK := false, false
	if p, ok := fs["base"]; ok {
		r.Base, baseOK = d.duration(p.val, "retry.base", 0, true)
	}
	if p, ok := fs["max"]; ok {
		r.Max, maxOK = d.duration(p.val, "retry.max", 0, true)
	}
	if p, ok := fs["max"]; ok && maxOK {
		switch _, set := fs["base"]; {
		case set && baseOK && r.Max < r.Base:
			d.errorf(p.val, "retry.max", "must be a duration ≥ retry.base (%v), got %v", r.Base, r.Max)
		case !set && r.Max < defaultRetryBase:
			d.errorf(p.val, "retry.max", "must be a duration ≥ retry.base (%v, the default), got %v", defaultRetryBase, r.Max)
		}
	}
	if p, ok := fs["on"]; ok {
		d.retryOn(p.val, r)
	}
}

// retryOn decodes retry.on: a non-empty list of distinct outcomes.
func (d *decoder) retryOn(n *yaml.Node, r *Retry) {
	allowed := strings.Join(retryOutcomes, ", ")
	items, ok := d.strList(n, "retry.on", "outcomes ("+allowed+")")
	if !ok {
		return
	}
	if len(n.Content) == 0 {
		d.errorf(n, "retry.on", "must list at least one of %s; to never retry, set max_attempts: 1", allowed)
		return
	}
	seen := map[string]*yaml.Node{}
	r.On = []string{}
	for _, it := range items {
		switch first, dup := seen[it.s]; {
		case !contains(retryOutcomes, it.s):
			d.errorf(it.n, it.path, "must be one of %s, got %q", allowed, it.s)
		case dup:
			d.errorf(it.n, it.path, "duplicate outcome %q (first at line %d); list each once", it.s, first.Line)
		default:
			seen[it.s] = it.n
			r.On = append(r.On, it.s)
		}
	}
}
