package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stormcheck/stormcheck/reports/conformreport"
)

// TestConformOneScreen: every built-in rule against a managed Azurite with
// the shipped baseline prints under 60 lines, none over 100 characters,
// with the totals of conform.json; -v lists every rule; --format json and
// junit put the results files' forms on stdout (the files are written
// too).
func TestConformOneScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every conformance rule against a managed Azurite")
	}
	tmp := t.TempDir()
	conform := func(dir string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"conform", "--out", filepath.Join(tmp, dir)}, args...), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	readReport := func(dir string) conformreport.ConformReport {
		var rep conformreport.ConformReport
		b, err := os.ReadFile(filepath.Join(tmp, dir, "conform.json"))
		if err == nil {
			err = json.Unmarshal(b, &rep)
		}
		if err != nil || len(rep.Results) == 0 {
			t.Fatalf("%s/conform.json: %v", dir, err)
		}
		return rep
	}

	code, out, errOut := conform("all", "--baseline", "azurite-3.37.0")
	if code != exitOK {
		t.Fatalf("conform --baseline azurite-3.37.0: exit %d\n%s\n%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) >= 60 {
		t.Errorf("%d lines, want under 60:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d characters: %q", n, l)
		}
	}
	rep := readReport("all")
	if len(rep.Results) < 300 || rep.Baseline == nil {
		t.Fatalf("conform.json: %d results, baseline %v", len(rep.Results), rep.Baseline)
	}
	var diverge int
	for _, r := range rep.Results {
		if r.Status == "diverges" {
			diverge++
		}
	}
	wantTotal := fmt.Sprintf("total %d %d %d %d 0", len(rep.Results), len(rep.Results)-diverge, diverge, len(rep.Baseline.Known))
	var total string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "total" {
			total = strings.Join(f, " ")
		}
	}
	if total != wantTotal {
		t.Errorf("totals line %q, want %q (from conform.json)", total, wantTotal)
	}
	if !strings.Contains(out, "0 unexpected") || !strings.Contains(out, ": OK") {
		t.Errorf("no baseline verdict:\n%s", out)
	}
	for _, it := range rep.Baseline.Known { // accepted: counted, not listed
		if strings.Contains(out, it.Rule) {
			t.Errorf("the default output lists the accepted divergence %s", it.Rule)
		}
	}

	// -v: every rule, by id.
	code, out, _ = conform("queue-v", "--tags", "queue", "--baseline", "azurite-3.37.0", "-v")
	if code != exitOK {
		t.Fatalf("conform --tags queue -v: exit %d\n%s", code, out)
	}
	qrep := readReport("queue-v")
	for _, r := range qrep.Results {
		if !strings.Contains(out, " "+r.ID+"  ") && !strings.HasSuffix(strings.TrimSpace(out), r.ID) {
			t.Errorf("-v does not list %s", r.ID)
		}
	}

	// --format json and junit: one document on stdout, the files written.
	code, out, _ = conform("queue-json", "--tags", "queue", "--baseline", "azurite-3.37.0", "--format", "json")
	var jrep conformreport.ConformReport
	if err := json.Unmarshal([]byte(out), &jrep); code != exitOK || err != nil || len(jrep.Results) != len(qrep.Results) || !jrep.OK {
		t.Errorf("--format json: exit %d, %v, %d results", code, err, len(jrep.Results))
	}
	code, out, _ = conform("queue-junit", "--tags", "queue", "--baseline", "azurite-3.37.0", "--format", "junit")
	var suites struct {
		Tests int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal([]byte(out), &suites); code != exitOK || err != nil || suites.Tests != len(qrep.Results) {
		t.Errorf("--format junit: exit %d, %v, %d tests", code, err, suites.Tests)
	}
	for _, f := range []string{"conform.json", "conform.junit.xml"} {
		if _, err := os.Stat(filepath.Join(tmp, "queue-junit", f)); err != nil {
			t.Errorf("--format junit: %v", err)
		}
	}
}
