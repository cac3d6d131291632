package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

func TestWriteArtifacts(t *testing.T) {
	dir := t.TempDir()
	rs := []checks.Result{{Check: "linearizable", Workload: "blocks", Artifacts: map[string][]byte{"linearizable-k0.html": []byte("<html>")}}}
	if err := WriteArtifacts(dir, rs); err != nil {
		t.Fatal(err)
	}
	if len(rs[0].Files) != 1 || rs[0].Files[0] != filepath.Join("checks", "blocks.linearizable-k0.html") || rs[0].Artifacts != nil {
		t.Fatalf("result after writing: %+v", rs[0])
	}
	if b, err := os.ReadFile(filepath.Join(dir, rs[0].Files[0])); err != nil || string(b) != "<html>" {
		t.Errorf("artifact: %q %v", b, err)
	}
}
