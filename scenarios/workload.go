package scenarios

import (
	"math"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// workloadName is a workload name; it becomes part of Azure resource names.
// Container names forbid "--" and a trailing "-".
var workloadName = regexp.MustCompile(`^[a-z0-9](-?[a-z0-9])*$`)

// workloads decodes the workloads list into s.Workloads.
func (d *decoder) workloads(n *yaml.Node, s *Scenario) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "workloads", "must be a list of workloads (mappings with name, kind, ...), got %s", describe(n))
		return
	}
	if len(n.Content) == 0 {
		d.errorf(n, "workloads", "must list at least one workload (mappings with name, kind, ...)")
		return
	}
	if len(n.Content) > maxWorkloads {
		d.errorf(n, "workloads", "lists %d workloads; a scenario has at most %d (split it into several scenarios, or give a workload more actors or keys)", len(n.Content), maxWorkloads)
		return
	}
	for i, item := range n.Content {
		item = resolve(item)
		path := index("workloads", i)
		d.at[path] = item
		var w Workload
		d.workload(item, path, &w)
		s.Workloads = append(s.Workloads, w)
	}
	d.uniqueNames(s)
	d.totals(n, s)
}

// workload decodes one workload. w.Kind and w.Executor are set only when
// valid, so later checks can rely on them.
func (d *decoder) workload(n *yaml.Node, path string, w *Workload) {
	w.Line = n.Line
	fs, ok := d.mapping(n, path, "workload fields ("+strings.Join(workloadFields, ", ")+")")
	if !ok {
		return
	}
	d.allow(fs, path, workloadFields, nil)
	at := func(name string) string { return join(path, name) }

	if p, ok := fs["name"]; ok {
		if v, ok := d.str(p.val, at("name")); ok {
			if len(v) > 40 || !workloadName.MatchString(v) {
				d.errorf(p.val, at("name"), "must be 1 to 40 lowercase letters, digits and single hyphens, starting and ending with a letter or digit (it becomes part of Azure container names), got %s", describe(p.val))
			} else {
				w.Name = v
			}
		}
	} else {
		d.errorf(n, at("name"), "required: a name unique in the scenario, 1 to 40 lowercase letters, digits and -")
	}
	if p, ok := fs["kind"]; ok {
		if v, ok := d.str(p.val, at("kind")); ok {
			if _, known := Kinds[v]; known {
				w.Kind = v
				w.Params = paramDefaults(v)
			} else {
				d.errorf(p.val, at("kind"), "%s", UnknownKind(v))
			}
		}
	} else {
		d.errorf(n, at("kind"), "required: a workload kind, e.g. blob.etag-counter; 'stormcheck kinds' lists all %d with their params", len(Kinds))
	}
	exec, execDefaulted := ExecutorClosed, true
	if p, ok := fs["executor"]; ok {
		execDefaulted = false
		exec, _ = d.str(p.val, at("executor"))
		if contains(executors, exec) {
			w.Executor = exec
		} else if p.val.ShortTag() == "!!str" {
			d.errorf(p.val, at("executor"), "must be one of closed (each actor starts its next operation when the last returns), open (operations arrive at a rate), got %q", exec)
		}
	}
	if !contains(executors, exec) {
		exec = "" // unknown: skip the checks that depend on it
	}
	if p, ok := fs["actors"]; ok {
		v, _ := d.whole(p.val, at("actors"), 1, maxActors)
		w.Actors = int(v)
	}
	d.rate(n, fs, path, exec, execDefaulted, w)
	if p, ok := fs["keys"]; ok {
		v, _ := d.whole(p.val, at("keys"), 1, maxKeys)
		w.Keys = int(v)
	}
	if p, ok := fs["duration"]; ok {
		w.Duration, _ = d.duration(p.val, at("duration"), 0, true)
		if _, staged := fs["stages"]; staged {
			d.errorf(p.key, at("duration"), "set duration or stages, not both: with stages the load phase lasts the sum of the stage durations")
		}
	}
	if p, ok := fs["iterations"]; ok {
		w.Iterations, _ = d.whole(p.val, at("iterations"), 1, math.MaxInt64)
	}
	if p, ok := fs["stages"]; ok {
		d.stages(p.val, at("stages"), exec, w)
	}
	if p, ok := fs["params"]; ok {
		d.params(p.val, at("params"), w)
	}
	if p, ok := fs["shard_keys"]; ok {
		if v, ok := d.str(p.val, at("shard_keys")); ok {
			if contains(shardKeyModes, v) {
				w.ShardKeys = v
			} else {
				d.errorf(p.val, at("shard_keys"), "must be divided (each shard of a sharded run owns a disjoint part of the keys) or shared (every shard races on every key), got %q", v)
			}
		}
	}
	d.bound(n, path)
}

