package scenarios

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Overrides are command-line changes to a scenario, applied to the file's
// YAML before it is loaded, so the loader validates them as it validates
// the file: an error names the flag that set the value, the field and what
// is allowed.
type Overrides struct {
	// Actors sets every workload's actors (0: unchanged). A closed loop's
	// stage targets (actor counts) are scaled by the same factor, at least
	// 1 each.
	Actors int
	// Rate sets every open-loop workload's starting rate (0: unchanged);
	// its stage targets (rates) are scaled by the same factor. With no
	// open-loop workload it is an error.
	Rate float64
	// Duration sets the load phase (0: unchanged): the scenario's duration,
	// every workload's own duration, and for a workload with stages every
	// stage's duration scaled by the same factor so that they add up to it.
	Duration time.Duration
	// Set holds WORKLOAD.FIELD=VALUE assignments: FIELD is a workload
	// field (actors, rate, keys, duration, iterations, executor, shard_keys) or a param
	// of its kind; WORKLOAD may be * for every workload. VALUE is read as
	// YAML, as in the file.
	Set []string
}

// Empty reports whether o changes nothing.
func (o Overrides) Empty() bool {
	return o.Actors == 0 && o.Rate == 0 && o.Duration == 0 && len(o.Set) == 0
}

// LoadWithOverrides reads the scenario file at path, applies o and loads
// the result (see Parse). The notes say what o changed beyond setting a
// value (stages scaled). The scenario's Source is the file with the
// overrides written in (and a comment listing them), so the results
// directory keeps what ran.
func LoadWithOverrides(path string, o Overrides) (*Scenario, []string, error) {
	if o.Empty() {
		s, err := Load(path)
		return s, nil, err
	}
	data, err := ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	root, perr := parseYAML(path, data)
	if perr != nil {
		return nil, nil, ErrorList{perr}
	}
	ap := &applier{origin: map[*yaml.Node]string{}}
	ap.apply(root, o)
	if len(ap.errs) > 0 {
		return nil, nil, ap.errs
	}
	d := &decoder{file: path, at: map[string]*yaml.Node{}, origin: ap.origin}
	var src bytes.Buffer
	src.WriteString("# " + path + " run with " + strings.Join(ap.flags, " ") + "\n")
	enc := yaml.NewEncoder(&src)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, nil, fmt.Errorf("%s: writing the scenario with its overrides: %w", path, err)
	}
	s := &Scenario{File: path, Source: src.Bytes()}
	d.scenario(root, s)
	if len(d.errs) > 0 {
		d.errs.SortByPosition()
		return nil, nil, d.errs
	}
	d.defaults(s)
	return s, ap.notes, nil
}

// applier edits a scenario's YAML tree; origin names the flag behind every
// node it wrote, for the loader's errors.
type applier struct {
	origin map[*yaml.Node]string
	flags  []string
	notes  []string
	errs   ErrorList
}

func (a *applier) fail(flag, msg string) {
	a.errs = append(a.errs, &Error{File: flag, Msg: msg})
}

// scalar is a new YAML scalar for value as written on the command line
// (its tag resolved as YAML would: 4 is an int, 15s a string).
func (a *applier) scalar(flag, value string) *yaml.Node {
	var doc yaml.Node
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	if err := yaml.Unmarshal([]byte(value), &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.ScalarNode {
		n = doc.Content[0]
		n.Line, n.Column = 0, 0
	}
	a.origin[n] = flag
	return n
}

// set sets field of mapping m to v: the mapping's own entry is replaced (a
// merged one is shadowed, as the loader lets a written field win). A new
// key carries v's flag too.
func (a *applier) set(m *yaml.Node, field string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == field {
			m.Content[i+1] = v
			return
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: field}
	if flag, ok := a.origin[v]; ok {
		a.origin[k] = flag
	}
	m.Content = append(m.Content, k, v)
}

// get returns the value of field in mapping m (aliases resolved), or nil.
func get(m *yaml.Node, field string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == field {
			return resolve(m.Content[i+1])
		}
	}
	return nil
}

// workloadNodes returns the workload mappings of the scenario (nil when
// the file's workloads are not a list of mappings: the loader says so).
func workloadNodes(root *yaml.Node) []*yaml.Node {
	ws := get(root, "workloads")
	if ws == nil || ws.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, w := range ws.Content {
		if w = resolve(w); w.Kind == yaml.MappingNode {
			out = append(out, w)
		}
	}
	return out
}

