package scenarios

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxFaults bounds the faults of one scenario.
const maxFaults = 100

// faultName is what a fault's name may be.
var faultName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,62}$`)

// faults decodes the faults list.
func (d *decoder) faults(n *yaml.Node, s *Scenario) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "faults", "must be a list of faults (each with kind and, optionally, at/every/for, services, ops, keys, fraction and the kind's parameters), got %s", describe(n))
		return
	}
	if len(n.Content) > maxFaults {
		d.errorf(n, "faults", "at most %d faults, got %d", maxFaults, len(n.Content))
		return
	}
	k := s.Target.Kind
	if k != "" && k != TargetAzurite && k != TargetSamba {
		d.errorf(n, "faults", "faults run in front of a managed Azurite or Samba only (target kind azurite or samba); this scenario's target is %s", k)
		return
	}
	names := map[string]int{}
	for i, item := range n.Content {
		f, ok := d.fault(resolve(item), index("faults", i), i)
		if !ok {
			continue
		}
		if first, dup := names[f.Name]; dup {
			d.errorf(item, index("faults", i)+".name", "duplicate fault name %q (first at line %d); give each fault its own name", f.Name, first)
			continue
		}
		names[f.Name] = f.Line
		if smb := IsSMBFault(f.Kind); smb != (k == TargetSamba) && (smb || f.Family() != "net") {
			at := item
			if v := d.at[index("faults", i)+".kind"]; v != nil {
				at = v
			}
			if smb {
				d.errorf(at, index("faults", i)+".kind", "kind %s rewrites SMB messages: it needs target kind samba", f.Kind)
			} else {
				d.errorf(at, index("faults", i)+".kind", "kind %s does not apply to SMB: on target kind samba use the net.* and broken.smb-* faults", f.Kind)
			}
			continue
		}
		if IsSMBFault(f.Kind) && (s.Target.Signing == SMBRequired || s.Target.Encryption == SMBRequired) {
			at := item
			if v := d.at[index("faults", i)+".kind"]; v != nil {
				at = v
			}
			d.errorf(at, index("faults", i)+".kind", "kind %s rewrites SMB messages, which a target that requires signing or encryption refuses (they are signed or sealed): leave target.signing and target.encryption at %s", f.Kind, SMBDefault)
			continue
		}
		// The services a fault names must be the target's: a samba target
		// has only the SMB stream (file), an Azurite none of it.
		if len(f.Services) > 0 {
			hasFile := slices.Contains(f.Services, "file")
			at := d.at[index("faults", i)+".services"]
			if at == nil {
				at = item
			}
			if k == TargetSamba && !hasFile {
				d.errorf(at, index("faults", i)+".services", "on target kind samba the only service is file (its SMB connections); %s names none of it, so the fault would never act", strings.Join(f.Services, ", "))
				continue
			}
			if k != TargetSamba && hasFile {
				d.errorf(at, index("faults", i)+".services", "file is the SMB stream of a samba target; Azurite has no file service, so the fault would never act there: leave it out")
				continue
			}
		}
		// A window is added to unreachable_after by the runner; a blackhole
		// on every connection for the whole run would still stop it.
		if silent := f.Kind == "net.blackhole" && f.Fraction == 1 && len(f.Services) == 0; silent && f.For == 0 {
			at := item
			if v := d.at[index("faults", i)+".for"]; v != nil {
				at = v
			}
			d.errorf(at, index("faults", i)+".for", "kind %s on every connection for the whole run silences the target, and the run would stop as unreachable: give it a window (at + for, or every + for), a fraction below 1 or services", f.Kind)
			continue
		}
		if s.Duration > 0 && f.For > 0 && f.At >= s.Duration {
			d.errorf(d.at[index("faults", i)+".at"], index("faults", i)+".at", "must be before the end of the run (duration %v), got %v: the fault would never act", s.Duration, f.At)
			continue
		}
		s.Faults = append(s.Faults, f)
	}
}

// fault decodes one fault at path.
func (d *decoder) fault(n *yaml.Node, p string, i int) (Fault, bool) {
	f := Fault{Line: n.Line, Fraction: 1}
	fs, ok := d.mapping(n, p, "fault settings ("+strings.Join(faultFields, ", ")+")")
	if !ok {
		return f, false
	}
	d.allow(fs, p, faultFields, nil)
	good := len(d.errs)
	kp, ok := fs["kind"]
	if !ok {
		d.errorf(n, p+".kind", "required: one of %s", describeFaultKinds())
		return f, false
	}
	f.Kind = d.enum(kp.val, p+".kind", FaultKindNames(), "one of "+describeFaultKinds())
	if f.Kind == "" {
		return f, false
	}
	spec := FaultKinds[f.Kind]
	f.Name = faultDefaultName(f.Kind, i)
	if q, ok := fs["name"]; ok {
		if v, ok := d.str(q.val, p+".name"); ok {
			if !faultName.MatchString(v) {
				d.errorf(q.val, p+".name", "must be 1 to 63 lowercase letters, digits, dots and hyphens, starting with a letter or digit, got %q", v)
			}
			f.Name = v
		}
	}
	d.window(fs, p, &f)
	// Scope.
	for _, name := range []string{"services", "ops", "keys", "fraction"} {
		q, ok := d.faultField(fs, p, name, f.Kind, spec.Scope, scopeHint(f.Kind, spec))
		if !ok {
			continue
		}
		switch name {
		case "services":
			f.Services = d.faultList(q.val, p+".services", FaultServices, "services")
		case "ops":
			f.Ops = d.faultList(q.val, p+".ops", FaultOps, "operation kinds")
		case "keys":
			items, ok := d.strList(q.val, p+".keys", "key patterns (glob, e.g. k0 or k*)")
			if ok && len(items) == 0 {
				d.errorf(q.val, p+".keys", "must list at least one key pattern; leave keys out to touch every key")
			}
			for _, it := range items {
				if _, err := pathMatchCheck(it.s); err != nil || it.s == "" {
					d.errorf(it.n, it.path, "must be a glob pattern (*, ?, [a-z]), got %q", it.s)
					continue
				}
				f.Keys = append(f.Keys, it.s)
			}
		case "fraction":
			v, ok := d.number(q.val, p+".fraction", 0, true)
			if ok && v > 1 {
				d.errorf(q.val, p+".fraction", "must be above 0 and at most 1 (the share of matching requests the fault touches), got %s", q.val.Value)
			} else if ok {
				f.Fraction = v
			}
		}
	}
	// Parameters.
	for _, name := range faultParams {
		if _, given := fs[name]; !given && contains(spec.Required, name) {
			d.errorf(n, p+"."+name, "required for kind %s: %s", f.Kind, faultParamHelp[name])
		}
		q, ok := d.faultField(fs, p, name, f.Kind, spec.Params, paramHint(f.Kind, spec))
		if !ok {
			continue
		}
		switch name {
		case "latency":
			f.Latency, _ = d.boundedDuration(q.val, p+".latency", time.Millisecond, 30*time.Second)
		case "jitter":
			f.Jitter, _ = d.boundedDuration(q.val, p+".jitter", 0, 30*time.Second)
		case "hold":
			f.Hold, _ = d.boundedDuration(q.val, p+".hold", time.Millisecond, 30*time.Second)
		case "gap":
			f.Gap, _ = d.boundedDuration(q.val, p+".gap", 0, 30*time.Second)
		case "rate":
			v, ok := d.number(q.val, p+".rate", 0, true)
			if ok && v > 1e7 {
				d.errorf(q.val, p+".rate", "must be at most 1e7 KB/s, got %s", q.val.Value)
			} else if ok {
				f.Rate = v
			}
		case "bytes":
			v, _ := d.whole(q.val, p+".bytes", 1, 1<<30)
			f.Bytes = int(v)
		}
	}
	if f.Kind == "http.reorder" && f.Hold == 0 {
		f.Hold = 500 * time.Millisecond
	}
	if f.Kind == "net.cut-response" && f.Bytes == 0 {
		f.Bytes = 256
	}
	if f.Latency > 0 && f.Jitter > f.Latency {
		d.errorf(fs["jitter"].val, p+".jitter", "must be at most latency (%v): jitter is spread on both sides of it, got %v", f.Latency, f.Jitter)
	}
	return f, len(d.errs) == good
}

// window decodes at, every and for.
func (d *decoder) window(fs map[string]pair, p string, f *Fault) {
	at, hasAt := fs["at"]
	every, hasEvery := fs["every"]
	dur, hasFor := fs["for"]
	if hasAt {
		f.At, _ = d.duration(at.val, p+".at", 0, false)
	}
	if hasEvery {
		f.Every, _ = d.duration(every.val, p+".every", 0, true)
	}
	if hasFor {
		f.For, _ = d.duration(dur.val, p+".for", 0, true)
	}
	switch {
	case (hasAt || hasEvery) && !hasFor:
		n := at
		if !hasAt {
			n = every
		}
		d.errorf(n.key, p+".for", "required with at or every: how long each window lasts, %s", durationUnits)
	case hasFor && !hasAt && !hasEvery:
		d.errorf(dur.key, p+".at", "required with for: when the window opens (at), or how often (every); leave all three out for the whole run")
	case hasEvery && hasFor && f.Every > 0 && f.For >= f.Every:
		d.errorf(dur.val, p+".for", "must be shorter than every (%v) so the fault also lifts, got %v", f.Every, f.For)
	}
	if strings.HasPrefix(f.Kind, "target.") && !hasFor {
		d.errorf(fs["kind"].val, p+".for", "kind %s needs a window (at + for, or every + for): the target must come back for the run to go on", f.Kind)
	}
	if strings.HasPrefix(f.Kind, "target.") && f.For > 60*time.Second {
		d.errorf(dur.val, p+".for", "must be at most 60s for kind %s (the target is down meanwhile), got %v", f.Kind, f.For)
	}
}

// faultList reads a non-empty list of distinct values from allowed.
func (d *decoder) faultList(n *yaml.Node, p string, allowed []string, what string) []string {
	items, ok := d.strList(n, p, what+" ("+strings.Join(allowed, ", ")+")")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, p, "must list at least one of %s; leave it out to touch all", strings.Join(allowed, ", "))
		return nil
	}
	var out []string
	seen := map[string]int{}
	for _, it := range items {
		switch first, dup := seen[it.s]; {
		case !contains(allowed, it.s):
			d.errorf(it.n, it.path, "must be one of %s, got %q%s", strings.Join(allowed, ", "), it.s, didYouMean(it.s, allowed))
		case dup:
			d.errorf(it.n, it.path, "duplicate %q (first at line %d); list each once", it.s, first)
		default:
			seen[it.s] = it.n.Line
			out = append(out, it.s)
		}
	}
	return out
}

// boundedDuration reads a duration in [min, max].
func (d *decoder) boundedDuration(n *yaml.Node, p string, lo, hi time.Duration) (time.Duration, bool) {
	v, ok := d.duration(n, p, lo, false)
	if ok && v > hi {
		d.errorf(n, p, "must be at most %v, got %s", hi, n.Value)
		return 0, false
	}
	return v, ok
}

// faultParamHelp says what each parameter is.
var faultParamHelp = map[string]string{
	"latency": "the latency added, a duration such as 100ms",
	"jitter":  "the spread around latency, a duration ≤ latency",
	"rate":    "the bandwidth cap in KB/s, a number > 0",
	"bytes":   "how many bytes of a connection's responses pass before it is cut, a whole number ≥ 1 (default 256)",
	"hold":    "how long a request is held back, a duration (default 500ms)",
	"gap":     "the time between the two deliveries, a duration (default 0)",
}

// faultField returns the fault's field name when it is given and kind
// takes it (takes); a field the kind does not take is an error naming what
// it takes (hint).
func (d *decoder) faultField(fs map[string]pair, p, name, kind string, takes []string, hint string) (pair, bool) {
	q, ok := fs[name]
	if !ok {
		return q, false
	}
	if !contains(takes, name) {
		d.errorf(q.key, p+"."+name, "does not apply to kind %s%s", kind, hint)
		return q, false
	}
	return q, true
}

func scopeHint(kind string, spec FaultKindSpec) string {
	if len(spec.Scope) == 0 {
		return " (it acts on the whole target: no scope)"
	}
	return "; it takes " + strings.Join(spec.Scope, ", ")
}

func paramHint(kind string, spec FaultKindSpec) string {
	if len(spec.Params) == 0 {
		return " (it takes no parameters)"
	}
	return "; it takes " + strings.Join(spec.Params, ", ")
}

// pathMatchCheck reports a malformed glob pattern.
func pathMatchCheck(pattern string) (bool, error) { return path.Match(pattern, "") }
