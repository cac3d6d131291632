package verdict

import (
	"strconv"
	"strings"
	"time"
)

// The conformance verdicts: a rule is a script of steps run against one
// target; each step's observed response is compared with the documented
// expectation (the REST reference), and the rule concludes pass, diverges or
// error. Everything here is pure: the runner observes, these functions judge.

// ETag expectations a step may carry (StepExpect.ETag).
const (
	// ETagAny: the step says nothing about the ETag.
	ETagAny = ""
	// ETagChanged: a non-empty ETag different from the resource's previous one.
	ETagChanged = "changed"
	// ETagUnchanged: the ETag equals the previous one, or none was returned.
	ETagUnchanged = "unchanged"
	// ETagEquals: the ETag equals StepExpect.ETagRef.
	ETagEquals = "equals"
	// ETagDiffers: a non-empty ETag different from StepExpect.ETagRef.
	ETagDiffers = "differs"
)

// maxBodyShown bounds how much of a body the one-line forms quote.
const maxBodyShown = 60

// StepExpect is one step's documented expectation. Empty fields constrain
// nothing.
type StepExpect struct {
	// Status lists the accepted HTTP status codes.
	Status []int `json:"status,omitempty"`
	// ErrorCode lists the accepted x-ms-error-code values, spelled exactly
	// as the REST reference spells them.
	ErrorCode []string `json:"error_code,omitempty"`
	// ETag is one of the ETag* constants.
	ETag string `json:"etag,omitempty"`
	// ETagRef is the resolved reference value for ETagEquals and ETagDiffers.
	ETagRef string `json:"etag_ref,omitempty"`
	// HeadersPresent names headers that must be in the response (any case).
	HeadersPresent []string `json:"headers_present,omitempty"`
	// HeadersAbsent names headers that must not be in the response (e.g.
	// Delete Blob returns no ETag).
	HeadersAbsent []string `json:"headers_absent,omitempty"`
	// Headers are headers the response must carry with exactly these
	// values.
	Headers map[string]string `json:"headers,omitempty"`
	// Body, when set, is the exact expected body.
	Body *string `json:"body,omitempty"`
	// ServiceExpect holds the table and queue expectations.
	ServiceExpect
}

// StepObservation is what the runner saw for one step.
type StepObservation struct {
	// Status is the HTTP status code; 0 when there was no parsed response.
	Status int `json:"status,omitempty"`
	// ErrorCode is the response's x-ms-error-code, if any.
	ErrorCode string `json:"error_code,omitempty"`
	// ETag is the response's ETag, "" if none was returned.
	ETag string `json:"etag,omitempty"`
	// PrevETag is the previous observed ETag of the same resource, "" if none.
	PrevETag string `json:"prev_etag,omitempty"`
	// Headers are the response headers, by lower-case name.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the response body.
	Body string `json:"body,omitempty"`
	// Err is the transport or SDK error text when there is no HTTP
	// response, or when the SDK could not parse one (then RawStatus holds
	// the status line).
	Err string `json:"err,omitempty"`
	// RawStatus is the raw status line of a response the SDK could not parse.
	RawStatus string `json:"raw_status,omitempty"`
	// ServiceObservation holds what a table or queue response carried.
	ServiceObservation
	// Exchange is the request and response, kept with the verdict.
	Exchange *Exchange `json:"-"`
}

// StepVerdict is the judgement of one step.
type StepVerdict struct {
	// Step is the step's number in the rule, as the rule file counts it.
	Step int `json:"step"`
	// Op is the operation the step ran (e.g. "blob.put").
	Op string `json:"op"`
	// Pass is true when every expectation held.
	Pass bool `json:"pass"`
	// Errored is true when the step could not be judged: a transport error
	// with no HTTP response, or an expectation the judge does not know. It
	// makes the rule an error, not a divergence.
	Errored bool `json:"errored,omitempty"`
	// Expected and Actual are one-line human forms, e.g.
	// "412 LeaseIdMissing, ETag unchanged". Actual holds no raw ETag
	// values, so it is stable across runs (baselines compare it).
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Reason says which expectations failed, "" on a pass.
	Reason string `json:"reason,omitempty"`
	// Exchange is the request sent and the response received.
	Exchange *Exchange `json:"exchange,omitempty"`
	// Reference is the sentence of the documentation (or live record) the
	// expectation rests on, and Source where it is: kept for the steps
	// that did not pass, for a report filed upstream.
	Reference string `json:"reference,omitempty"`
	Source    string `json:"source,omitempty"`
	// Against says what a step that did not pass was held to: AgainstLive
	// when its source cites live evidence of the service's answer,
	// AgainstDocumented when only the documentation says it.
	Against string `json:"against,omitempty"`
}

// The kinds of StepVerdict.Against.
const (
	AgainstLive       = "live-observed"
	AgainstDocumented = "documented-only"
)

