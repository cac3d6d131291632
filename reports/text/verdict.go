package text

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// This file is what both reports show first: the verdict, and what failed
// by how much (failed checks with their violation counts, failed
// thresholds with the measure against the limit), before the figures.

// ExitMeanings are the documented exit codes.
var ExitMeanings = map[int]string{
	0:   "every check passed",
	1:   "a check found a violation",
	2:   "bad usage or an invalid scenario",
	3:   "harness or target error",
	4:   "no violation, but a check could not decide",
	5:   "a threshold failed",
	6:   "a regression against the baseline",
	130: "interrupted",
}

// ExitCode is the run's exit code. The runner writes the reports before
// the command has set ExitCode, so a zero is derived again from the
// verdicts, as the command derives it: a violation, then an interrupt, a
// harness error, a failed threshold, an undecided check.
func ExitCode(s *reports.Summary) int {
	if s.ExitCode != 0 {
		return s.ExitCode
	}
	undecided := false
	for _, r := range s.Checks {
		switch r.Verdict {
		case checks.Fail:
			return 1
		case checks.Undecided:
			undecided = true
		}
	}
	thresholdFailed := slices.ContainsFunc(s.Thresholds, func(t reports.ThresholdResult) bool { return !t.Pass })
	switch {
	case s.Interrupted:
		return 130
	case s.Error != "":
		return 3
	case thresholdFailed:
		return 5
	case undecided:
		return 4
	}
	return 0
}

// VerdictWord is pass, fail or undecided for an exit code.
func VerdictWord(code int) string {
	switch code {
	case 0:
		return "pass"
	case 4:
		return "undecided"
	}
	return "fail"
}

// VerdictItem is one thing the verdict names: a check that failed or could
// not decide, or a threshold that failed.
type VerdictItem struct {
	// Verdict is fail or undecided.
	Verdict string
	// What is the check (with its workload) or the criterion's measure;
	// Detail says by how much: "3 violations: 1 key not linearizable",
	// "812 ms > 500 ms".
	What, Detail string
	// Threshold: a criterion, read "p95(blob.get) 812 ms > 500 ms".
	Threshold bool
}

// Text is the item in one line: "linearizable (hot): 3 violations: ...",
// "p95(blob.get) 812 ms > 500 ms".
func (it VerdictItem) Text() string {
	if it.Threshold {
		return it.What + " " + it.Detail
	}
	return it.What + ": " + it.Detail
}

// VerdictItems are what failed, by how much: the failed checks, the failed
// thresholds, then the undecided checks.
func VerdictItems(s *reports.Summary) []VerdictItem {
	var failed, undecided []VerdictItem
	for _, r := range s.Checks {
		what := r.Check
		if r.Workload != "" {
			what += " (" + r.Workload + ")"
		}
		summary := headline(r.Summary)
		switch r.Verdict {
		case checks.Pass:
		case checks.Fail:
			n := max(r.Total, len(r.Violations))
			detail := summary
			if n > 0 {
				detail = Plural(int64(n), "violation") + ": " + summary
			}
			failed = append(failed, VerdictItem{Verdict: "fail", What: what, Detail: detail})
		default:
			undecided = append(undecided, VerdictItem{Verdict: "undecided", What: what, Detail: summary})
		}
	}
	for _, t := range s.Thresholds {
		if t.Pass {
			continue
		}
		what, detail := t.Judged()
		if t.Note != "" {
			what += ":" // "p99(x): no operation x in the run"
		}
		failed = append(failed, VerdictItem{Verdict: "fail", What: what, Detail: detail, Threshold: true})
	}
	return append(failed, undecided...)
}

// VerdictItemsShown is how many items the verdict lists before it says how
// many more there are (each is in full under checks or thresholds): the
// verdict is read on the first screen.
const VerdictItemsShown = 8

