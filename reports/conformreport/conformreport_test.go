package conformreport

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// conformRule makes a concluded result: steps judged from (expect, observe)
// pairs.
func conformRule(id string, tags []string, steps ...[2]int) verdict.RuleResult {
	r := verdict.RuleResult{ID: id, Title: "title " + id, Tags: tags, Elapsed: 1500 * time.Millisecond, Target: "azurite"}
	for i, s := range steps {
		e := verdict.StepExpect{Status: []int{s[0]}}
		o := verdict.StepObservation{Status: s[1]}
		if s[0] == 412 {
			e.ErrorCode = []string{"LeaseIdMissing"}
			if s[1] == 412 {
				o.ErrorCode = "LeaseIdMissing"
			}
		}
		if s[1] == 0 {
			o.Err = "dial tcp: connection refused"
		}
		r.Add(verdict.JudgeStep(i+1, "blob.put", e, o))
	}
	r.Conclude()
	return r
}

func conformSample() ([]verdict.RuleResult, *verdict.BaselineReport) {
	lease := []string{"blob", "lease"}
	results := []verdict.RuleResult{
		conformRule("blob.lease.pass", lease, [2]int{201, 201}),
		conformRule("blob.lease.unexpected", lease, [2]int{201, 201}, [2]int{201, 201}, [2]int{412, 201}),
		conformRule("blob.lease.known", lease, [2]int{412, 200}),
		conformRule("blob.etag.error", []string{"blob", "etag"}, [2]int{200, 0}),
		conformRule("queue.msg.pass", []string{"queue", "messages"}, [2]int{201, 201}),
	}
	b := &verdict.Baseline{Target: "azurite 3.37.0", Divergences: []verdict.AcceptedDivergence{
		{Rule: "blob.lease.known", Actual: "200", Reason: "azurite does not check leases", Link: "https://example.invalid/1"},
	}}
	rep := verdict.CompareBaseline(results, b)
	return results, &rep
}

func TestConformMatrix(t *testing.T) {
	results, rep := conformSample()
	var b strings.Builder
	if err := WriteConformMatrix(&b, results, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	norm := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		norm[reportstest.Fields(l)] = true
	}
	for _, want := range []string{
		"blob / etag",
		"blob / lease",
		"queue / messages",
		"ERROR blob.etag.error title blob.etag.error error: step 1 blob.put: no HTTP response: dial tcp: connection refused",
		"PASS blob.lease.pass title blob.lease.pass",
		"DIVERGES known blob.lease.known title blob.lease.known step 1 blob.put: expected 412 LeaseIdMissing, got 200",
		"DIVERGES blob.lease.unexpected title blob.lease.unexpected step 3 blob.put: expected 412 LeaseIdMissing, got 201",
		"5 rules: 2 pass, 2 diverge (1 known), 1 error",
		"baseline (azurite 3.37.0): 1 unexpected, 1 known, 0 changed, 0 fixed, 1 errors: FAIL",
	} {
		if !norm[want] {
			t.Errorf("no line %q in:\n%s", want, out)
		}
	}
	if strings.Index(out, "blob / etag") > strings.Index(out, "blob / lease") {
		t.Errorf("groups out of order:\n%s", out)
	}
	if strings.Contains(out, " \n") {
		t.Errorf("trailing blanks:\n%q", out)
	}
	// Aligned: the id column starts at the same offset on every row of a group.
	var cols []int
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "blob.lease.") {
			cols = append(cols, strings.Index(l, "blob.lease."))
		}
	}
	if len(cols) != 3 || cols[0] != cols[1] || cols[1] != cols[2] {
		t.Errorf("id columns not aligned: %v\n%s", cols, out)
	}

	b.Reset()
	if err := WriteConformMatrix(&b, results, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "5 rules: 2 pass, 2 diverge, 1 error\n") || strings.Contains(b.String(), "DIVERGES known") {
		t.Errorf("no-baseline matrix:\n%s", b.String())
	}
}

func TestConformJSONRoundTrip(t *testing.T) {
	results, rep := conformSample()
	path := filepath.Join(t.TempDir(), "conformance.json")
	if err := WriteConformJSON(path, results, rep); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back ConformReport
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Results, results) {
		t.Errorf("results differ:\n%+v\n%+v", back.Results, results)
	}
	if !reflect.DeepEqual(back.Baseline, rep) {
		t.Errorf("baseline differs:\n%+v\n%+v", back.Baseline, rep)
	}
	if back.OK {
		t.Error("ok with an unexpected divergence")
	}
}

// junit mirrors the JUnit schema for reading back what was written.
type junitBack struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestConformJUnit(t *testing.T) {
	results, rep := conformSample()
	tests := []struct {
		name                     string
		rep                      *verdict.BaselineReport
		tests, failures, errors  int
		blobFailures, queueTests int
		knownNote                bool
	}{
		{"with baseline", rep, 5, 1, 1, 1, 1, true},
		{"without baseline", nil, 5, 2, 1, 2, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "junit.xml")
			if err := WriteConformJUnit(path, results, tc.rep); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc junitBack
			if err := xml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if doc.Tests != tc.tests || doc.Failures != tc.failures || doc.Errors != tc.errors {
				t.Errorf("totals %d/%d/%d\n%s", doc.Tests, doc.Failures, doc.Errors, data)
			}
			if len(doc.Suites) != 2 || doc.Suites[0].Name != "blob" || doc.Suites[1].Name != "queue" {
				t.Fatalf("suites: %+v", doc.Suites)
			}
			if doc.Suites[0].Failures != tc.blobFailures || doc.Suites[1].Tests != tc.queueTests {
				t.Errorf("suite counts: %+v", doc.Suites)
			}
			for _, c := range doc.Suites[0].Cases {
				switch c.Name {
				case "blob.lease.unexpected":
					if c.Failure == nil || c.Failure.Message != "step 3 blob.put: expected 412 LeaseIdMissing, got 201" || c.Classname != "blob.lease" || c.Time != "1.500" {
						t.Errorf("unexpected case: %+v", c)
					}
				case "blob.lease.known":
					if tc.knownNote != (c.Failure == nil) || tc.knownNote != strings.Contains(c.SystemOut, "azurite does not check leases") {
						t.Errorf("known case: %+v", c)
					}
				case "blob.etag.error":
					if c.Error == nil || !strings.Contains(c.Error.Message, "connection refused") {
						t.Errorf("error case: %+v", c)
					}
				}
			}
		})
	}
}

func TestConformDiff(t *testing.T) {
	lease := []string{"blob", "lease"}
	a := []verdict.RuleResult{conformRule("r1", lease, [2]int{412, 412}), conformRule("r2", lease, [2]int{201, 201})}
	b := []verdict.RuleResult{conformRule("r1", lease, [2]int{412, 200})}
	var sb strings.Builder
	if err := WriteConformDiff(&sb, verdict.DiffTargets(a, b), "azure", "azurite"); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"RULE azure azurite",
		"r1 status pass diverges",
		"step 1 blob.put 412 LeaseIdMissing 200",
		"r2 status pass (not run)",
		"2 rules differ",
	} {
		if !strings.Contains(reportstest.Fields(strings.ReplaceAll(out, "\n", "|")), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	sb.Reset()
	_ = WriteConformDiff(&sb, nil, "azure", "azurite")
	if sb.String() != "no differences between azure and azurite\n" {
		t.Errorf("empty diff: %q", sb.String())
	}
}
