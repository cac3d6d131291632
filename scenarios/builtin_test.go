package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltinExampleByName: a bare name that is not a file loads the
// built-in example; a file of that name wins; an unknown bare name is an
// error that lists the examples with the nearest first; a path or a .yaml
// name that does not exist is the operating system's error.
func TestBuiltinExampleByName(t *testing.T) {
	t.Chdir(t.TempDir())
	sc, err := Load("quickstart")
	if err != nil || sc.Name != "quickstart" || len(sc.Workloads) == 0 {
		t.Fatalf("Load(quickstart) from an empty directory: %v", err)
	}
	mine := "name: mine\nduration: 5s\nworkloads:\n  - {name: a, kind: blob.lww}\n"
	if err := os.WriteFile("quickstart", []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if sc, err := Load("quickstart"); err != nil || sc.Name != "mine" {
		t.Errorf("a file named quickstart does not win: %v %+v", err, sc)
	}
	_, err = Load("quickstrat")
	var ue *UnknownExampleError
	if !errors.As(err, &ue) || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), `(did you mean quickstart?)`) || !strings.Contains(err.Error(), "built-in examples: append-log, block-commit,") {
		t.Errorf("unknown name: %v", err)
	}
	for _, p := range []string{"quickstart.yaml", filepath.Join("sub", "quickstart"), "./quickstart2"} {
		_, err := Load(p)
		if errors.As(err, &ue) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load(%s): want the operating system's not-exist error, got %v", p, err)
		}
	}
	if _, _, err := LoadWithOverrides("open-loop", Overrides{Duration: 2e9}); err != nil {
		t.Errorf("LoadWithOverrides(open-loop): %v", err)
	}
}
