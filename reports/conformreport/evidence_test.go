package conformreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/conformance/verdict"
)

// One file per diverging step, none for passing or errored steps or rules;
// a body holding a code fence cannot close the block it is quoted in.
func TestWriteEvidence(t *testing.T) {
	ex := &verdict.Exchange{
		Request: verdict.Message{Method: "PUT", URL: "http://127.0.0.1:1/acct/c/b?comp=lease",
			Headers: []verdict.Header{{Name: "Authorization", Value: "REDACTED"}, {Name: "x-ms-lease-action", Value: "grab"}}},
		Response: &verdict.Message{Status: "400 Bad Request", Body: "line\n```\nafter", BodyOmitted: 7},
	}
	results := []verdict.RuleResult{
		{ID: "r.div", Title: "T", Target: "managed Azurite", Status: verdict.ConformDiverges, Steps: []verdict.StepVerdict{
			{Step: 1, Op: "blob.put", Pass: true},
			{Step: 2, Op: "blob.raw", Expected: "400 InvalidHeaderValue", Actual: "400", Reason: "error code (none) not in InvalidHeaderValue",
				Reference: "x-ms-lease-action: acquire | renew | change | release | break", Source: "REST: lease-blob", Exchange: ex, Against: verdict.AgainstLive},
			{Step: 3, Op: "blob.get", Expected: "200", Actual: "404"},
		}},
		{ID: "r.pass", Status: verdict.ConformPass, Steps: []verdict.StepVerdict{{Step: 1, Pass: true}}},
		{ID: "r.err", Status: verdict.ConformError, Steps: []verdict.StepVerdict{{Step: 1, Errored: true}}},
	}
	dir := filepath.Join(t.TempDir(), "ev")
	files, err := WriteEvidence(dir, results)
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, err %v", files, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.div.step-2.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"# r.div: step 2 (blob.raw) diverges", "- Target: managed Azurite", "- Expected: 400 InvalidHeaderValue\n- Got: 400",
		"> x-ms-lease-action: acquire", "- Against: what the live service is recorded to answer", "Source: REST: lease-blob", "PUT /acct/c/b?comp=lease HTTP/1.1\nHost: 127.0.0.1:1\nAuthorization: REDACTED\nx-ms-lease-action: grab\n\n```",
		"HTTP/1.1 400 Bad Request\n\nline\n` ``\nafter\n(7 more bytes of body not kept)\n```\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("evidence lacks %q:\n%s", want, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "r.div.step-3.md")); !strings.Contains(string(b), "(The request and response were not kept.)") {
		t.Errorf("a step without an exchange: %s", b)
	}
	if files, err := WriteEvidence(filepath.Join(t.TempDir(), "none"), results[1:]); err != nil || len(files) != 0 {
		t.Errorf("no divergence: %v %v", files, err)
	}
}

// The summary and the Markdown say of a divergence whether it is against
// live-observed or documented-only behaviour.
func TestSummaryMarksWhatADivergenceIsAgainst(t *testing.T) {
	for _, tc := range []struct{ against, mark string }{{verdict.AgainstLive, "[live] REST: Delete Blob"}, {verdict.AgainstDocumented, "[docs] REST: Delete Blob"}} {
		results := []verdict.RuleResult{{ID: "blob.x", Title: "T", Source: "REST: Delete Blob", Tags: []string{"blob", "conditional"},
			Status: verdict.ConformDiverges, FirstDivergence: 0,
			Steps: []verdict.StepVerdict{{Step: 1, Op: "blob.delete", Expected: "202", Actual: "412", Against: tc.against}}}}
		var text, md strings.Builder
		if err := WriteConformSummary(&text, results, nil, false); err != nil {
			t.Fatal(err)
		}
		if err := WriteConformMarkdown(&md, results, nil, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "step 1 blob.delete  "+tc.mark) || !strings.Contains(md.String(), "| "+tc.mark+" |") {
			t.Errorf("%s: the divergence does not say %q:\n%s\n%s", tc.against, tc.mark, text.String(), md.String())
		}
	}
}