// CapVerdictItems is the first VerdictItemsShown items and the sentence
// that stands for the rest ("and 17 more: 12 failed checks, 5 undecided
// checks, under checks"), "" when none are left out.
func CapVerdictItems(items []VerdictItem) ([]VerdictItem, string) {
	if len(items) <= VerdictItemsShown {
		return items, ""
	}
	rest := items[VerdictItemsShown:]
	var failedChecks, thresholds, undecided int
	for _, it := range rest {
		switch {
		case it.Threshold:
			thresholds++
		case it.Verdict == "fail":
			failedChecks++
		default:
			undecided++
		}
	}
	var parts []string
	if failedChecks > 0 {
		parts = append(parts, Plural(int64(failedChecks), "failed check"))
	}
	if thresholds > 0 {
		parts = append(parts, Plural(int64(thresholds), "failed threshold"))
	}
	if undecided > 0 {
		parts = append(parts, Plural(int64(undecided), "undecided check"))
	}
	where := "under checks"
	if failedChecks+undecided == 0 {
		where = "under thresholds"
	} else if thresholds > 0 {
		where = "under checks and thresholds"
	}
	return items[:VerdictItemsShown], fmt.Sprintf("and %d more (%s), in full %s", len(rest), strings.Join(parts, ", "), where)
}

// verdictSummaryMax is how much of a check's summary the verdict shows
// (the checks' section has all of it).
const verdictSummaryMax = 200

// headline is a summary cut to verdictSummaryMax runes at a space.
func headline(s string) string {
	r := []rune(s)
	if len(r) <= verdictSummaryMax {
		return s
	}
	cut := strings.LastIndexByte(string(r[:verdictSummaryMax]), ' ')
	if cut <= 0 {
		cut = len(string(r[:verdictSummaryMax]))
	}
	return strings.TrimRight(string(r[:verdictSummaryMax])[:cut], " ,;:") + " … (in full under checks)"
}

// VerdictLine is the verdict in a sentence: the exit code's meaning and
// what was judged ("2 checks, 1 threshold"; "no checks configured").
func VerdictLine(s *reports.Summary) string {
	code := ExitCode(s)
	line := fmt.Sprintf("exit code %d", code)
	if code != 0 {
		line += ", " + ExitMeanings[code]
	}
	var judged []string
	switch {
	case !AnyOps(s): // nothing ran: the error says why
	case len(s.Checks) == 0 && s.Shard != nil && s.Shard.Count > 1:
		judged = append(judged, "checks left to stormcheck merge")
	case len(s.Checks) == 0 && s.ChecksError == "":
		judged = append(judged, "no checks configured")
	case len(s.Checks) > 0:
		judged = append(judged, tally(len(s.Checks), countChecks(s.Checks, checks.Pass), "check"))
	}
	if n := len(s.Thresholds); n > 0 {
		pass := 0
		for _, t := range s.Thresholds {
			if t.Pass {
				pass++
			}
		}
		judged = append(judged, tally(n, pass, "threshold"))
	}
	if len(judged) == 0 {
		return line
	}
	return line + "; " + strings.Join(judged, ", ")
}

func countChecks(rs []checks.Result, v checks.Verdict) int {
	n := 0
	for _, r := range rs {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

// tally is "2 of 3 checks pass", "0 of 1 threshold passes".
func tally(n, pass int, what string) string {
	if n == 1 {
		return fmt.Sprintf("%d of 1 %s passes", pass, what)
	}
	return fmt.Sprintf("%d of %d %ss pass", pass, n, what)
}

// writeVerdict opens the report: the verdict, then each failure with by
// how much.
func writeVerdict(w *reports.ErrWriter, s *reports.Summary) {
	code := ExitCode(s)
	writeWrapped(w, "verdict   ", "          ", strings.ToUpper(VerdictWord(code))+": "+VerdictLine(s))
	items, more := CapVerdictItems(VerdictItems(s))
	for _, it := range items {
		prefix := fmt.Sprintf("  %-9s  ", strings.ToUpper(it.Verdict))
		writeWrapped(w, prefix, "             ", it.Text())
	}
	if more != "" {
		writeWrapped(w, "             ", "             ", more)
	}
}
