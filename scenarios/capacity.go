package scenarios

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The checklist's targets (shared/seeds/004): per blob 500 requests/s and
// 60 MiB/s (blob_bandwidth), per table partition 2,000 entities/s, per
// queue 2,000 messages/s, per account 20,000 requests/s, and a US locally
// redundant account's 20 Gbps ingress and 30 Gbps egress.
var checklistTargets = map[string]float64{"blob": 500, "partition": 2000, "queue": 2000, "account": 20000,
	"blob_bandwidth": 60, "ingress": 20, "egress": 30}

var (
	capacityFields  = []string{"profile", "scale", "targets"}
	targetUnits     = []string{"blob", "partition", "queue", "account", "blob_bandwidth", "ingress", "egress"}
	emulationFields = []string{"throttle", "burst", "warmup", "delay"}
	compareFields   = []string{"tolerance"}
)

// capacity decodes the capacity profile: a built-in profile, scaled, with
// overrides.
func (d *decoder) capacity(n *yaml.Node, c *Capacity) {
	fs, ok := d.mapping(n, "capacity", "capacity settings ("+strings.Join(capacityFields, ", ")+")")
	if !ok {
		return
	}
	d.allow(fs, "capacity", capacityFields, nil)
	if p, ok := fs["profile"]; ok {
		c.Profile = d.enum(p.val, "capacity.profile", []string{ProfileChecklist}, "checklist (the scalability checklist's targets; the only built-in profile)")
	}
	if p, ok := fs["scale"]; ok {
		v, ok := d.number(p.val, "capacity.scale", 0, true)
		if ok && v > 1 {
			d.errorf(p.val, "capacity.scale", "must be above 0 and at most 1 (it scales the profile down for a small machine), got %s", p.val.Value)
		} else {
			c.Scale = v
		}
	}
	if p, ok := fs["targets"]; ok {
		tf, ok := d.mapping(p.val, "capacity.targets", "per-unit targets ("+strings.Join(targetUnits, ", ")+"; per second: requests, entities, messages, requests; MiB; Gbps, Gbps)")
		if ok {
			d.allow(tf, "capacity.targets", targetUnits, nil)
			for _, name := range sortedByPosition(tf) {
				if !contains(targetUnits, name) {
					continue
				}
				v, ok := d.number(tf[name].val, "capacity.targets."+name, 0, true)
				if ok {
					c.set(name, v)
					c.Overridden = append(c.Overridden, name)
				}
			}
		}
	}
}

func (c *Capacity) set(unit string, v float64) {
	switch unit {
	case "blob":
		c.Blob = v
	case "partition":
		c.Partition = v
	case "queue":
		c.Queue = v
	case "account":
		c.Account = v
	case "blob_bandwidth":
		c.BlobBandwidth = v
	case "ingress":
		c.Ingress = v
	case "egress":
		c.Egress = v
	}
}

// Target returns the target for a unit kind (blob, partition, queue,
// account); 0 when unknown.
func (c Capacity) Target(unit string) float64 {
	switch unit {
	case "blob":
		return c.Blob
	case "partition":
		return c.Partition
	case "queue":
		return c.Queue
	case "account":
		return c.Account
	}
	return 0
}

// capacityDefaults fills the profile's figures, scaled, where the scenario
// did not override them.
func capacityDefaults(c *Capacity) {
	if c.Profile == "" {
		c.Profile = ProfileChecklist
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	for _, u := range targetUnits {
		if !contains(c.Overridden, u) {
			c.set(u, checklistTargets[u]*c.Scale)
		}
	}
}

// emulation decodes the throttling proxy's settings.
func (d *decoder) emulation(n *yaml.Node) *Emulation {
	fs, ok := d.mapping(n, "emulation", "emulation settings ("+strings.Join(emulationFields, ", ")+")")
	if !ok {
		return nil
	}
	d.allow(fs, "emulation", emulationFields, nil)
	e := &Emulation{}
	if p, ok := fs["throttle"]; ok {
		if p.val.Kind == yaml.ScalarNode && p.val.ShortTag() == "!!bool" {
			e.Throttle = p.val.Value == "true"
		} else {
			d.errorf(p.val, "emulation.throttle", "must be true or false, got %s", describe(p.val))
		}
	}
	if p, ok := fs["burst"]; ok {
		e.Burst, _ = d.duration(p.val, "emulation.burst", 0, true)
	}
	if p, ok := fs["warmup"]; ok {
		e.Warmup, _ = d.duration(p.val, "emulation.warmup", 0, false)
	}
	if p, ok := fs["delay"]; ok {
		e.Delay, _ = d.duration(p.val, "emulation.delay", 0, false)
		if e.Delay > 10*time.Second {
			d.errorf(p.val, "emulation.delay", "must be at most 10s (it is added to every request), got %s", p.val.Value)
		}
	}
	if e.Burst == 0 {
		e.Burst = time.Second
	}
	return e
}

// compare decodes how runs of the scenario are compared.
func (d *decoder) compare(n *yaml.Node, c *Compare) {
	fs, ok := d.mapping(n, "compare", "compare settings ("+strings.Join(compareFields, ", ")+")")
	if !ok {
		return
	}
	d.allow(fs, "compare", compareFields, nil)
	if p, ok := fs["tolerance"]; ok {
		v, ok := d.number(p.val, "compare.tolerance", 0, false)
		if ok && v >= 10 {
			d.errorf(p.val, "compare.tolerance", "must be a relative change below 10 (0.1 = 10 %%), got %s", p.val.Value)
		} else if ok {
			c.Tolerance, c.ToleranceSet = v, true
		}
	}
}
