package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
)

func TestInitWritesAStarterThatValidates(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "counter.yaml")
	var out, errOut bytes.Buffer
	if code := run([]string{"init", "blob.etag-counter", file}, &out, &errOut); code != exitOK {
		t.Fatalf("init: exit %d %s", code, errOut.String())
	}
	out.Reset()
	if code := run([]string{"validate", file}, &out, &errOut); code != exitOK {
		t.Fatalf("the starter does not validate: %s", errOut.String())
	}
	first, _ := os.ReadFile(file)
	if !strings.Contains(string(first), "kind: blob.etag-counter") || !strings.Contains(string(first), "conditional_reads: 0") {
		t.Errorf("starter:\n%s", first)
	}
	// An existing file is left alone, unless --force.
	_ = os.WriteFile(file, []byte("mine"), 0o644)
	errOut.Reset()
	if code := run([]string{"init", "queue.work", file}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "exists; left as it is") {
		t.Errorf("init over a file: exit %d %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("init overwrote %s: %q", file, b)
	}
	if code := run([]string{"init", "--force", "queue.work", file}, &out, &errOut); code != exitOK {
		t.Errorf("init --force: exit %d", code)
	}
	// Without a file: stdout, and it loads.
	out.Reset()
	if code := run([]string{"init", "table.batch"}, &out, &errOut); code != exitOK {
		t.Fatalf("init to stdout: exit %d", code)
	}
	if _, err := scenarios.Parse("stdout.yaml", out.Bytes()); err != nil {
		t.Errorf("init table.batch to stdout does not load: %v", err)
	}
	errOut.Reset()
	if code := run([]string{"init", "blob.etag-countr"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "nearest: blob.etag-counter") {
		t.Errorf("init of an unknown kind: exit %d %s", code, errOut.String())
	}
}
