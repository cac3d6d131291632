package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/examples"
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

// TestInitExampleWritesItWithTheSchema: init --example writes the built-in
// example and the schema its first line names beside it; the starter does
// too; an unknown example is refused with the nearest; a schema that
// differs is left alone without --force.
func TestInitExampleWritesItWithTheSchema(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	if code := run([]string{"init", "--example", "quickstart"}, &out, &errOut); code != exitOK {
		t.Fatalf("init --example quickstart: exit %d %s", code, errOut.String())
	}
	got, _ := os.ReadFile("quickstart.yaml")
	want, _ := examples.Read("quickstart")
	if !bytes.Equal(got, want) || !strings.HasPrefix(string(got), "# yaml-language-server: $schema="+scenarios.SchemaRef+"\n") {
		t.Errorf("quickstart.yaml is not the built-in example with the schema line")
	}
	if s, _ := os.ReadFile(examples.SchemaFile); !bytes.Equal(s, examples.Schema()) {
		t.Errorf("%s not written beside it", examples.SchemaFile)
	}
	if code := run([]string{"init", "--example", "open-loop", "--out", filepath.Join("sub", "mine.yaml")}, &out, &errOut); code != exitHarness {
		t.Errorf("init into a missing directory: exit %d", code)
	}
	_ = os.Mkdir("sub", 0o755)
	errOut.Reset()
	if code := run([]string{"init", "--example", "open-loop", "--out", filepath.Join("sub", "mine.yaml")}, &out, &errOut); code != exitOK {
		t.Fatalf("init --example --out: exit %d %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join("sub", examples.SchemaFile)); err != nil {
		t.Errorf("no schema beside --out: %v", err)
	}
	if code := run([]string{"validate", filepath.Join("sub", "mine.yaml")}, &out, &errOut); code != exitOK {
		t.Errorf("the written example does not validate: %s", errOut.String())
	}
	// The starter writes the schema beside it too, and leaves a differing one alone.
	_ = os.WriteFile(filepath.Join("sub", examples.SchemaFile), []byte("{}"), 0o644)
	errOut.Reset()
	if code := run([]string{"init", "blob.lww", filepath.Join("sub", "lww.yaml")}, &out, &errOut); code != exitOK || !strings.Contains(errOut.String(), "left as it is (--force replaces it)") {
		t.Errorf("starter beside a differing schema: exit %d %s", code, errOut.String())
	}
	if s, _ := os.ReadFile(filepath.Join("sub", examples.SchemaFile)); string(s) != "{}" {
		t.Errorf("a differing schema was replaced without --force")
	}
	if code := run([]string{"init", "--force", "blob.lww", filepath.Join("sub", "lww.yaml")}, &out, &errOut); code != exitOK {
		t.Errorf("init --force: exit %d", code)
	}
	if s, _ := os.ReadFile(filepath.Join("sub", examples.SchemaFile)); !bytes.Equal(s, examples.Schema()) {
		t.Errorf("--force did not replace the differing schema")
	}
	errOut.Reset()
	if code := run([]string{"init", "--example", "quickstrat"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "did you mean quickstart?") {
		t.Errorf("unknown example: exit %d %s", code, errOut.String())
	}
	if code := run([]string{"init", "--example", "lww", "x.yaml"}, &out, &errOut); code != exitUsage {
		t.Errorf("--example with a file argument: exit %d", code)
	}
	if code := run([]string{"init", "--out", "x.yaml", "blob.lww"}, &out, &errOut); code != exitUsage {
		t.Errorf("--out without --example: exit %d", code)
	}
}
