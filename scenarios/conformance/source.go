package conformance

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Source says where an expectation comes from. A rule's source is written
// as one line of text, or as a mapping naming each kind of evidence; a
// step's evidence: (same forms) replaces the rule's for that step.
type Source struct {
	// Text is a source written as one line.
	Text string
	// REST is the REST reference page.
	REST string
	// Spec is the operation's definition in Azure/azure-rest-api-specs.
	Spec string
	// Live is live evidence: an SDK's recorded test against the service,
	// a public report of raw requests to it.
	Live []string
	// Says is the reference's (or the live record's) sentence the
	// expectation rests on, quoted in divergence reports.
	Says string
	// Note says more, e.g. how live Azure and the documentation differ.
	Note string
	// Follows is EvidenceLive when live evidence and the documentation
	// disagree and the expectation follows live Azure (Note says how they
	// differ); "" otherwise.
	Follows string
}

// The kinds of evidence (Source.Kinds).
const (
	EvidenceREST = "rest"
	EvidenceSpec = "spec"
	EvidenceLive = "live"
)

// sourceFields are the fields of a source written as a mapping.
var sourceFields = []string{"rest", "spec", "live", "says", "note", "follows"}

// Kinds are the kinds of evidence s names: rest when it names a REST
// reference page (a mapping's rest, or text starting "REST:" or holding a
// learn.microsoft.com address), spec, live (a mapping's live only: live
// evidence is cited by address).
func (s Source) Kinds() []string {
	var out []string
	if s.REST != "" || strings.HasPrefix(s.Text, "REST:") || strings.Contains(s.Text, "learn.microsoft.com/") {
		out = append(out, EvidenceREST)
	}
	if s.Spec != "" || strings.Contains(s.Text, "azure-rest-api-specs") {
		out = append(out, EvidenceSpec)
	}
	if len(s.Live) > 0 {
		out = append(out, EvidenceLive)
	}
	return out
}

// String is the one-line form reports show.
func (s Source) String() string {
	if s.Text != "" {
		return s.Text
	}
	var parts []string
	if s.REST != "" {
		parts = append(parts, "REST: "+s.REST)
	}
	if s.Spec != "" {
		parts = append(parts, "spec: "+s.Spec)
	}
	if len(s.Live) > 0 {
		parts = append(parts, "live: "+strings.Join(s.Live, ", "))
	}
	if s.Follows == EvidenceLive {
		parts = append(parts, "follows live Azure")
	}
	if s.Note != "" {
		parts = append(parts, s.Note)
	}
	return strings.Join(parts, "; ")
}

// Sentence is what a divergence report quotes: Says, else the one-line
// form.
func (s Source) Sentence() string {
	if s.Says != "" {
		return s.Says
	}
	return s.String()
}

// source decodes a rule's source or a step's evidence.
func (d *decoder) source(n *yaml.Node, path string) Source {
	if n.Kind == yaml.ScalarNode {
		s, ok := d.str(n, path)
		if ok && strings.TrimSpace(s) == "" {
			d.errorf(n, path, "must not be empty")
		}
		return Source{Text: s}
	}
	fs, ok := d.mapping(n, path, "where the expectation comes from: one line of text, or a mapping of "+strings.Join(sourceFields, ", "))
	if !ok {
		return Source{}
	}
	d.allow(fs, path, sourceFields)
	var s Source
	text := func(name string, dst *string) {
		if p, ok := fs[name]; ok {
			if v, ok := d.str(p.val, join(path, name)); ok && strings.TrimSpace(v) == "" {
				d.errorf(p.val, join(path, name), "must not be empty")
			} else {
				*dst = v
			}
		}
	}
	text("rest", &s.REST)
	text("spec", &s.Spec)
	text("says", &s.Says)
	text("note", &s.Note)
	text("follows", &s.Follows)
	if p, ok := fs["live"]; ok {
		s.Live = d.strOrList(p.val, join(path, "live"), "addresses of live evidence")
	}
	if s.REST == "" && s.Spec == "" && len(s.Live) == 0 {
		d.errorf(n, path, "names no evidence: give at least one of rest (the REST reference page), spec (azure-rest-api-specs) or live (an SDK's recorded test, a public report of raw requests to the service)")
	}
	if p, ok := fs["follows"]; ok {
		switch {
		case s.Follows != EvidenceLive:
			d.errorf(p.val, join(path, "follows"), "must be live (the expectation follows live Azure where it and the documentation disagree), got %q", s.Follows)
		case len(s.Live) == 0 || s.Note == "":
			d.errorf(p.val, join(path, "follows"), "follows: live needs the live evidence (live) and a note saying how the documentation differs (note)")
		}
	}
	return s
}

// StepSource is the source of step i's expectation: the step's evidence,
// else the rule's source.
func (r *Rule) StepSource(i int) Source {
	if s := r.Steps[i].Evidence; s != nil {
		return *s
	}
	return r.Evidence
}

// Undecided reports whether some step of op accepts several answers
// (several statuses or error codes) without live evidence that decides
// between them; op "" means any step.
func (r *Rule) Undecided(op string) bool {
	for i := range r.Steps {
		st := &r.Steps[i]
		if op != "" && st.RefOp() != op || len(st.Expect.Status) < 2 && len(st.Expect.ErrorCode) < 2 {
			continue
		}
		if !slices.Contains(r.StepSource(i).Kinds(), EvidenceLive) {
			return true
		}
	}
	return false
}

// Unsourced lists the rules and steps whose source names no evidence (no
// REST page, spec or live evidence), as FILE:LINE: ID (step N): the
// shipped rules have none.
func Unsourced(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		if len(r.Evidence.Kinds()) == 0 {
			out = append(out, fmt.Sprintf("%s:%d: %s: source %q names no REST page, spec or live evidence", r.File, r.Line, r.ID, r.Source))
		}
		for i, st := range r.Steps {
			if st.Evidence != nil && len(st.Evidence.Kinds()) == 0 {
				out = append(out, fmt.Sprintf("%s:%d: %s (step %d): evidence %q names no REST page, spec or live evidence", r.File, st.Line, r.ID, i+1, st.Evidence))
			}
		}
	}
	return out
}
