package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/internal/synthhist"
	"github.com/stormcheck/stormcheck/runner"
)

// TestCheckJudgesADamagedHistoryUpToTheDamage: a history whose compressed
// stream stops decoding halfway (bytes flipped on disk) is judged, as a
// cut one, up to its last good record, and the warning says where and
// why: exit 4. It failed the whole check (exit 3) with only the decoder's
// words ("match offset (990985) bigger than current history (56969)"). A
// file that is not a history at all is named as such.
func TestCheckJudgesADamagedHistoryUpToTheDamage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, runner.ScenarioFile), []byte(synthhist.Scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, runner.HistoryFile)
	if _, err := synthhist.WriteFile(path, synthhist.Config{Ops: 40_000, CounterKeys: 100, LWWKeys: 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b)/2 + 1000; i < len(b)/2+1000+40; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"check", dir}, &out, &errOut)
	if code != exitUndecided || !strings.Contains(errOut.String(), "history damaged after record") ||
		!strings.Contains(errOut.String(), "the compressed stream does not decode") || !strings.Contains(out.String(), "checks:") {
		t.Fatalf("exit %d, want %d judging up to the damage\nstdout:\n%s\nstderr:\n%s", code, exitUndecided, out.String(), errOut.String())
	}
	if strings.Contains(out.String(), "FAIL") {
		t.Errorf("a check failed over the history up to its damage:\n%s", out.String())
	}

	if err := os.WriteFile(path, []byte("PK\x03\x04 a zip file, say\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	code = run([]string{"check", dir}, &out, &errOut)
	if code != exitHarness || !strings.Contains(errOut.String(), "history line 1: not a stormcheck history (zstd-compressed JSON lines") {
		t.Errorf("a zip file as the history: exit %d\n%s", code, errOut.String())
	}
}