// JudgeStep compares step i's observation with its expectation.
//
// A transport error (Err set, no Status, no RawStatus) makes an errored
// verdict: the target was not observed. A response the SDK could not parse
// (Err and RawStatus set) is a divergence whose Actual shows the raw status
// line: the target did answer, just not as documented.
//
// ETag rules: "changed" needs a non-empty ETag different from PrevETag;
// "unchanged" fails only when a returned ETag differs from PrevETag (no ETag
// returned passes, and Actual says "no ETag returned"); "equals" needs the
// ETag to equal ETagRef; "differs" needs a non-empty ETag different from
// ETagRef. Header names compare case-insensitively; the body exactly.
func JudgeStep(i int, op string, e StepExpect, o StepObservation) StepVerdict {
	v := StepVerdict{Step: i, Op: op, Expected: expectedForm(e), Exchange: o.Exchange}
	if o.Err != "" && o.Status == 0 {
		if o.RawStatus == "" {
			v.Errored = true
			v.Actual = "error: " + oneLine(o.Err)
			v.Reason = "no HTTP response: " + oneLine(o.Err)
			return v
		}
		v.Actual = "unparsed response " + strconv.Quote(oneLine(o.RawStatus))
		v.Reason = "the SDK could not parse the response: " + oneLine(o.Err)
		return v
	}

	var actual, reasons []string
	head := strconv.Itoa(o.Status)
	if o.ErrorCode != "" {
		head += " " + o.ErrorCode
	}
	if o.BatchStatus != 0 {
		head += " in " + strconv.Itoa(o.BatchStatus) + " batch"
	}
	actual = append(actual, head)
	if len(e.Status) > 0 && !containsInt(e.Status, o.Status) {
		reasons = append(reasons, "status "+strconv.Itoa(o.Status)+" not in "+joinInts(e.Status))
	}
	if len(e.ErrorCode) > 0 && !containsString(e.ErrorCode, o.ErrorCode) {
		got := o.ErrorCode
		if got == "" {
			got = "(none)"
		}
		reasons = append(reasons, "error code "+got+" not in "+strings.Join(e.ErrorCode, "/"))
	}

	if e.ETag != ETagAny {
		form, reason, known := judgeETag(e, o)
		if !known {
			v.Errored = true
		}
		actual = append(actual, form)
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}

	if len(e.HeadersPresent) > 0 {
		have := make(map[string]bool, len(o.Headers))
		for k := range o.Headers {
			have[strings.ToLower(k)] = true
		}
		var missing []string
		for _, h := range e.HeadersPresent {
			if !have[strings.ToLower(h)] {
				missing = append(missing, h)
			}
		}
		if len(missing) == 0 {
			actual = append(actual, "headers present")
		} else {
			actual = append(actual, "missing "+strings.Join(missing, " "))
			reasons = append(reasons, "missing header "+strings.Join(missing, ", "))
		}
	}

	if len(e.HeadersAbsent) > 0 {
		var there []string
		for _, h := range e.HeadersAbsent {
			for k := range o.Headers {
				if strings.EqualFold(k, h) {
					there = append(there, h)
					break
				}
			}
		}
		if len(there) == 0 {
			actual = append(actual, "headers absent")
		} else {
			actual = append(actual, "has "+strings.Join(there, " "))
			reasons = append(reasons, "unexpected header "+strings.Join(there, ", "))
		}
	}

	ha, hr := judgeHeaderValues(e.Headers, o.Headers)
	actual, reasons = append(actual, ha...), append(reasons, hr...)

	if e.Body != nil {
		actual = append(actual, "body "+quoteBody(o.Body))
		if o.Body != *e.Body {
			reasons = append(reasons, "body differs")
		}
	}

	sa, sr, known := judgeServices(e.ServiceExpect, o.ServiceObservation)
	actual, reasons = append(actual, sa...), append(reasons, sr...)
	v.Errored = v.Errored || !known

	v.Actual = strings.Join(actual, ", ")
	v.Reason = strings.Join(reasons, "; ")
	v.Pass = len(reasons) == 0 && !v.Errored
	return v
}

// judgeETag returns Actual's ETag part, the failure reason ("" when it
// held) and whether the expectation kind is known at all.
func judgeETag(e StepExpect, o StepObservation) (form, reason string, known bool) {
	returned := o.ETag != ""
	switch e.ETag {
	case ETagChanged:
		switch {
		case !returned:
			return "no ETag returned", "ETag not returned, expected a changed one", true
		case o.ETag == o.PrevETag:
			return "ETag unchanged", "ETag unchanged, expected changed", true
		}
		return "ETag changed", "", true
	case ETagUnchanged:
		switch {
		case !returned:
			return "no ETag returned", "", true
		case o.ETag != o.PrevETag:
			return "ETag changed", "ETag changed, expected unchanged", true
		}
		return "ETag unchanged", "", true
	case ETagEquals:
		switch {
		case !returned:
			return "no ETag returned", "ETag not returned, expected the reference", true
		case o.ETag != e.ETagRef:
			return "ETag differs from ref", "ETag differs from the reference", true
		}
		return "ETag equals ref", "", true
	case ETagDiffers:
		switch {
		case !returned:
			return "no ETag returned", "ETag not returned, expected one differing from the reference", true
		case o.ETag == e.ETagRef:
			return "ETag equals ref", "ETag equals the reference, expected it to differ", true
		}
		return "ETag differs from ref", "", true
	}
	return "ETag ?", "unknown ETag expectation " + strconv.Quote(e.ETag), false
}

