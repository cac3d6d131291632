package reports

import (
	"sort"
	"strconv"
)

// writeSpread compares, when two or more workloads load units of the same
// kind (two key patterns side by side), how each spread its load: how many
// units, the busiest one's share overall and per second, its peak against
// the target, and the throttled answers.
func writeSpread(w *errWriter, s *Summary) {
	for _, kind := range []UnitKind{UnitPartition, UnitQueue, UnitBlob} {
		type row struct {
			workload        string
			units           int
			amount, top     int64
			share           float64
			peak, throttled int64
			target          float64
		}
		var rows []*row
		byName := map[string]*row{}
		for _, u := range s.Units {
			if u.Kind != kind || u.Workload == "" {
				continue
			}
			r := byName[u.Workload]
			if r == nil {
				r = &row{workload: u.Workload, share: u.BusiestShare, target: u.Target}
				byName[u.Workload] = r
				rows = append(rows, r)
			}
			r.units++
			r.amount += u.Amount
			r.throttled += u.Throttled
			r.top = max(r.top, u.Amount)
			r.peak = max(r.peak, u.Peak)
		}
		if len(rows) < 2 {
			continue
		}
		order := map[string]int{}
		for i, ws := range s.Workloads {
			order[ws.Name] = i
		}
		sort.SliceStable(rows, func(i, j int) bool { return order[rows[i].workload] < order[rows[j].workload] })
		w.printf("\n%s spread by workload (key patterns side by side)\n", kind)
		t := textTable{indent: "  ", head: []string{"workload", string(kind) + "s", "busiest\noverall", "busiest\nper second",
			"busiest\npeak/s", "peak/\ntarget", "throttled"}}
		for _, r := range rows {
			util := "-"
			if r.target > 0 {
				util = percent(r.peak, int64(r.target))
			}
			t.add(r.workload, strconv.Itoa(r.units), percent(r.top, r.amount),
				strconv.FormatFloat(100*r.share, 'f', 1, 64)+"%", itoa(r.peak), util, itoa(r.throttled))
		}
		t.write(w)
	}
}
