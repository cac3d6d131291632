package html

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/internal/browser"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// TestHTMLReportInChromium loads a realistic run's report.html in a real
// headless Chromium with no network (installing Debian's chromium first
// when it is missing and the tests run as root, as in CI) and checks that
// it renders every chart with no console error and no request beyond the
// file itself. The screenshots are kept as test artefacts
// ($STORMCHECK_ARTIFACTS/report.png and report-top.png, else in
// $TMPDIR/stormcheck-artifacts).
//
// With STORMCHECK_REPORT_DIR set to a results directory, that saved run is
// rendered and checked too (report-<dir name>.png): docs/report.png is the
// first screen, 1280 x 1790 (report-<dir name>-top.png), of a quickstart
// run's page.
func TestHTMLReportInChromium(t *testing.T) {
	exe, dir, _ := fixtureReport(t)
	page := loadInChromium(t, exe, filepath.Join(dir, reports.HTMLFile), "report.png", 2400)
	want := map[string]bool{}
	for _, id := range []string{
		"w1-throughput", "w1-outcomes-1", "w1-outcomes-2", "w1-latency-1", "w1-latency-2", "w1-spectrum-1", "w1-spectrum-2", "w1-units-1",
		"w2-throughput", "w2-outcomes-1", "w2-latency-1", "w2-spectrum-1", "w2-units-1",
		"w1-histogram-1", "w1-histogram-2", "w2-histogram-1", "w1-inflight", "w2-inflight",
	} {
		want[id] = true
	}
	for _, svg := range page.SVGs {
		delete(want, svg.ID)
	}
	if len(want) > 0 {
		t.Errorf("charts not rendered: %v", want)
	}
	if page.Title != "stormcheck report: report-fixture" {
		t.Errorf("title %q", page.Title)
	}

	if d := os.Getenv("STORMCHECK_REPORT_DIR"); d != "" {
		t.Run("saved run", func(t *testing.T) {
			s, err := reports.ReadSummary(filepath.Join(d, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			path := filepath.Join(out, reports.HTMLFile)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			// the page links relative to the results directory; a copy
			// elsewhere still renders, only its links dangle
			if err := WriteHTML(f, s, HlogDirOf(d, s)); err != nil {
				t.Fatal(err)
			}
			f.Close()
			loadInChromium(t, exe, path, "report-"+filepath.Base(filepath.Clean(d))+".png", 1790)
		})
	}
}

// fixtureReport finds Chromium and writes the fixture run's report.html
// in a temporary results directory: the browser, the directory and the
// run's summary.
func fixtureReport(t *testing.T) (string, string, *reports.Summary) {
	t.Helper()
	exe, err := browser.Chromium(context.Background(), nil)
	if err != nil {
		t.Fatalf("the HTML report's browser test needs Chromium: %v", err)
	}
	dir := t.TempDir()
	s := reportstest.WriteFixtureRun(t, dir, reportstest.PlainNames)
	if err := WriteHTMLReport(dir, s); err != nil {
		t.Fatal(err)
	}
	return exe, dir, s
}

// loadInChromium loads the page, fails the test on any console error or
// external request or on a chart that did not render at a readable size,
// and keeps the screenshot under the artefacts directory.
func loadInChromium(t *testing.T, exe, path, shot string, height int) *browser.Page {
	t.Helper()
	page, err := browser.Load(context.Background(), path, browser.Options{Chromium: exe, Width: 1280, Height: height})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Errors() {
		t.Errorf("console: %s", m)
	}
	self, _ := browser.FileURL(path)
	if ext := page.External(self); len(ext) > 0 {
		t.Errorf("the page requested %v: it must be self-contained", ext)
	}
	if len(page.SVGs) == 0 {
		t.Error("no <svg> rendered")
	}
	for _, svg := range page.SVGs {
		if svg.Width < 300 || svg.Height < 80 || svg.Shapes < 10 {
			t.Errorf("chart %s (%s) rendered %.0fx%.0f px with %d shapes", svg.ID, svg.Label, svg.Width, svg.Height, svg.Shapes)
		}
		if !strings.HasPrefix(svg.Label, "workload ") {
			t.Errorf("chart %s has no description: %q", svg.ID, svg.Label)
		}
	}
	out, err := browser.ArtifactPath(shot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, page.Screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	top := strings.TrimSuffix(out, ".png") + "-top.png"
	if err := os.WriteFile(top, page.Top, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d charts, page %.0f px tall; screenshots: %s (whole page), %s (first screen)", len(page.SVGs), page.Height, out, top)
	return page
}
