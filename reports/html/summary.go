package html

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/text"
)

// This file builds what the HTML report shows first, as k6's and
// Gatling's reports do: the verdict, headline figures, and one row per
// workload; and the tables that compare across workloads.

// htmlSummary is the top of the page.
type htmlSummary struct {
	Cards []htmlCard
	Head  []string
	Rows  []htmlSummaryRow
}

// htmlCard is one headline figure.
type htmlCard struct {
	Label, Value, Note string
	// Bad marks a figure that needs attention (errors, failed checks).
	Bad bool
}

// htmlSummaryRow is one workload's line in the summary table.
type htmlSummaryRow struct {
	Anchor, Name string
	Cells        []string
	Checks       []htmlCheckBadge
}

type htmlCheckBadge struct{ Verdict, Check string }

// htmlAcross is a table comparing workloads (key patterns side by side).
type htmlAcross struct {
	Title string
	Head  []string
	Rows  [][]string
}

func buildHTMLSummary(s *reports.Summary) htmlSummary {
	var hs htmlSummary
	var pass, fail, undecided int
	for _, r := range s.Checks {
		switch r.Verdict {
		case checks.Pass:
			pass++
		case checks.Fail:
			fail++
		default:
			undecided++
		}
	}
	var calls, served, errs, throttled, injected int64
	var worst reports.Percentiles
	worstOp := ""
	var active float64
	for _, ws := range s.Workloads {
		for _, o := range ws.Ops {
			calls += o.Count
			served += o.Outcomes[checks.OK.String()] + o.Outcomes[checks.Conflict.String()]
			errs += o.Outcomes[checks.Error.String()] + o.Outcomes[checks.Unknown.String()]
			throttled += o.Outcomes[checks.Throttled.String()]
			if o.Corrected.Count > 0 && o.Corrected.P99 > worst.P99 {
				worst, worstOp = o.Corrected, ws.Name+" "+o.Op
			}
		}
		active = max(active, ws.Active.Seconds())
		injected += reports.InjectedThrottled(ws)
	}
	if len(s.Checks) > 0 { // a run with no checks has no card for them: the verdict says so
		checksCard := htmlCard{Label: "checks", Value: fmt.Sprintf("%d pass", pass), Bad: fail+undecided > 0}
		if fail+undecided > 0 {
			checksCard.Value = fmt.Sprintf("%d fail, %d undecided", fail, undecided)
			checksCard.Note = fmt.Sprintf("of %d", len(s.Checks))
		}
		hs.Cards = append(hs.Cards, checksCard)
	}
	if len(s.Thresholds) > 0 {
		failed := 0
		for _, t := range s.Thresholds {
			if !t.Pass {
				failed++
			}
		}
		hs.Cards = append(hs.Cards, htmlCard{Label: "thresholds", Value: fmt.Sprintf("%d of %d pass", len(s.Thresholds)-failed, len(s.Thresholds)), Bad: failed > 0})
	}
	if active > 0 {
		hs.Cards = append(hs.Cards, htmlCard{Label: "throughput", Value: reports.Number(float64(served)/active) + "/s",
			Note: fmt.Sprintf("ok+conflict, %s calls in %s", reports.Thousands(calls), strconv.FormatFloat(active, 'f', 1, 64)+" s")})
	}
	if worstOp != "" {
		hs.Cards = append(hs.Cards, htmlCard{Label: "worst p99 (corrected)", Value: reports.Ms(worst.P99) + " ms", Note: worstOp})
	}
	errCard := htmlCard{Label: "errors", Value: reports.Thousands(errs), Note: "error + unknown", Bad: errs > 0}
	if calls > 0 {
		errCard.Note += ", " + reports.Percent(errs, calls) + " of calls"
	}
	hs.Cards = append(hs.Cards, errCard)
	if throttled > 0 {
		card := htmlCard{Label: "throttled", Value: reports.Thousands(throttled), Note: reports.Percent(throttled, calls) + " of calls", Bad: true}
		if injected > 0 {
			// Injected on purpose: not the target's throttling.
			card.Note += fmt.Sprintf(", %s injected by faults, %s the target's own", reports.Thousands(injected), reports.Thousands(throttled-injected))
			card.Bad = throttled > injected
		}
		hs.Cards = append(hs.Cards, card)
	}

	hs.Head = []string{"workload", "achieved", "achieved/s", "calls", "calls/s", "p99 ms", "errors", "throttled", "checks"}
	for i, ws := range s.Workloads {
		row := htmlSummaryRow{Anchor: "w" + strconv.Itoa(i+1), Name: ws.Name}
		var n, e, th int64
		var p99 float64
		for _, o := range ws.Ops {
			n += o.Count
			e += o.Outcomes[checks.Error.String()] + o.Outcomes[checks.Unknown.String()]
			th += o.Outcomes[checks.Throttled.String()]
			p99 = max(p99, o.Corrected.P99)
		}
		sec := ws.Active.Seconds()
		rate := func(v int64) string {
			if sec <= 0 {
				return "-"
			}
			return strconv.FormatFloat(float64(v)/sec, 'f', 1, 64)
		}
		achieved, achievedRate := "-", "-"
		if ws.Goal != "" {
			achieved, achievedRate = reports.Thousands(ws.Achieved)+" "+ws.Goal, rate(ws.Achieved)
		}
		p := "-"
		if p99 > 0 {
			p = reports.Ms(p99)
		}
		row.Cells = []string{achieved, achievedRate, reports.Thousands(n), rate(n), p, reports.Thousands(e), reports.Thousands(th)}
		for _, r := range s.Checks {
			if r.Workload == ws.Name {
				row.Checks = append(row.Checks, htmlCheckBadge{string(r.Verdict), r.Check})
			}
		}
		hs.Rows = append(hs.Rows, row)
	}
	return hs
}

// buildHTMLAcross turns the spread tables into the page's tables (header
// cells on one line).
func buildHTMLAcross(s *reports.Summary) []htmlAcross {
	var out []htmlAcross
	for _, st := range text.SpreadTables(s) {
		a := htmlAcross{Title: fmt.Sprintf("Per-%s spread by workload (key patterns side by side)", st.Kind), Rows: st.Rows}
		for _, h := range st.Head {
			a.Head = append(a.Head, strings.ReplaceAll(h, "\n", " "))
		}
		out = append(out, a)
	}
	return out
}