// expectedForm is the one-line human form of an expectation.
func expectedForm(e StepExpect) string {
	var parts []string
	head := "any status"
	if len(e.Status) > 0 {
		head = joinInts(e.Status)
	}
	if len(e.ErrorCode) > 0 {
		head += " " + strings.Join(e.ErrorCode, "/")
	}
	parts = append(parts, head)
	switch e.ETag {
	case ETagAny:
	case ETagEquals:
		parts = append(parts, "ETag equals ref")
	case ETagDiffers:
		parts = append(parts, "ETag differs from ref")
	default:
		parts = append(parts, "ETag "+e.ETag)
	}
	if len(e.HeadersPresent) > 0 {
		parts = append(parts, "headers "+strings.Join(e.HeadersPresent, " "))
	}
	if len(e.HeadersAbsent) > 0 {
		parts = append(parts, "no "+strings.Join(e.HeadersAbsent, " "))
	}
	parts = append(parts, headerValuesForm(e.Headers)...)
	if e.Body != nil {
		parts = append(parts, "body "+quoteBody(*e.Body))
	}
	parts = append(parts, serviceExpectedForm(e.ServiceExpect)...)
	return strings.Join(parts, ", ")
}

// quoteBody quotes a body for a one-line form, shortened past maxBodyShown
// bytes.
func quoteBody(b string) string {
	if len(b) > maxBodyShown {
		return strconv.Quote(b[:maxBodyShown]) + "…"
	}
	return strconv.Quote(b)
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, "/")
}

// ConformStatus is a rule's conclusion on one target.
type ConformStatus string

const (
	// ConformPass: every step behaved as documented.
	ConformPass ConformStatus = "pass"
	// ConformDiverges: at least one step's response differs from the
	// documentation.
	ConformDiverges ConformStatus = "diverges"
	// ConformError: the rule could not be run to its end (setup failed,
	// transport error, timeout), so it says nothing either way.
	ConformError ConformStatus = "error"
)

// RuleResult is one rule's outcome on one target.
type RuleResult struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Source string   `json:"source,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	// Status is set by Conclude (or JudgeRule) from Steps and Error.
	Status ConformStatus `json:"status"`
	// Steps holds every step's verdict in order; judging does not stop at
	// the first divergence.
	Steps []StepVerdict `json:"steps"`
	// FirstDivergence indexes Steps: the first step that diverged (not
	// errored), -1 if none.
	FirstDivergence int `json:"first_divergence"`
	// Error says why the rule could not be run (setup failure, timeout)
	// when no step verdict shows it; it makes the rule an error.
	Error   string        `json:"error,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Target  string        `json:"target,omitempty"`
}

// JudgeRule concludes a rule from its step verdicts and runErr (the
// rule-level error, "" if none). Every step is recorded; the status is
// error when runErr is set or any step errored (the rule did not run to a
// conclusion, even if an earlier step already diverged), else diverges when
// any step failed, else pass. first is the index in steps of the first
// diverging step, -1 if none.
func JudgeRule(steps []StepVerdict, runErr string) (status ConformStatus, first int) {
	first = -1
	errored := runErr != ""
	for i, s := range steps {
		switch {
		case s.Errored:
			errored = true
		case !s.Pass && first < 0:
			first = i
		}
	}
	switch {
	case errored:
		return ConformError, first
	case first >= 0:
		return ConformDiverges, first
	}
	return ConformPass, first
}

// Add records the next step's verdict.
func (r *RuleResult) Add(v StepVerdict) { r.Steps = append(r.Steps, v) }

// Conclude sets Status and FirstDivergence from Steps and Error (see
// JudgeRule).
func (r *RuleResult) Conclude() {
	r.Status, r.FirstDivergence = JudgeRule(r.Steps, r.Error)
}

// Divergence returns the first diverging step, nil if none.
func (r *RuleResult) Divergence() *StepVerdict {
	if r.FirstDivergence < 0 || r.FirstDivergence >= len(r.Steps) {
		return nil
	}
	return &r.Steps[r.FirstDivergence]
}

// ErrorText says why an errored rule could not be run: Error, else the
// first errored step's reason, prefixed with its number and op.
func (r *RuleResult) ErrorText() string {
	if r.Error != "" {
		return r.Error
	}
	for _, s := range r.Steps {
		if s.Errored {
			return "step " + strconv.Itoa(s.Step) + " " + s.Op + ": " + s.Reason
		}
	}
	return ""
}
