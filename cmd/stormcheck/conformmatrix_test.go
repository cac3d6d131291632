package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// TestConformanceMatrixPageNamesTheShippedRules: the full matrix in docs
// (written by scripts/conformance-matrix.sh from conform -v) lists every
// shipped rule, with its result or on the line of those Azurite cannot
// run, and no other, so it cannot fall behind the rules unnoticed.
func TestConformanceMatrixPageNamesTheShippedRules(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "conformance-azurite-3.37.0.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := conformance.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	// Rules Azurite cannot run (the File service's) are named on the NOT
	// RUN line instead.
	notRun := ""
	if _, after, ok := bytes.Cut(b, []byte("NOT RUN: ")); ok {
		notRun, _, _ = strings.Cut(string(after), "\n\n")
	}
	var want []string
	for _, r := range rs.Rules {
		if !strings.Contains(notRun, r.ID) {
			want = append(want, r.ID)
		}
	}
	// A rule's line: its result, then its id.
	line := regexp.MustCompile(`(?m)^\s*(?:PASS|DIVERGES|ERROR|SKIP\w*)(?:\s+(?:known|changed|fixed|new))?\s+(\S+)`)
	var got []string
	for _, m := range line.FindAllSubmatch(b, -1) {
		got = append(got, string(m[1]))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		var missing, extra []string
		for _, id := range want {
			if _, ok := slices.BinarySearch(got, id); !ok {
				missing = append(missing, id)
			}
		}
		for _, id := range got {
			if _, ok := slices.BinarySearch(want, id); !ok {
				extra = append(extra, id)
			}
		}
		t.Errorf("docs/conformance-azurite-3.37.0.txt is stale (run scripts/conformance-matrix.sh): %d rules shipped, %d listed; missing %v; not shipped %v", len(want), len(got), missing, extra)
	}
}
