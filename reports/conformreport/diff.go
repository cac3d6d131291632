package conformreport

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
)

// conformNotRun stands for a rule or step that did not run on one side.
const conformNotRun = "(not run)"

// WriteConformDiff writes where two targets, named nameA and nameB, behaved
// differently: per rule, its status on each side, then each
// step whose observed response differs, aligned in two columns. A count
// line ends it.
func WriteConformDiff(w io.Writer, diffs []verdict.RuleDiff, nameA, nameB string) error {
	ew := &reports.ErrWriter{W: w}
	if len(diffs) == 0 {
		fmt.Fprintf(ew, "no differences between %s and %s\n", nameA, nameB)
		return ew.Err
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "RULE\t\t%s\t%s\n", nameA, nameB)
	for _, d := range diffs {
		sa, sb := conformNotRun, conformNotRun
		if d.A != nil {
			sa = string(d.A.Status)
		}
		if d.B != nil {
			sb = string(d.B.Status)
		}
		fmt.Fprintf(tw, "%s\tstatus\t%s\t%s\n", d.ID, sa, sb)
		for _, s := range d.Steps {
			fmt.Fprintf(tw, "\tstep %s %s\t%s\t%s\n", strconv.Itoa(s.Step), s.Op, orNotRun(s.ActualA), orNotRun(s.ActualB))
		}
	}
	tw.Flush()
	fmt.Fprintf(ew, "%d rules differ\n", len(diffs))
	return ew.Err
}

// orNotRun is s, or conformNotRun when empty.
func orNotRun(s string) string {
	if s == "" {
		return conformNotRun
	}
	return s
}
