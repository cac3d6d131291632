package yamlx

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoArchivedYAML holds the move from gopkg.in/yaml.v3 (archived
// upstream) to its maintained continuation go.yaml.in/yaml/v3: no Go file of
// the module imports the old path and go.mod does not require it.
func TestNoArchivedYAML(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	const old = "gopkg.in/yaml.v3"
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gomod), old) {
		t.Errorf("go.mod requires %s; use go.yaml.in/yaml/v3", old)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "results") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if importsPath(string(src), old) {
			t.Errorf("%s imports %s; use go.yaml.in/yaml/v3 (same API)", path, old)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// importsPath reports whether a Go source imports path (on an import line or
// in an import block).
func importsPath(src, path string) bool {
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "import"))
		if i := strings.IndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, `"`) {
			line = strings.TrimSpace(line[i:]) // a named import
		}
		if line == `"`+path+`"` {
			return true
		}
	}
	return false
}
