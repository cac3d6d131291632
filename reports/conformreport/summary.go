package conformreport

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
)

// SummaryWidth bounds every line WriteConformSummary writes.
const SummaryWidth = 100

// WriteConformSummary writes a conformance run for the terminal, in one
// screen: a table of rules per service and feature (pass, diverge, of
// which the baseline accepts, error; without verbose, the features of a
// service whose every rule passed share one row), the totals and the
// baseline's verdict, then the rules to look at, each in at most two lines:
//
//	DIVERGES  blob.lease.put-no-id  step 3 blob.put  REST: Put Blob
//	  expected 412 LeaseIdMissing, got 201
//
// Without verbose, the rules to look at are the divergences the baseline
// does not accept (all of them with no baseline), the errors and the
// baseline entries that now pass; the accepted ones are counted. With
// verbose, every rule is listed, grouped by service and feature, a pass in
// one line with its title. No line is longer than SummaryWidth.
func WriteConformSummary(w io.Writer, results []verdict.RuleResult, rep *verdict.BaselineReport, verbose bool) error {
	ew := &reports.ErrWriter{W: w}
	groups := groupConform(results)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "service\tfeature\trules\tpass\tdiverge\tknown\terror")
	var tot [5]int
	// Without verbose, a service's features whose every rule passed share
	// one row, so the table stays one screen as rules grow.
	type passed struct {
		features int
		c        [5]int
	}
	quiet := map[string]*passed{}
	row := func(service, feature string, c [5]int) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%d\n", service, feature, c[0], c[1], c[2], knownCell(c[3], rep), c[4])
	}
	flush := func(service string) {
		if q := quiet[service]; q != nil {
			name := fmt.Sprintf("%d others", q.features)
			if q.features == 1 {
				name = "1 other"
			}
			row(service, name+" (all pass)", q.c)
			delete(quiet, service)
		}
	}
	for i, g := range groups {
		c := countConform(g.rules, rep)
		for i := range c {
			tot[i] += c[i]
		}
		if !verbose && c[1] == c[0] {
			q := quiet[g.service]
			if q == nil {
				q = &passed{}
				quiet[g.service] = q
			}
			q.features++
			for i := range c {
				q.c[i] += c[i]
			}
		} else {
			row(g.service, g.feature, c)
		}
		if i == len(groups)-1 || groups[i+1].service != g.service {
			flush(g.service)
		}
	}
	fmt.Fprintf(tw, "total\t\t%d\t%d\t%d\t%s\t%d\n", tot[0], tot[1], tot[2], knownCell(tot[3], rep), tot[4])
	tw.Flush()
	if rep != nil {
		line := baselineLine(rep)
		if len(rep.NotRun) > 0 {
			line += fmt.Sprintf("; %d entries not run", len(rep.NotRun))
		}
		fmt.Fprintln(ew, fitLine(line))
	}
	var listed, accepted int
	for _, g := range groups {
		head := false
		for _, r := range g.rules {
			mark, _ := rep.Item(r.ID)
			look := toLookAt(r, mark)
			if mark == "known" {
				accepted++
			}
			if !verbose && !look {
				continue
			}
			if verbose && !head {
				fmt.Fprintf(ew, "\n%s / %s\n", g.service, g.feature)
				head = true
			} else if !verbose && listed == 0 {
				fmt.Fprintln(ew, "\nto look at:")
			}
			listed++
			for _, l := range ruleLines(r, mark) {
				fmt.Fprintln(ew, fitLine(l))
			}
		}
	}
	if !verbose {
		switch {
		case listed == 0 && accepted > 0:
			fmt.Fprintf(ew, "\nnothing to look at: every divergence is one the baseline accepts (-v lists all %d rules)\n", len(results))
		case listed == 0:
			fmt.Fprintln(ew, "\nnothing to look at: every rule passed")
		case accepted > 0:
			fmt.Fprintf(ew, "%d divergence(s) the baseline accepts not shown (-v lists every rule)\n", accepted)
		}
	}
	return ew.Err
}

// toLookAt reports whether a rule belongs in the default listing: an
// error, a baseline entry that now passes, or a divergence the baseline
// (mark is its word on the rule) does not accept.
func toLookAt(r *verdict.RuleResult, mark string) bool {
	return r.Status == verdict.ConformError || mark == "fixed" || (r.Status == verdict.ConformDiverges && mark != "known")
}

// countConform counts rules, pass, diverge, known (accepted by rep) and
// error.
func countConform(rules []*verdict.RuleResult, rep *verdict.BaselineReport) (c [5]int) {
	for _, r := range rules {
		c[0]++
		switch r.Status {
		case verdict.ConformPass:
			c[1]++
		case verdict.ConformDiverges:
			c[2]++
			if rep.IsKnown(r.ID) {
				c[3]++
			}
		case verdict.ConformError:
			c[4]++
		}
	}
	return c
}

// knownCell is the known column: "-" without a baseline.
func knownCell(n int, rep *verdict.BaselineReport) string {
	if rep == nil {
		return "-"
	}
	return fmt.Sprint(n)
}

// baselineLine is the baseline's counts and verdict.
func baselineLine(rep *verdict.BaselineReport) string {
	v := "OK"
	if !rep.OK() {
		v = "FAIL"
	}
	target := ""
	if rep.Target != "" {
		target = " (" + rep.Target + ")"
	}
	return fmt.Sprintf("baseline%s: %d unexpected, %d known, %d changed, %d fixed, %d errors: %s",
		target, len(rep.Unexpected), len(rep.Known), len(rep.Changed), len(rep.Fixed), len(rep.Errors), v)
}

