package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// Hostile input: each test feeds the loader a file built to make it work
// without end or without bound, and asserts the bound that refused it (never
// how long it took).

// nestedMerges is a scenario whose only workload merges level `levels`
// of a tower where each level merges the one below `fan` times: expanded,
// fan^levels mappings. 10 levels of 8 is a 0.6 KB file standing for 10^9.
func nestedMerges(levels, fan int) string {
	var b strings.Builder
	b.WriteString("name: bomb\nduration: 1s\nworkloads:\n  - &a0 {name: w, kind: blob.lww}\n")
	for i := 1; i <= levels; i++ {
		refs := strings.Repeat(fmt.Sprintf("*a%d,", i-1), fan)
		fmt.Fprintf(&b, "  - &a%d {<<: [%s]}\n", i, strings.TrimSuffix(refs, ","))
	}
	fmt.Fprintf(&b, "  - {<<: *a%d, name: last}\n", levels)
	return b.String()
}

// rawNodes counts the nodes of a tree as written, not following aliases.
func rawNodes(n *yaml.Node) int {
	c := 1
	for _, ch := range n.Content {
		c += rawNodes(ch)
	}
	return c
}

func oneError(t *testing.T, err error) *Error {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("want exactly one error, got %v", err)
	}
	return list[0]
}

func TestNestedMergeBombRefusedByTheBound(t *testing.T) {
	src := nestedMerges(10, 8)
	_, err := Parse("bomb.yaml", []byte(src))
	e := oneError(t, err)
	if !strings.Contains(e.Msg, "aliases expand this file beyond 100000 nodes") || e.Line < 5 || e.Col == 0 {
		t.Fatalf("got %v", e)
	}
	// The bound is what refused it: the check visits each node as written
	// once, however many times aliases name it.
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	visited, cerr := yamlx.CheckAliases("bomb.yaml", doc.Content[0])
	if cerr == nil {
		t.Fatal("CheckAliases accepted the bomb")
	}
	if raw := rawNodes(doc.Content[0]); visited > raw {
		t.Errorf("visited %d nodes; the file holds %d", visited, raw)
	}
	t.Logf("%d bytes, refused at %d:%d after visiting %d nodes: %s", len(src), e.Line, e.Col, visited, e.Msg)
}

func TestSmallMergesStillLoad(t *testing.T) {
	// Three levels of eight: 512 merged mappings, well inside the bound.
	s, err := Parse("ok.yaml", []byte(strings.Replace(nestedMerges(3, 8), "name: bomb", "name: fine", 1)))
	if err == nil {
		t.Fatalf("the scenario is invalid for other reasons (merged unknown fields), yet loaded: %+v", s)
	}
	if strings.Contains(err.Error(), "aliases expand") {
		t.Fatalf("a small merge was refused as a bomb: %v", err)
	}
}

func TestAliasBombInListsRefused(t *testing.T) {
	// The "billion laughs": each list names the one before nine times.
	var b strings.Builder
	b.WriteString("name: laughs\nduration: 1s\nworkloads: [{name: w, kind: blob.lww}]\nthresholds: &l0 [\"throttled == 0\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "description: &l%d [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 9), ","))
	}
	_, err := Parse("laughs.yaml", []byte(b.String()))
	if e := oneError(t, err); !strings.Contains(e.Msg, "aliases expand") {
		t.Fatalf("got %v", e)
	}
}

func TestAliasInsideItselfRefused(t *testing.T) {
	_, err := Parse("cycle.yaml", []byte("name: c\nduration: 1s\nworkloads: &w [*w]\n"))
	if e := oneError(t, err); e.Line != 3 || e.Col != 16 || !strings.Contains(e.Msg, "cannot contain itself") {
		t.Fatalf("got %v", e)
	}
}

