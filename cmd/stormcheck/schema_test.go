package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
)

func TestSchemaCommand(t *testing.T) {
	want, err := scenarios.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"schema"}, &out, &errOut); code != exitOK || !bytes.Equal(out.Bytes(), want) {
		t.Errorf("schema: exit %d, %d bytes (want %d)", code, out.Len(), len(want))
	}
	file := filepath.Join(t.TempDir(), "s.json")
	if code := run([]string{"schema", "--out", file}, &out, &errOut); code != exitOK {
		t.Fatalf("schema --out: exit %d %s", code, errOut.String())
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, want) {
		t.Error("schema --out wrote something else")
	}
	// The copy kept in the repository is current (scenarios' own test
	// says how to regenerate it).
	if kept, _ := os.ReadFile("../../scenarios/examples/scenario.schema.json"); !bytes.Equal(kept, want) {
		t.Error("scenarios/examples/scenario.schema.json is stale: go generate ./scenarios/")
	}
}
