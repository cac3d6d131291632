package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadSeesWhatGoesWrong makes sure the report test's assertions can
// fail: a page with a console error, an uncaught exception and a request to
// another host is reported as such, and its <svg> is measured.
func TestLoadSeesWhatGoesWrong(t *testing.T) {
	exe, err := Chromium(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.html")
	page := `<!doctype html><html><head><title>bad &amp; page</title></head><body>
<svg id="c" aria-label="a chart" width="300" height="200" viewBox="0 0 300 200"><rect width="10" height="10"/><text x="5" y="20">x</text></svg>
<img src="http://example.invalid/pixel.png">
<script>console.error("boom", 42); throw new Error("thrown");</script>
</body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(context.Background(), path, Options{Chromium: exe, Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "bad & page" {
		t.Errorf("title %q", p.Title)
	}
	var boom, thrown bool
	for _, m := range p.Errors() {
		boom = boom || strings.Contains(m.Text, "boom")
		thrown = thrown || strings.Contains(m.Text, "thrown")
	}
	if !boom || !thrown {
		t.Errorf("console error seen %v, exception seen %v; messages %v", boom, thrown, p.Messages)
	}
	self, _ := FileURL(path)
	if ext := p.External(self); len(ext) != 1 || !strings.Contains(ext[0], "example.invalid") {
		t.Errorf("external requests %v (all: %v)", ext, p.Requests)
	}
	if len(p.SVGs) != 1 || p.SVGs[0].ID != "c" || p.SVGs[0].Label != "a chart" || p.SVGs[0].Width != 300 || p.SVGs[0].Height != 200 || p.SVGs[0].Shapes != 2 {
		t.Errorf("svgs %+v", p.SVGs)
	}
	if len(p.Screenshot) < 100 || string(p.Screenshot[1:4]) != "PNG" {
		t.Errorf("screenshot is not a PNG (%d bytes)", len(p.Screenshot))
	}
}
