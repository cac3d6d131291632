package runner

import (
	"fmt"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
)

// unitTargets are the scenario's capacity figures per kind of unit.
func UnitTargets(c scenarios.Capacity) map[reports.UnitKind]float64 {
	return map[reports.UnitKind]float64{
		reports.UnitBlob:      c.Blob,
		reports.UnitPartition: c.Partition,
		reports.UnitQueue:     c.Queue,
		reports.UnitAccount:   c.Account,
	}
}

// bandwidthTargets are the scenario's bandwidth figures in bytes per
// second: per blob, and the account's ingress.
func BandwidthTargets(c scenarios.Capacity) map[reports.UnitKind]float64 {
	return map[reports.UnitKind]float64{
		reports.UnitBlob:    c.BlobBandwidth * (1 << 20),
		reports.UnitAccount: c.Ingress * 1e9 / 8,
	}
}

// capacityInfo describes the targets and the emulation for the summary.
func CapacityInfo(sc *scenarios.Scenario) *reports.CapacityInfo {
	c := sc.Capacity
	info := &reports.CapacityInfo{
		Profile: c.Profile, Scale: c.Scale, Overridden: c.Overridden,
		Targets: map[string]float64{"blob": c.Blob, "partition": c.Partition, "queue": c.Queue, "account": c.Account,
			"blob_bandwidth_mib": c.BlobBandwidth, "ingress_gbps": c.Ingress, "egress_gbps": c.Egress},
		Sources: map[string]string{},
	}
	kinds := []reports.UnitKind{reports.UnitBlob, reports.UnitPartition, reports.UnitQueue, reports.UnitAccount}
	if sc.Target.Kind == scenarios.TargetSamba {
		// Only SMB runs against the managed Samba: its calls count against
		// the Azure Files targets per file and share, never the Blob,
		// Table or Queue ones (nor the account's request target).
		kinds = []reports.UnitKind{reports.UnitFile, reports.UnitShare}
		info.Targets = map[string]float64{}
		for _, k := range kinds {
			info.Targets[string(k)] = reports.TargetFor(k).PerSecond
		}
	}
	for _, k := range kinds {
		info.Sources[string(k)] = reports.TargetFor(k).Source
	}
	if e := sc.Emulation; e != nil {
		parts := "no throttling"
		if e.Throttle {
			parts = fmt.Sprintf("throttling at the targets (burst %v", e.Burst)
			if e.Warmup > 0 {
				parts += fmt.Sprintf(", warm-up %v", e.Warmup)
			}
			parts += ")"
		}
		if e.Delay > 0 {
			parts += fmt.Sprintf(", %v added to every request", e.Delay)
		}
		info.Emulation = "loopback proxy: " + parts
	}
	return info
}
