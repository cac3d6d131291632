package verdict

import (
	"strings"
	"testing"
)

func strp(s string) *string { return &s }

func TestConformJudgeStep(t *testing.T) {
	hdrs := map[string]string{"x-ms-lease-id": "abc", "etag": "\"1\""}
	tests := []struct {
		name     string
		e        StepExpect
		o        StepObservation
		pass     bool
		errored  bool
		expected string
		actual   string
	}{
		{"status ok", StepExpect{Status: []int{200, 201}}, StepObservation{Status: 201}, true, false, "200/201", "201"},
		{"status bad", StepExpect{Status: []int{412}, ErrorCode: []string{"LeaseIdMissing"}}, StepObservation{Status: 201}, false, false, "412 LeaseIdMissing", "201"},
		{"error code ok", StepExpect{Status: []int{412}, ErrorCode: []string{"LeaseIdMissing"}}, StepObservation{Status: 412, ErrorCode: "LeaseIdMissing"}, true, false, "412 LeaseIdMissing", "412 LeaseIdMissing"},
		{"error code exact", StepExpect{Status: []int{412}, ErrorCode: []string{"LeaseIdMissing"}}, StepObservation{Status: 412, ErrorCode: "leaseidmissing"}, false, false, "412 LeaseIdMissing", "412 leaseidmissing"},
		{"changed ok", StepExpect{ETag: ETagChanged}, StepObservation{Status: 201, ETag: "b", PrevETag: "a"}, true, false, "any status, ETag changed", "201, ETag changed"},
		{"changed same", StepExpect{ETag: ETagChanged}, StepObservation{Status: 201, ETag: "a", PrevETag: "a"}, false, false, "any status, ETag changed", "201, ETag unchanged"},
		{"changed none", StepExpect{ETag: ETagChanged}, StepObservation{Status: 201, PrevETag: "a"}, false, false, "any status, ETag changed", "201, no ETag returned"},
		{"unchanged ok", StepExpect{Status: []int{412}, ETag: ETagUnchanged}, StepObservation{Status: 412, ETag: "a", PrevETag: "a"}, true, false, "412, ETag unchanged", "412, ETag unchanged"},
		{"unchanged none", StepExpect{Status: []int{412}, ETag: ETagUnchanged}, StepObservation{Status: 412, PrevETag: "a"}, true, false, "412, ETag unchanged", "412, no ETag returned"},
		{"unchanged differs", StepExpect{Status: []int{412}, ETag: ETagUnchanged}, StepObservation{Status: 412, ETag: "b", PrevETag: "a"}, false, false, "412, ETag unchanged", "412, ETag changed"},
		{"equals ok", StepExpect{ETag: ETagEquals, ETagRef: "r"}, StepObservation{Status: 200, ETag: "r"}, true, false, "any status, ETag equals ref", "200, ETag equals ref"},
		{"equals bad", StepExpect{ETag: ETagEquals, ETagRef: "r"}, StepObservation{Status: 200, ETag: "x"}, false, false, "any status, ETag equals ref", "200, ETag differs from ref"},
		{"differs ok", StepExpect{ETag: ETagDiffers, ETagRef: "r"}, StepObservation{Status: 200, ETag: "x"}, true, false, "any status, ETag differs from ref", "200, ETag differs from ref"},
		{"differs bad", StepExpect{ETag: ETagDiffers, ETagRef: "r"}, StepObservation{Status: 200, ETag: "r"}, false, false, "any status, ETag differs from ref", "200, ETag equals ref"},
		{"differs none", StepExpect{ETag: ETagDiffers, ETagRef: "r"}, StepObservation{Status: 200}, false, false, "any status, ETag differs from ref", "200, no ETag returned"},
		{"unknown etag kind", StepExpect{ETag: "sideways"}, StepObservation{Status: 200}, false, true, "any status, ETag sideways", "200, ETag ?"},
		{"headers ok", StepExpect{HeadersPresent: []string{"X-Ms-Lease-Id", "ETag"}}, StepObservation{Status: 200, Headers: hdrs}, true, false, "any status, headers X-Ms-Lease-Id ETag", "200, headers present"},
		{"headers missing", StepExpect{HeadersPresent: []string{"x-ms-lease-state"}}, StepObservation{Status: 200, Headers: hdrs}, false, false, "any status, headers x-ms-lease-state", "200, missing x-ms-lease-state"},
		{"header value ok", StepExpect{Headers: map[string]string{"X-Ms-Lease-Id": "abc"}}, StepObservation{Status: 200, Headers: hdrs}, true, false, `any status, X-Ms-Lease-Id: "abc"`, "200, header values as expected"},
		{"header value differs", StepExpect{Headers: map[string]string{"x-ms-lease-id": "abd", "x-ms-lease-state": "leased"}}, StepObservation{Status: 200, Headers: hdrs}, false, false,
			`any status, x-ms-lease-id: "abd", x-ms-lease-state: "leased"`, `200, x-ms-lease-id: "abc", x-ms-lease-state missing`},
		{"body ok", StepExpect{Body: strp("v1")}, StepObservation{Status: 200, Body: "v1"}, true, false, `any status, body "v1"`, `200, body "v1"`},
		{"body bad", StepExpect{Body: strp("v1")}, StepObservation{Status: 200, Body: "v2"}, false, false, `any status, body "v1"`, `200, body "v2"`},
		{"raw status is a divergence", StepExpect{Status: []int{200}}, StepObservation{Err: "cannot parse", RawStatus: "HTTP/1.1 299 Weird"}, false, false, "200", `unparsed response "HTTP/1.1 299 Weird"`},
		{"transport error", StepExpect{Status: []int{200}}, StepObservation{Err: "dial tcp: connection refused"}, false, true, "200", "error: dial tcp: connection refused"},
		{"SDK error with status judged on status", StepExpect{Status: []int{409}}, StepObservation{Status: 409, Err: "ResponseError"}, true, false, "409", "409"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeStep(3, "blob.put", tc.e, tc.o)
			if v.Pass != tc.pass || v.Errored != tc.errored {
				t.Errorf("pass %v errored %v, want %v %v (reason %q)", v.Pass, v.Errored, tc.pass, tc.errored, v.Reason)
			}
			if v.Expected != tc.expected || v.Actual != tc.actual {
				t.Errorf("expected %q actual %q, want %q %q", v.Expected, v.Actual, tc.expected, tc.actual)
			}
			if v.Step != 3 || v.Op != "blob.put" {
				t.Errorf("step %d op %q", v.Step, v.Op)
			}
			if (v.Reason == "") != v.Pass {
				t.Errorf("reason %q with pass %v", v.Reason, v.Pass)
			}
		})
	}
}

