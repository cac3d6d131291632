package scenarios

import (
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// paramNames are every param stormcheck can read, in documentation order.
// A kind accepts the subset its KindSpec.Params names.
var paramNames = []string{"payload_bytes", "lease_duration", "hold", "read_fraction", "conditional_reads", "misbehave", "blocks", "date_conditions"}

// Lease duration bounds, as the Blob service enforces them.
const (
	minLease = 15 * time.Second
	maxLease = 60 * time.Second
)

// leaseAllowed is what every lease_duration error says.
const leaseAllowed = "a lease lasts 15s to 60s, or infinite"

// params decodes a workload's params, accepting only those of its kind
// (any known param when the kind itself is invalid).
func (d *decoder) params(n *yaml.Node, path string, w *Workload) {
	fs, ok := d.mapping(n, path, "the kind's params")
	if !ok {
		return
	}
	allowed, hint := paramNames, func(name string) string {
		return "unknown param \"" + name + "\"" + didYouMean(name, paramNames) + "; params are " + strings.Join(paramNames, ", ") + ", each accepted by some kinds"
	}
	if spec, known := Kinds[w.Kind]; known {
		allowed = spec.Params
		takes := "takes no params"
		if len(allowed) > 0 {
			takes = "takes only " + strings.Join(allowed, ", ")
		}
		hint = func(name string) string {
			if contains(paramNames, name) {
				return "kind " + w.Kind + " has no param \"" + name + "\"; it " + takes
			}
			return "unknown param \"" + name + "\"" + didYouMean(name, allowed) + "; kind " + w.Kind + " " + takes
		}
	}
	d.allow(fs, path, allowed, hint)
	for _, name := range sortedByPosition(fs) {
		if !contains(allowed, name) {
			continue
		}
		p, fp := &w.Params, join(path, name)
		switch v := fs[name].val; name {
		case "payload_bytes":
			b, _ := d.whole(v, fp, 0, maxPayloadBytes)
			p.PayloadBytes = int(b)
		case "lease_duration":
			p.LeaseDuration = d.leaseDuration(v, fp)
		case "hold":
			p.Hold, _ = d.duration(v, fp, 0, false)
		case "read_fraction":
			p.ReadFraction = d.fraction(v, fp, true)
		case "conditional_reads":
			p.ConditionalReads = d.fraction(v, fp, false)
		case "date_conditions":
			p.DateConditions = d.fraction(v, fp, false)
		case "misbehave":
			p.Misbehave = d.fraction(v, fp, false)
		case "blocks":
			b, _ := d.whole(v, fp, 1, maxBlocks)
			p.Blocks = int(b)
		default:
			d.errorf(fs[name].key, fp, "param %q is listed in Kinds but stormcheck cannot read it (a bug in stormcheck)", name)
		}
	}
}

// maxBlocks bounds the blocks one commit stages (Put Block List takes up to
// 50,000; a load test needs far fewer).
const maxBlocks = 100

// fraction reads a share from 0 to 1 (above 0 when positive is set).
func (d *decoder) fraction(n *yaml.Node, path string, positive bool) float64 {
	f, ok := d.number(n, path, 0, positive)
	if ok && f > 1 {
		low := "0"
		if positive {
			low = "above 0"
		}
		d.errorf(n, path, "must be a fraction from %s to 1, got %s", low, n.Value)
		return 0
	}
	return f
}

// leaseDuration reads a lease duration: whole seconds from 15s to 60s, or
// the string infinite.
func (d *decoder) leaseDuration(n *yaml.Node, path string) time.Duration {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == "infinite" {
		return Infinite
	}
	tag := n.ShortTag()
	v, msg := durationValue(n)
	switch {
	case n.Kind == yaml.ScalarNode && (tag == "!!int" || tag == "!!float"):
		d.errorf(n, path, "%s; got %s, a number without a unit (write e.g. %ss)", leaseAllowed, n.Value, n.Value)
	case msg != "":
		d.errorf(n, path, "%s; got %s", leaseAllowed, describe(n))
	case v < minLease || v > maxLease:
		d.errorf(n, path, "%s; got %s", leaseAllowed, n.Value)
	case v%time.Second != 0:
		d.errorf(n, path, "%s, in whole seconds; got %s", leaseAllowed, n.Value)
	default:
		return v
	}
	return 0
}