// rate decodes the rate, which an open executor needs and a closed one
// refuses.
func (d *decoder) rate(n *yaml.Node, fs map[string]pair, path, exec string, defaulted bool, w *Workload) {
	p, set := fs["rate"]
	switch {
	case set && exec == ExecutorClosed:
		was := "this workload's executor is closed"
		if defaulted {
			was += ", the default"
		}
		d.errorf(p.key, join(path, "rate"), "rate applies to executor: open (%s); set executor: open, or remove rate", was)
	case set:
		w.Rate = d.arrivalRate(p.val, join(path, "rate"), true)
	case exec == ExecutorOpen:
		d.errorf(n, join(path, "rate"), "required for executor: open: the starting arrivals per second, a number > 0")
	}
}

// stages decodes the ramp stages. exec is "" when the executor is invalid.
func (d *decoder) stages(n *yaml.Node, path, exec string, w *Workload) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "must be a list of stages, each {duration: 10s, target: N}, got %s", describe(n))
		return
	}
	if len(n.Content) == 0 {
		d.errorf(n, path, "must list at least one stage {duration: 10s, target: N}; remove stages for a steady load")
		return
	}
	if len(n.Content) > maxStages {
		d.errorf(n, path, "lists %d stages; a workload has at most %d", len(n.Content), maxStages)
		return
	}
	w.Stages = []Stage{}
	for i, item := range n.Content {
		item = resolve(item)
		sp := index(path, i)
		fs, ok := d.mapping(item, sp, "stage fields (duration, target)")
		if !ok {
			continue
		}
		d.allow(fs, sp, stageFields, nil)
		var st Stage
		if p, ok := fs["duration"]; ok {
			st.Duration, _ = d.duration(p.val, join(sp, "duration"), 0, true)
		} else {
			d.errorf(item, join(sp, "duration"), "required: how long the stage ramps, a duration > 0 such as 10s")
		}
		if p, ok := fs["target"]; ok {
			st.Target = d.stageTarget(p.val, join(sp, "target"), exec)
		} else {
			d.errorf(item, join(sp, "target"), "required: the actors (executor closed) or arrivals per second (executor open) reached at the end of the stage")
		}
		w.Stages = append(w.Stages, st)
	}
}

// maxRate bounds an open loop's arrivals per second: more than one client
// machine can place (the pacer then only counts what it drops); shards
// spread a larger load.
const maxRate = 1e6

// arrivalRate reads arrivals per second, > 0 when exclusive, ≤ maxRate.
func (d *decoder) arrivalRate(n *yaml.Node, path string, exclusive bool) float64 {
	v, ok := d.number(n, path, 0, exclusive)
	if ok && v > maxRate {
		d.errorf(n, path, "must be at most %g arrivals per second (one machine's pacer; run shards for more), got %s", float64(maxRate), describe(n))
		return 0
	}
	return v
}

// stageTarget reads a stage target: whole actors for a closed executor,
// arrivals per second for an open one.
func (d *decoder) stageTarget(n *yaml.Node, path, exec string) float64 {
	if exec != ExecutorClosed {
		return d.arrivalRate(n, path, false)
	}
	v, ok := wholeValue(n)
	if !ok || v < 0 || v > maxActors {
		d.errorf(n, path, "must be a whole number of actors ≥ 0 and ≤ %d (executor closed ramps actors), got %s", maxActors, describe(n))
		return 0
	}
	return float64(v)
}