// ruleLines is a rule in one line (a pass: status, id, title) or two (the
// status, the baseline's word, the id, the diverging step and the
// reference; then expected vs got, or why it could not run).
func ruleLines(r *verdict.RuleResult, mark string) []string {
	if mark == "unexpected" || mark == "error" {
		mark = ""
	}
	head := fmt.Sprintf("%-8s  ", conformLabel(r.Status))
	if mark != "" {
		head += mark + "  "
	}
	head += r.ID
	switch r.Status {
	case verdict.ConformPass:
		if mark == "fixed" {
			return []string{head + "  " + shortRef(r.Source), "  now passes: remove it from the baseline"}
		}
		return []string{head + "  " + oneLineText(r.Title)}
	case verdict.ConformDiverges:
		d := r.Divergence()
		if d == nil {
			return []string{head + "  " + shortRef(r.Source), "  diverges, no diverging step recorded"}
		}
		return []string{fmt.Sprintf("%s  step %d %s  %s", head, d.Step, d.Op, against(d)+shortRef(stepSource(r, d))),
			"  expected " + oneLineText(d.Expected) + ", got " + oneLineText(d.Actual)}
	}
	return []string{head + "  " + shortRef(r.Source), "  error: " + oneLineText(r.ErrorText())}
}

// against marks what a diverging step was held to: "[live] " when its
// source cites the live service's answer, "[docs] " when only the
// documentation says it, "" when the runner did not say.
func against(d *verdict.StepVerdict) string {
	switch d.Against {
	case verdict.AgainstLive:
		return "[live] "
	case verdict.AgainstDocumented:
		return "[docs] "
	}
	return ""
}

// stepSource is where a diverging step's expectation comes from: its own
// source when the runner kept one, else the rule's.
func stepSource(r *verdict.RuleResult, d *verdict.StepVerdict) string {
	if d.Source != "" {
		return d.Source
	}
	return r.Source
}

// shortRef is the first clause of a rule's source ("REST: Put Blob"), the
// part before any parenthesis, semicolon or comma.
func shortRef(src string) string {
	src = oneLineText(src)
	if i := strings.IndexAny(src, "(;,"); i >= 0 {
		src = strings.TrimSpace(src[:i])
	}
	return src
}

// fitLine cuts s to SummaryWidth characters, ending a cut line with "..."
// (ASCII, so that a width in bytes holds too for ASCII text).
func fitLine(s string) string {
	s = strings.TrimRight(s, " ")
	r := []rune(s)
	if len(r) <= SummaryWidth {
		return s
	}
	return strings.TrimRight(string(r[:SummaryWidth-3]), " ") + "..."
}

// WriteConformMarkdown writes what WriteConformSummary writes as Markdown
// (for a pull request or a CI summary): the table, the baseline's verdict
// and the rules to look at (every rule with verbose) as a table of status,
// rule, step, expected, got and reference.
func WriteConformMarkdown(w io.Writer, results []verdict.RuleResult, rep *verdict.BaselineReport, verbose bool) error {
	ew := &reports.ErrWriter{W: w}
	cell := func(s string) string { return strings.ReplaceAll(oneLineText(s), "|", "\\|") }
	fmt.Fprintln(ew, "| service | feature | rules | pass | diverge | known | error |")
	fmt.Fprintln(ew, "|---|---|--:|--:|--:|--:|--:|")
	var tot [5]int
	groups := groupConform(results)
	for _, g := range groups {
		c := countConform(g.rules, rep)
		for i := range c {
			tot[i] += c[i]
		}
		fmt.Fprintf(ew, "| %s | %s | %d | %d | %d | %s | %d |\n", cell(g.service), cell(g.feature), c[0], c[1], c[2], knownCell(c[3], rep), c[4])
	}
	fmt.Fprintf(ew, "| **total** | | %d | %d | %d | %s | %d |\n", tot[0], tot[1], tot[2], knownCell(tot[3], rep), tot[4])
	if rep != nil {
		fmt.Fprintf(ew, "\n%s\n", baselineLine(rep))
	}
	head := false
	for _, g := range groups {
		for _, r := range g.rules {
			mark, _ := rep.Item(r.ID)
			look := toLookAt(r, mark)
			if !verbose && !look {
				continue
			}
			if !head {
				fmt.Fprintln(ew, "\n| status | rule | step | expected | got | reference |")
				fmt.Fprintln(ew, "|---|---|---|---|---|---|")
				head = true
			}
			status := conformLabel(r.Status)
			if mark == "known" || mark == "changed" || mark == "fixed" {
				status += " (" + mark + ")"
			}
			step, exp, got, mark := "", "", "", ""
			if d := r.Divergence(); d != nil && r.Status == verdict.ConformDiverges {
				step, exp, got, mark = fmt.Sprintf("%d %s", d.Step, d.Op), d.Expected, d.Actual, against(d)+shortRef(stepSource(r, d))
			} else if r.Status == verdict.ConformError {
				got = "error: " + r.ErrorText()
			}
			if mark == "" {
				mark = shortRef(r.Source)
			}
			fmt.Fprintf(ew, "| %s | `%s` | %s | %s | %s | %s |\n", status, r.ID, cell(step), cell(exp), cell(got), cell(mark))
		}
	}
	if !head && !verbose {
		fmt.Fprintln(ew, "\nNothing to look at.")
	}
	return ew.Err
}
