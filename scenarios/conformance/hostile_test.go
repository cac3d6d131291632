package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Rule files get the scenario loader's bounds: size, alias expansion, one
// located syntax error.

func TestRuleFileAliasBombRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("x0: &x0 [{op: wait, duration: 1s}]\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d,", i-1), 8), ","))
	}
	b.WriteString("rules: [{id: a.b, title: t, source: s, tags: [blob], steps: *x10}]\n")
	_, err := Parse("bomb.yaml", []byte(b.String()))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Col == 0 || !strings.Contains(list[0].Msg, "aliases expand this file beyond 100000 nodes") {
		t.Fatalf("got %v", err)
	}
}

func TestRuleFileSizeBound(t *testing.T) {
	dir := t.TempDir()
	big := "rules:\n" + strings.Repeat("# padding\n", 110000)
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadDir(dir)
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Msg, "the file holds 1100007 bytes; a scenario or rule file holds at most 1048576 bytes") {
		t.Fatalf("got %v", err)
	}
}
