package conformreport

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
)

// conformNoTag names the group of a rule without the tag it is grouped by.
const conformNoTag = "(untagged)"

// WriteConformMatrix writes the conformance matrix for the terminal: rules
// grouped by service (first tag) then feature (second tag), in id order
// within a group, one aligned line per rule:
//
//	DIVERGES  known  blob.lease.put-no-id  Put on a leased blob needs the lease id  step 3 blob.put: expected 412 LeaseIdMissing, got 201
//
// The second column is the baseline's word on the rule when rep is not nil:
// "known" (accepted), "changed" (accepted, but it now diverges otherwise),
// "fixed" (accepted, but it now passes), else empty. Errors show why the
// rule could not be run. A totals line ends the matrix, then, with a
// baseline, the baseline's counts and verdict.
func WriteConformMatrix(w io.Writer, results []verdict.RuleResult, rep *verdict.BaselineReport) error {
	ew := &reports.ErrWriter{W: w}
	groups := groupConform(results)
	for gi, g := range groups {
		if gi > 0 {
			fmt.Fprintln(ew)
		}
		fmt.Fprintf(ew, "%s / %s\n", g.service, g.feature)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, r := range g.rules {
			mark, _ := rep.Item(r.ID)
			if mark == "unexpected" || mark == "error" {
				mark = ""
			}
			line := "  " + conformLabel(r.Status) + "\t" + mark + "\t" + r.ID + "\t" + oneLineText(r.Title)
			if d := conformDetail(r); d != "" { // no empty last cell: no trailing blanks
				line += "\t" + d
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	if len(groups) > 0 {
		fmt.Fprintln(ew)
	}
	fmt.Fprintln(ew, conformTotals(results, rep))
	if rep != nil {
		fmt.Fprintln(ew, baselineLine(rep))
		if len(rep.Fixed) > 0 {
			ids := make([]string, len(rep.Fixed))
			for i, it := range rep.Fixed {
				ids[i] = it.Rule
			}
			fmt.Fprintf(ew, "now passing, remove from the baseline: %s\n", strings.Join(ids, ", "))
		}
		if len(rep.NotRun) > 0 {
			fmt.Fprintf(ew, "in the baseline but not run: %s\n", strings.Join(rep.NotRun, ", "))
		}
	}
	return ew.Err
}

// conformGroup is one service/feature section of the matrix.
type conformGroup struct {
	service, feature string
	rules            []*verdict.RuleResult
}

// groupConform groups results by their first two tags, groups and rules in
// name order.
func groupConform(results []verdict.RuleResult) []conformGroup {
	byKey := map[[2]string]*conformGroup{}
	var keys [][2]string
	for i := range results {
		r := &results[i]
		k := [2]string{conformTag(r.Tags, 0), conformTag(r.Tags, 1)}
		g := byKey[k]
		if g == nil {
			g = &conformGroup{service: k[0], feature: k[1]}
			byKey[k] = g
			keys = append(keys, k)
		}
		g.rules = append(g.rules, r)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	out := make([]conformGroup, len(keys))
	for i, k := range keys {
		g := byKey[k]
		sort.SliceStable(g.rules, func(a, b int) bool { return g.rules[a].ID < g.rules[b].ID })
		out[i] = *g
	}
	return out
}

// conformTag is tags[i], or conformNoTag.
func conformTag(tags []string, i int) string {
	if i < len(tags) && tags[i] != "" {
		return tags[i]
	}
	return conformNoTag
}

// conformLabel is a status as the matrix shows it.
func conformLabel(s verdict.ConformStatus) string {
	switch s {
	case verdict.ConformPass:
		return "PASS"
	case verdict.ConformDiverges:
		return "DIVERGES"
	case verdict.ConformError:
		return "ERROR"
	}
	return strings.ToUpper(string(s))
}

// conformDetail is the matrix's last column: the first diverging step for
// a divergence, the cause for an error, empty for a pass.
func conformDetail(r *verdict.RuleResult) string {
	switch r.Status {
	case verdict.ConformDiverges:
		if d := r.Divergence(); d != nil {
			return stepDivergence(d)
		}
	case verdict.ConformError:
		return "error: " + oneLineText(r.ErrorText())
	}
	return ""
}

// stepDivergence is "step 3 blob.put: expected 412 LeaseIdMissing, got 201".
// A nil step (a result marked diverging without one) says so.
func stepDivergence(d *verdict.StepVerdict) string {
	if d == nil {
		return "diverges, no diverging step recorded"
	}
	return "step " + strconv.Itoa(d.Step) + " " + d.Op + ": expected " + d.Expected + ", got " + d.Actual
}

// conformTotals is the matrix's totals line.
func conformTotals(results []verdict.RuleResult, rep *verdict.BaselineReport) string {
	var pass, div, errs, known int
	for i := range results {
		switch results[i].Status {
		case verdict.ConformPass:
			pass++
		case verdict.ConformDiverges:
			div++
			if rep.IsKnown(results[i].ID) {
				known++
			}
		case verdict.ConformError:
			errs++
		}
	}
	s := fmt.Sprintf("%d rules: %d pass, %d diverge", len(results), pass, div)
	if rep != nil {
		s += fmt.Sprintf(" (%d known)", known)
	}
	return s + fmt.Sprintf(", %d error", errs)
}

// oneLineText folds a multi-line text onto one line.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
