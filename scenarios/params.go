package scenarios

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// paramNames are every param stormcheck can read, in documentation order.
// A kind accepts the subset its KindSpec.Params names.
var paramNames = []string{"payload_bytes", "lease_duration", "hold", "acquire_retry", "read_fraction", "conditional_reads", "misbehave", "blocks", "date_conditions",
	"merge_fraction", "force_fraction", "props", "replace_fraction", "batch_size", "rows", "fail_fraction", "key_pattern", "projection",
	"producers", "messages_per_get", "visibility", "update_fraction", "crash_fraction", "release_fraction", "zipf_s"}

// KeyPatterns are the key_pattern values: how keys (partitions, queues)
// are named, after the checklist's partition naming advice.
var KeyPatterns = []string{KeySingle, KeyUniform, KeyZipf, KeyAppend, KeyPrepend, KeyHashPrefix}

// Key patterns.
const (
	// KeySingle: every operation hits one key (one hot partition or queue).
	KeySingle = "single"
	// KeyUniform: keys k0..kN-1 (the workload's keys) chosen uniformly.
	KeyUniform = "uniform"
	// KeyZipf: keys k0..kN-1 chosen with a Zipf distribution (exponent
	// zipf_s): k0 the hottest, a few keys take most of the load.
	KeyZipf = "zipf"
	// KeyAppend: time-ordered names (yyyymmddhhmmss): all traffic goes to
	// the newest key, the checklist's append-only pattern.
	KeyAppend = "append"
	// KeyPrepend: reverse time-ordered names: all traffic goes to the
	// lowest key, the prepend-only pattern.
	KeyPrepend = "prepend"
	// KeyHashPrefix: the time-ordered name prefixed with a 3-digit hash,
	// which the checklist recommends to spread the load.
	KeyHashPrefix = "hash-prefix"
)

// Bounds of the table and queue params.
const (
	maxBatch         = 100  // operations in one entity group transaction
	maxRows          = 1000 // one query page
	maxProps         = 32   // properties of a merge-vs-replace entity
	maxPerGet        = 32   // Get Messages numofmessages
	maxVisibility    = 7 * 24 * time.Hour
	maxQueueMsgLen   = 48 << 10  // a queue message's text: 64 KiB per message, with room for the harness's own text
	maxEntityPayload = 512 << 10 // padding of a table entity: 1 MiB per entity, counted in UTF-16
)

// AcquireRetries are the acquire_retry values: how a lease-mutex actor that
// lost the race (409 LeaseAlreadyPresent) tries again.
var AcquireRetries = []string{AcquireBackoff, AcquireHammer}

// Acquire retries.
const (
	// AcquireBackoff: wait a random share of the lease duration first,
	// longer with each loss in a row, as a client polling for a lock does.
	AcquireBackoff = "backoff"
	// AcquireHammer: try again at once (a stress test of the service).
	AcquireHammer = "hammer"
)

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
			b, _ := d.whole(v, fp, 0, payloadLimit(w.Kind))
			p.PayloadBytes = int(b)
		case "lease_duration":
			p.LeaseDuration = d.leaseDuration(v, fp)
		case "hold":
			p.Hold, _ = d.duration(v, fp, 0, false)
		case "acquire_retry":
			p.AcquireRetry = d.enum(v, fp, AcquireRetries, "backoff (wait a random share of the lease duration, longer after each loss in a row) or hammer (try again at once)")
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
		case "merge_fraction":
			p.MergeFraction = d.fraction(v, fp, false)
		case "force_fraction":
			p.ForceFraction = d.fraction(v, fp, true)
		case "props":
			b, _ := d.whole(v, fp, 1, maxProps)
			p.Props = int(b)
		case "replace_fraction":
			p.ReplaceFraction = d.fraction(v, fp, true)
		case "batch_size":
			b, _ := d.whole(v, fp, 1, maxBatch)
			p.BatchSize = int(b)
		case "rows":
			b, _ := d.whole(v, fp, 1, maxRows)
			p.Rows = int(b)
		case "fail_fraction":
			p.FailFraction = d.fraction(v, fp, false)
		case "key_pattern":
			p.KeyPattern = d.enum(v, fp, KeyPatterns, "single (one key), uniform (the workload's keys), zipf (the workload's keys, Zipf-distributed with exponent zipf_s), append (time-ordered names), prepend (reverse time order) or hash-prefix (a 3-digit hash before the time)")
		case "zipf_s":
			z, ok := d.number(v, fp, 1, true)
			if ok && z > 10 {
				d.errorf(v, fp, "must be above 1 and at most 10 (the Zipf exponent: 1.1 is mildly skewed, 3 very), got %s", v.Value)
			} else {
				p.ZipfS = z
			}
		case "projection":
			p.Projection = d.fraction(v, fp, false)
		case "producers":
			b, _ := d.whole(v, fp, 1, maxActors)
			p.Producers = int(b)
		case "messages_per_get":
			b, _ := d.whole(v, fp, 1, maxPerGet)
			p.MessagesPerGet = int(b)
		case "visibility":
			p.Visibility = d.wholeSeconds(v, fp, time.Second, maxVisibility)
		case "update_fraction":
			p.UpdateFraction = d.fraction(v, fp, false)
		case "crash_fraction":
			p.CrashFraction = d.fraction(v, fp, false)
		case "release_fraction":
			p.ReleaseFraction = d.fraction(v, fp, false)
		default:
			d.errorf(fs[name].key, fp, "param %q is listed in Kinds but stormcheck cannot read it (a bug in stormcheck)", name)
		}
	}
}

// payloadLimit is the largest payload_bytes a kind can write: a table
// entity holds at most 1 MiB, a queue message 64 KiB.
func payloadLimit(kind string) int64 {
	switch {
	case strings.HasPrefix(kind, "table."):
		return maxEntityPayload
	case strings.HasPrefix(kind, "queue."):
		return maxQueueMsgLen
	}
	return maxPayloadBytes
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

// enum reads one of allowed; what describes them for the message.
func (d *decoder) enum(n *yaml.Node, path string, allowed []string, what string) string {
	v, ok := d.str(n, path)
	if !ok {
		return ""
	}
	if !contains(allowed, v) {
		d.errorf(n, path, "must be %s, got %q%s", what, v, didYouMean(v, allowed))
		return ""
	}
	return v
}

// wholeSeconds reads a duration in whole seconds from min to max (a queue
// visibility timeout).
func (d *decoder) wholeSeconds(n *yaml.Node, path string, min, max time.Duration) time.Duration {
	v, ok := d.duration(n, path, min, false)
	if !ok {
		return 0
	}
	switch {
	case v > max:
		d.errorf(n, path, "must be at most %v (the service's limit), got %s", max, n.Value)
	case v%time.Second != 0:
		d.errorf(n, path, "must be whole seconds (the service counts in seconds), got %s", n.Value)
	default:
		return v
	}
	return 0
}
