package reports

// capacityLineKinds are the unit kinds a capacity line names, in order.
var capacityLineKinds = []string{"blob", "partition", "queue", "account", string(UnitFile), string(UnitShare)}

// CapacityParts are the targets a capacity line names ("blob 500/s", ...):
// those of the unit kinds the run's targets have figures for, in a fixed
// order. A run against the managed Samba has only the Files ones.
func CapacityParts(c *CapacityInfo) []string {
	var parts []string
	for _, k := range capacityLineKinds {
		if v, ok := c.Targets[k]; ok {
			parts = append(parts, k+" "+Number(v)+"/s")
		}
	}
	return parts
}
