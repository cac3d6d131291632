package conformreport

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
)

// JUnit XML, as CI systems read it: testsuites, one testsuite per service
// (first tag), one testcase per rule.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Time       string          `xml:"time,attr"`
		Properties []junitProperty `xml:"properties>property,omitempty"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteConformJUnit writes results to path as JUnit XML, atomically, so CI
// gates on unexpected divergences only:
//
//   - a pass is a passing testcase (with a system-out note when the
//     baseline still accepts a divergence for it: tighten the baseline);
//   - a divergence the baseline accepts ("known") is a passing testcase
//     with a system-out note giving the accepted reason, not a skip, so it
//     neither fails nor hides among skipped tests;
//   - any other divergence (unexpected, or changed from the baseline's) is
//     a failure, with the first divergence as message and every failing
//     step's expected and actual as text;
//   - a rule that could not be run is an error.
//
// rep nil means no baseline: every divergence fails.
func WriteConformJUnit(path string, results []verdict.RuleResult, rep *verdict.BaselineReport) error {
	return reports.WriteFileAtomic(path, func(w io.Writer) error { return EncodeConformJUnit(w, results, rep) })
}

// EncodeConformJUnit writes what WriteConformJUnit writes to w.
func EncodeConformJUnit(w io.Writer, results []verdict.RuleResult, rep *verdict.BaselineReport) error {
	doc := junitSuites{Name: "stormcheck conformance"}
	var total time.Duration
	for _, g := range groupConformByService(results) {
		s := junitSuite{Name: g.service}
		var elapsed time.Duration
		for _, r := range g.rules {
			c := junitConformCase(r, rep)
			if r.Target != "" && len(s.Properties) == 0 {
				s.Properties = []junitProperty{{Name: "target", Value: r.Target}}
			}
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Error != nil {
				s.Errors++
			}
			elapsed += r.Elapsed
			s.Cases = append(s.Cases, c)
		}
		s.Time = junitSeconds(elapsed)
		total += elapsed
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	doc.Time = junitSeconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitConformCase is one rule's testcase.
func junitConformCase(r *verdict.RuleResult, rep *verdict.BaselineReport) junitCase {
	c := junitCase{
		Name:      r.ID,
		Classname: conformTag(r.Tags, 0) + "." + conformTag(r.Tags, 1),
		Time:      junitSeconds(r.Elapsed),
	}
	kind, item := rep.Item(r.ID)
	var notes []string
	if r.Title != "" {
		notes = append(notes, r.Title)
	}
	if r.Source != "" {
		notes = append(notes, "source: "+r.Source)
	}
	switch r.Status {
	case verdict.ConformDiverges:
		if kind == "known" {
			notes = append(notes, "known divergence, accepted by the baseline: "+stepDivergence(r.Divergence()))
			notes = append(notes, acceptedNote(item.Accepted)...)
			break
		}
		typ := "diverges"
		if kind == "changed" {
			typ = "changed"
			notes = append(notes, "the baseline accepts "+strconv.Quote(item.Accepted.Actual)+" instead")
		}
		var text []string
		for i := range r.Steps {
			if st := &r.Steps[i]; !st.Pass {
				text = append(text, stepDivergence(st)+" ("+st.Reason+")")
			}
		}
		c.Failure = &junitProblem{Message: stepDivergence(r.Divergence()), Type: typ, Text: strings.Join(text, "\n")}
	case verdict.ConformError:
		msg := oneLineText(r.ErrorText())
		c.Error = &junitProblem{Message: msg, Type: "error", Text: msg}
	case verdict.ConformPass:
		if kind == "fixed" {
			notes = append(notes, "passes, but the baseline accepts a divergence: remove it from the baseline")
		}
	}
	c.SystemOut = strings.Join(notes, "\n")
	return c
}

// acceptedNote is a baseline entry's reason and link, as notes.
func acceptedNote(a *verdict.AcceptedDivergence) []string {
	var out []string
	if a == nil {
		return out
	}
	if a.Reason != "" {
		out = append(out, "reason: "+a.Reason)
	}
	if a.Link != "" {
		out = append(out, "link: "+a.Link)
	}
	return out
}

// groupConformByService groups results by their first tag, in name order,
// rules in id order.
func groupConformByService(results []verdict.RuleResult) []conformGroup {
	var out []conformGroup
	for _, g := range groupConform(results) {
		if n := len(out); n > 0 && out[n-1].service == g.service {
			out[n-1].rules = append(out[n-1].rules, g.rules...)
			continue
		}
		out = append(out, g)
	}
	return out
}

// junitSeconds is a duration in JUnit's seconds with millisecond precision.
func junitSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}