func (a *applier) apply(root *yaml.Node, o Overrides) {
	ws := workloadNodes(root)
	if o.Duration != 0 {
		flag := "--duration " + durText(o.Duration)
		a.flags = append(a.flags, flag)
		if o.Duration < 0 {
			a.fail(flag, "must be a positive duration, e.g. 5s")
		} else {
			a.set(root, "duration", a.scalar(flag, durText(o.Duration)))
			for _, w := range ws {
				if get(w, "duration") != nil {
					a.set(w, "duration", a.scalar(flag, durText(o.Duration)))
				}
				if st := get(w, "stages"); st != nil && st.Kind == yaml.SequenceNode {
					a.scaleStages(flag, w, st, o.Duration)
				}
			}
		}
	}
	if o.Actors != 0 {
		flag := "--actors " + strconv.Itoa(o.Actors)
		a.flags = append(a.flags, flag)
		for _, w := range ws {
			if !isOpen(w) {
				old := 1.0
				if n := get(w, "actors"); n != nil {
					old, _ = strconv.ParseFloat(n.Value, 64)
				}
				a.scaleTargets(flag, w, float64(o.Actors)/old, true)
			}
			a.set(w, "actors", a.scalar(flag, strconv.Itoa(o.Actors)))
		}
	}
	if o.Rate != 0 {
		flag := "--rate " + num(o.Rate)
		a.flags = append(a.flags, flag)
		open := 0
		for _, w := range ws {
			if !isOpen(w) {
				continue
			}
			open++
			if n := get(w, "rate"); n != nil {
				if old, err := strconv.ParseFloat(n.Value, 64); err == nil && old > 0 {
					a.scaleTargets(flag, w, o.Rate/old, false)
				}
			}
			a.set(w, "rate", a.scalar(flag, num(o.Rate)))
		}
		if open == 0 {
			a.fail(flag, "no workload has executor: open, and a closed loop has no rate (set its actors with --actors)")
		}
	}
	for _, s := range o.Set {
		a.setField(ws, s)
	}
}

func isOpen(w *yaml.Node) bool {
	e := get(w, "executor")
	return e != nil && e.Value == ExecutorOpen
}

func nodeName(w *yaml.Node) string {
	if n := get(w, "name"); n != nil {
		return n.Value
	}
	return "?"
}

// scaleStages scales the stage durations of workload w so they add up to
// total.
func (a *applier) scaleStages(flag string, w, stages *yaml.Node, total time.Duration) {
	var sum time.Duration
	var ds []*yaml.Node
	for _, st := range stages.Content {
		st = resolve(st)
		if st.Kind != yaml.MappingNode {
			return // the loader reports it
		}
		n := get(st, "duration")
		if n == nil {
			return
		}
		v, msg := durationValue(n)
		if msg != "" || v <= 0 {
			return
		}
		sum += v
		ds = append(ds, st)
	}
	if sum <= 0 {
		return
	}
	f := float64(total) / float64(sum)
	var done time.Duration
	for i, st := range ds {
		v, _ := durationValue(get(st, "duration"))
		nv := time.Duration(math.Round(float64(v)*f/float64(time.Millisecond))) * time.Millisecond
		if i == len(ds)-1 {
			nv = total - done // the stages add up to total exactly
		}
		nv = max(nv, time.Millisecond)
		done += nv
		a.set(st, "duration", a.scalar(flag, nv.String()))
	}
	a.notes = append(a.notes, fmt.Sprintf("%s: workload %s: its %d stages scaled by %.3g (each stage's duration, same shape) to last %s in all, not %s",
		flag, nodeName(w), len(ds), f, durText(total), durText(sum)))
}

// scaleTargets multiplies the stage targets of workload w by f (actor
// counts are whole numbers, at least 1).
func (a *applier) scaleTargets(flag string, w *yaml.Node, f float64, whole bool) {
	stages := get(w, "stages")
	if stages == nil || stages.Kind != yaml.SequenceNode || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) || f == 1 {
		return
	}
	n := 0
	for _, st := range stages.Content {
		st = resolve(st)
		if st.Kind != yaml.MappingNode {
			continue
		}
		t := get(st, "target")
		if t == nil {
			continue
		}
		v, err := strconv.ParseFloat(t.Value, 64)
		if err != nil {
			continue // the loader reports it
		}
		nv := v * f
		text := num(math.Round(nv*1000) / 1000)
		if whole {
			text = strconv.Itoa(max(1, int(math.Round(nv))))
		}
		a.set(st, "target", a.scalar(flag, text))
		n++
	}
	if n > 0 {
		what := "rates"
		if whole {
			what = "actor counts"
		}
		a.notes = append(a.notes, fmt.Sprintf("%s: workload %s: its %d stage targets (%s) scaled by %.3g, same shape", flag, nodeName(w), n, what, f))
	}
}

// setField applies one --set WORKLOAD.FIELD=VALUE.
func (a *applier) setField(ws []*yaml.Node, s string) {
	flag := "--set " + s
	a.flags = append(a.flags, flag)
	lhs, value, ok := strings.Cut(s, "=")
	wname, field, ok2 := strings.Cut(lhs, ".")
	if !ok || !ok2 || wname == "" || field == "" {
		a.fail(flag, "want WORKLOAD.FIELD=VALUE, e.g. --set counter.payload_bytes=1024 (* for every workload)")
		return
	}
	var names []string
	matched := 0
	for _, w := range ws {
		name := nodeName(w)
		names = append(names, name)
		if wname != "*" && wname != name {
			continue
		}
		matched++
		switch {
		case contains([]string{"actors", "rate", "keys", "duration", "iterations", "executor", "shard_keys"}, field):
			a.set(w, field, a.scalar(flag, value))
		default:
			// A param: the loader says whether the kind takes it.
			p := get(w, "params")
			if p == nil || p.Kind != yaml.MappingNode {
				p = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				a.origin[p] = flag
				a.set(w, "params", p)
			}
			a.set(p, field, a.scalar(flag, value))
		}
	}
	if matched == 0 {
		msg := fmt.Sprintf("no workload named %q%s; the scenario's workloads are %s (or * for all)", wname, didYouMean(wname, names), strings.Join(names, ", "))
		a.fail(flag, msg)
	}
}
