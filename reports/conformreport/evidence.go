package conformreport

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
)

// WriteEvidence writes into dir (made if missing) one Markdown file per
// step that diverged: the rule, what was expected and what came back, the
// sentence of the reference the expectation rests on, and the request
// and response as sent and received (secrets redacted by the runner),
// ready to paste into an upstream issue. Files are named
// RULE-ID.step-N.md and written atomically; it returns the files written.
func WriteEvidence(dir string, results []verdict.RuleResult) ([]string, error) {
	return WriteEvidenceFor(dir, results, func(*verdict.RuleResult, *verdict.StepVerdict) (bool, string) { return true, "" })
}

// WriteEvidenceFor is WriteEvidence for the diverging steps keep picks;
// the line keep returns with a step (when not "") goes into its file
// after what came back (what another target answered, say).
func WriteEvidenceFor(dir string, results []verdict.RuleResult, keep func(*verdict.RuleResult, *verdict.StepVerdict) (bool, string)) ([]string, error) {
	var written []string
	for i := range results {
		r := &results[i]
		if r.Status != verdict.ConformDiverges {
			continue
		}
		for j := range r.Steps {
			s := &r.Steps[j]
			if s.Pass || s.Errored {
				continue
			}
			ok, line := keep(r, s)
			if !ok {
				continue
			}
			if len(written) == 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return written, err
				}
			}
			name := filepath.Join(dir, fmt.Sprintf("%s.step-%d.md", r.ID, s.Step))
			if err := reports.WriteFileAtomic(name, func(w io.Writer) error { return evidenceFile(w, r, s, line) }); err != nil {
				return written, err
			}
			written = append(written, name)
		}
	}
	return written, nil
}

// DiffEvidence writes the evidence of the divergences the second target
// (nameB) of a --diff has and the first (nameA) has not, or has with
// another answer: a rule that ran only on B, or a step whose answer
// differs between the two and diverges on B. Each file says what A
// answered.
func DiffEvidence(dir string, diffs []verdict.RuleDiff, nameA, nameB string) ([]string, error) {
	var bs []verdict.RuleResult
	before := map[string]map[int]string{}
	for _, d := range diffs {
		if d.B == nil {
			continue
		}
		bs = append(bs, *d.B)
		steps := map[int]string{}
		for _, s := range d.Steps {
			steps[s.Step] = orNotRun(s.ActualA)
		}
		if d.A == nil {
			steps = nil // every diverging step is new
		}
		before[d.ID] = steps
	}
	return WriteEvidenceFor(dir, bs, func(r *verdict.RuleResult, s *verdict.StepVerdict) (bool, string) {
		steps := before[r.ID]
		if steps == nil {
			return true, fmt.Sprintf("- On %s: the rule did not run; this divergence is new on %s", nameA, nameB)
		}
		a, ok := steps[s.Step]
		if !ok {
			return false, ""
		}
		return true, fmt.Sprintf("- On %s: %s (the answer changed on %s)", nameA, a, nameB)
	})
}

// evidenceFile writes one diverging step's report.
func evidenceFile(w io.Writer, r *verdict.RuleResult, s *verdict.StepVerdict, line string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: step %d (%s) diverges\n\n", r.ID, s.Step, s.Op)
	fmt.Fprintf(&b, "%s\n\n", r.Title)
	if r.Target != "" {
		fmt.Fprintf(&b, "- Target: %s\n", r.Target)
	}
	fmt.Fprintf(&b, "- Expected: %s\n- Got: %s\n", s.Expected, s.Actual)
	if line != "" {
		b.WriteString(line + "\n")
	}
	if s.Reason != "" {
		fmt.Fprintf(&b, "- Why: %s\n", s.Reason)
	}
	switch s.Against {
	case verdict.AgainstLive:
		b.WriteString("- Against: what the live service is recorded to answer\n")
	case verdict.AgainstDocumented:
		b.WriteString("- Against: the documentation (no live record of this answer is cited)\n")
	}
	if s.Reference != "" || s.Source != "" {
		b.WriteString("\n## What the reference says\n\n")
		if s.Reference != "" {
			fmt.Fprintf(&b, "> %s\n\n", s.Reference)
		}
		if s.Source != "" && s.Source != s.Reference {
			fmt.Fprintf(&b, "Source: %s\n\n", s.Source)
		}
	}
	ex := s.Exchange
	if ex == nil {
		b.WriteString("\n(The request and response were not kept.)\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("## Request\n\n```http\n")
	target := ex.Request.URL
	host := ""
	if u, err := url.Parse(ex.Request.URL); err == nil {
		target, host = u.RequestURI(), u.Host
	}
	fmt.Fprintf(&b, "%s %s HTTP/1.1\n", ex.Request.Method, target)
	hasHost := false
	for _, h := range ex.Request.Headers {
		hasHost = hasHost || strings.EqualFold(h.Name, "Host")
	}
	if !hasHost && host != "" {
		fmt.Fprintf(&b, "Host: %s\n", host)
	}
	writeMessage(&b, &ex.Request)
	b.WriteString("```\n\n## Response\n\n```http\n")
	if ex.Response == nil {
		b.WriteString("(no response)\n")
	} else {
		fmt.Fprintf(&b, "HTTP/1.1 %s\n", ex.Response.Status)
		writeMessage(&b, ex.Response)
	}
	b.WriteString("```\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fence keeps a body from closing the code block it is quoted in.
var fence = regexp.MustCompile("(?m)^```")

// writeMessage writes a message's headers, a blank line and its body.
func writeMessage(b *strings.Builder, m *verdict.Message) {
	for _, h := range m.Headers {
		fmt.Fprintf(b, "%s: %s\n", h.Name, h.Value)
	}
	b.WriteString("\n")
	switch {
	case m.BodyUnknown:
		b.WriteString("(body read by the SDK, not kept)\n")
	case m.BodyBase64:
		fmt.Fprintf(b, "(body, base64) %s\n", m.Body)
	case m.Body != "":
		b.WriteString(fence.ReplaceAllString(m.Body, "` ``"))
		if !strings.HasSuffix(m.Body, "\n") {
			b.WriteString("\n")
		}
	}
	if m.BodyOmitted > 0 {
		fmt.Fprintf(b, "(%d more bytes of body not kept)\n", m.BodyOmitted)
	}
}
