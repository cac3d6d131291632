package examples

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestEmbeddedAreTheFiles: every YAML file of the directory is an example
// by its name, with the same bytes, and nothing else is.
func TestEmbeddedAreTheFiles(t *testing.T) {
	onDisk, _ := filepath.Glob("*.yaml")
	names := Names()
	if len(names) != len(onDisk) || len(names) < 10 {
		t.Fatalf("%d examples embedded, %d on disk", len(names), len(onDisk))
	}
	for _, f := range onDisk {
		want, _ := os.ReadFile(f)
		got, ok := Read(f[:len(f)-len(".yaml")])
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: embedded copy differs (found %v)", f, ok)
		}
	}
	want, _ := os.ReadFile(SchemaFile)
	if !bytes.Equal(Schema(), want) || len(want) == 0 {
		t.Error("embedded schema differs from the file")
	}
}

// TestReadRefusesPaths: only a bare name is an example.
func TestReadRefusesPaths(t *testing.T) {
	for _, name := range []string{"", "quickstart.yaml", "../quickstart", "x/quickstart", "nope", "scenario.schema"} {
		if _, ok := Read(name); ok {
			t.Errorf("Read(%q) found an example", name)
		}
	}
	if _, ok := Read("quickstart"); !ok {
		t.Error("quickstart is not an example")
	}
}
