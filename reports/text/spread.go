package text

import (
	"sort"
	"strconv"

	"github.com/stormcheck/stormcheck/reports"
)

// spreadTable compares, for one kind of unit that two or more workloads
// load (two key patterns side by side), how each spread its load: how
// many units, the busiest one's share overall and per second, its peak
// against the target, and the target's throttled answers (with, when any
// fault answered 503/500 on purpose, those injected answers apart).
type spreadTable struct {
	Kind reports.UnitKind
	Head []string // header cells; "\n" where a text header breaks
	Rows [][]string
}

// spreadTables returns the comparisons the run has, partitions first.
func SpreadTables(s *reports.Summary) []spreadTable {
	var out []spreadTable
	for _, kind := range []reports.UnitKind{reports.UnitPartition, reports.UnitQueue, reports.UnitBlob} {
		type row struct {
			workload                  string
			units                     int
			amount, top               int64
			share                     float64
			peak, throttled, injected int64
			target                    float64
		}
		var rows []*row
		injected := false
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
			r.injected += u.InjectedThrottled
			injected = injected || u.InjectedThrottled > 0
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
		t := spreadTable{Kind: kind, Head: []string{"workload", string(kind) + "s", "busiest\noverall", "busiest\nper second",
			"busiest\npeak/s", "peak/\ntarget", "throttled"}}
		if injected {
			t.Head = append(t.Head, "injected")
		}
		for _, r := range rows {
			util := "-"
			if r.target > 0 {
				util = reports.Percent(r.peak, int64(r.target))
			}
			cells := []string{r.workload, strconv.Itoa(r.units), reports.Percent(r.top, r.amount),
				strconv.FormatFloat(100*r.share, 'f', 1, 64) + "%", reports.Itoa(r.peak), util, reports.Itoa(r.throttled)}
			if injected {
				cells = append(cells, reports.Itoa(r.injected))
			}
			t.Rows = append(t.Rows, cells)
		}
		out = append(out, t)
	}
	return out
}

// writeSpread writes the spread tables.
func writeSpread(w *reports.ErrWriter, s *reports.Summary) {
	for _, st := range SpreadTables(s) {
		w.Printf("\n%s spread by workload (key patterns side by side)\n", st.Kind)
		t := textTable{indent: "  ", head: st.Head, rows: st.Rows}
		t.write(w)
	}
}
