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
			if len(written) == 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return written, err
				}
			}
			name := filepath.Join(dir, fmt.Sprintf("%s.step-%d.md", r.ID, s.Step))
			if err := reports.WriteFileAtomic(name, func(w io.Writer) error { return evidenceFile(w, r, s) }); err != nil {
				return written, err
			}
			written = append(written, name)
		}
	}
	return written, nil
}

// evidenceFile writes one diverging step's report.
func evidenceFile(w io.Writer, r *verdict.RuleResult, s *verdict.StepVerdict) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: step %d (%s) diverges\n\n", r.ID, s.Step, s.Op)
	fmt.Fprintf(&b, "%s\n\n", r.Title)
	if r.Target != "" {
		fmt.Fprintf(&b, "- Target: %s\n", r.Target)
	}
	fmt.Fprintf(&b, "- Expected: %s\n- Got: %s\n", s.Expected, s.Actual)
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