func TestConformJudgeStepLongBody(t *testing.T) {
	v := JudgeStep(1, "blob.get", StepExpect{Body: strp("a")}, StepObservation{Status: 200, Body: strings.Repeat("x", 500)})
	if len(v.Actual) > 100 || !strings.HasSuffix(v.Actual, "…") {
		t.Errorf("actual not shortened: %q", v.Actual)
	}
}

func TestConformJudgeRule(t *testing.T) {
	pass := StepVerdict{Pass: true}
	div := StepVerdict{Reason: "status"}
	errd := StepVerdict{Errored: true, Reason: "no HTTP response"}
	tests := []struct {
		name   string
		steps  []StepVerdict
		runErr string
		status ConformStatus
		first  int
	}{
		{"no steps", nil, "", ConformPass, -1},
		{"all pass", []StepVerdict{pass, pass}, "", ConformPass, -1},
		{"diverges", []StepVerdict{pass, div, div}, "", ConformDiverges, 1},
		{"transport error", []StepVerdict{pass, errd}, "", ConformError, -1},
		{"error after divergence", []StepVerdict{div, errd}, "", ConformError, 0},
		{"setup failed", nil, "setup: container create: 403", ConformError, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, first := JudgeRule(tc.steps, tc.runErr)
			if status != tc.status || first != tc.first {
				t.Errorf("got %s %d, want %s %d", status, first, tc.status, tc.first)
			}
			r := RuleResult{Error: tc.runErr}
			for _, s := range tc.steps {
				r.Add(s)
			}
			r.Conclude()
			if r.Status != tc.status || r.FirstDivergence != tc.first {
				t.Errorf("Conclude: %s %d", r.Status, r.FirstDivergence)
			}
		})
	}
}

func TestConformErrorText(t *testing.T) {
	r := RuleResult{Steps: []StepVerdict{{Step: 1, Pass: true}, {Step: 2, Op: "blob.get", Errored: true, Reason: "no HTTP response: timeout"}}}
	if got, want := r.ErrorText(), "step 2 blob.get: no HTTP response: timeout"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	r.Error = "setup failed"
	if r.ErrorText() != "setup failed" {
		t.Errorf("got %q", r.ErrorText())
	}
}

func TestConformJudgeStepHeadersAbsent(t *testing.T) {
	e := StepExpect{Status: []int{202}, HeadersAbsent: []string{"ETag"}}
	if v := JudgeStep(1, "blob.delete", e, StepObservation{Status: 202, Headers: map[string]string{"x-ms-request-id": "r"}}); !v.Pass {
		t.Errorf("no ETag returned must pass: %+v", v)
	}
	v := JudgeStep(1, "blob.delete", e, StepObservation{Status: 202, ETag: `"0x1"`, Headers: map[string]string{"etag": `"0x1"`}})
	if v.Pass || !strings.Contains(v.Actual, "has ETag") || !strings.Contains(v.Expected, "no ETag") {
		t.Errorf("an ETag where none is documented must diverge: %+v", v)
	}
}