func TestFileSizeBound(t *testing.T) {
	big := "name: big\nduration: 1s\nworkloads: [{name: w, kind: blob.lww}]\n" + strings.Repeat("# padding\n", yamlx.MaxFileBytes/10)
	_, err := Parse("big.yaml", []byte(big))
	if e := oneError(t, err); !strings.Contains(e.Msg, "at most 1048576 bytes (1 MiB)") {
		t.Fatalf("got %v", e)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	if e := oneError(t, err); e.File != path || !strings.Contains(e.Msg, fmt.Sprintf("the file holds %d bytes", len(big))) {
		t.Fatalf("got %v", e)
	}
}

func TestWorkloadCountBound(t *testing.T) {
	// 3,000 workloads, each wrong: one error, not 6,000 (300,000 gave
	// 600,000 lines; the README quotes that run).
	src := "name: many\nduration: 1s\nworkloads: [" + strings.TrimSuffix(strings.Repeat("1,", 3000), ",") + "]\n"
	_, err := Parse("many.yaml", []byte(src))
	e := oneError(t, err)
	if e.Line != 3 || e.Col != 12 || !strings.Contains(e.Msg, "lists 3000 workloads; a scenario has at most 100") {
		t.Fatalf("got %v", e)
	}
}

func TestPrintedErrorsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: bad\nduration: 1s\nworkloads:\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  - {name: w%d, kind: nope, actors: -1, colour: red}\n", i)
	}
	_, err := Parse("bad.yaml", []byte(b.String()))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 300 {
		t.Fatalf("want the 300 errors in the list, got %d", len(list))
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != yamlx.MaxPrinted+1 || lines[yamlx.MaxPrinted] != "... and 280 more problems not shown (300 in all); fix these and load the file again" {
		t.Fatalf("printed %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestRateBound(t *testing.T) {
	for _, tc := range []struct {
		workload string
		col      int
		ok       bool
	}{
		{"{name: w, kind: blob.lww, executor: open, rate: 1e308}", 53, false},
		{"{name: w, kind: blob.lww, executor: open, rate: 1000001}", 53, false},
		{"{name: w, kind: blob.lww, executor: open, rate: 1000000}", 0, true},
		{"{name: w, kind: blob.lww, executor: open, rate: 1, stages: [{duration: 1s, target: 1e9}]}", 88, false},
	} {
		_, err := Parse("rate.yaml", []byte("name: r\nduration: 1s\nworkloads:\n  - "+tc.workload+"\n"))
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", tc.workload, err)
			}
			continue
		}
		e := oneError(t, err)
		if e.Line != 4 || e.Col != tc.col || !strings.Contains(e.Msg, "must be at most 1e+06 arrivals per second") {
			t.Errorf("%s: got %v", tc.workload, e)
		}
	}
}

func TestStageCountBound(t *testing.T) {
	stages := strings.TrimSuffix(strings.Repeat("{duration: 1s, target: 1},", 101), ",")
	_, err := Parse("stages.yaml", []byte("name: s\nworkloads:\n  - {name: w, kind: blob.lww, stages: ["+stages+"]}\n"))
	if e := oneError(t, err); !strings.Contains(e.Msg, "lists 101 stages; a workload has at most 100") {
		t.Fatalf("got %v", e)
	}
}

func TestTotalActorsAndKeysBound(t *testing.T) {
	src := "name: t\nduration: 1s\nworkloads:\n" +
		"  - {name: a, kind: blob.lww, actors: 6000, keys: 60000}\n" +
		"  - {name: b, kind: blob.lww, actors: 5000, keys: 50000}\n" +
		"  - {name: c, kind: blob.lww, stages: [{duration: 1s, target: 300}]}\n"
	_, err := Parse("t.yaml", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("want two errors, got %v", err)
	}
	if e := list[0]; e.Line != 4 || e.Field != "workloads" || !strings.Contains(e.Msg, "11300 actors in all (a: 6000, b: 5000, c: 300); a scenario has at most 10000") {
		t.Errorf("got %v", e)
	}
	if e := list[1]; !strings.Contains(e.Msg, "110001 keys in all (a: 60000, b: 50000, c: 1); a scenario has at most 100000") {
		t.Errorf("got %v", e)
	}
}

func TestUnsafeNamesRefused(t *testing.T) {
	for _, name := range []string{`../../escaped/x`, `/etc/x`, `a/b`, `a\\b`, `..`, `.hidden`, `a b`, `"x\u0000y"`, `C:x`, `"` + strings.Repeat("n", 65) + `"`} {
		_, err := Parse("n.yaml", []byte("name: "+name+"\nduration: 1s\nworkloads: [{name: w, kind: blob.lww}]\n"))
		e := oneError(t, err)
		if e.Line != 1 || e.Col != 7 || e.Field != "name" || !strings.Contains(e.Msg, "1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit") {
			t.Errorf("name %s: got %v", name, e)
		}
	}
	for _, name := range []string{"quickstart", "v1.2_final-3", "A", strings.Repeat("n", 64)} {
		if _, err := Parse("n.yaml", []byte("name: "+name+"\nduration: 1s\nworkloads: [{name: w, kind: blob.lww}]\n")); err != nil {
			t.Errorf("name %s refused: %v", name, err)
		}
	}
}

func TestSyntaxErrorAtTheEndOfABigFile(t *testing.T) {
	// 256 KiB of valid thresholds, then a tab on the last line.
	var b strings.Builder
	b.WriteString("name: big\nduration: 1s\nworkloads: [{name: w, kind: blob.lww}]\nthresholds:\n")
	lines := 4
	for b.Len() < 256<<10 {
		b.WriteString("  - throttled == 0\n")
		lines++
	}
	b.WriteString("\t- oops\n")
	_, err := Parse("big.yaml", []byte(b.String()))
	if e := oneError(t, err); e.Line != lines+1 || !strings.Contains(e.Msg, "YAML syntax") || !strings.Contains(e.Msg, "tab") {
		t.Fatalf("want line %d, got %v", lines+1, e)
	}
}
