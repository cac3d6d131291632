package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/internal/fuzzguard"
)

// FuzzParseRules checks that the rule loader never panics and returns either
// rules or an ErrorList of located errors, within fuzzguard's bounds on one
// input's time and memory (scripts/fuzz.sh). The seeds are the shipped rule
// files and files with aliases and merge keys.
func FuzzParseRules(f *testing.F) {
	files, _ := filepath.Glob("rules/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, seed := range []string{
		"rules:\n  - id: a.b\n    title: t\n    source: s\n    tags: &t [blob]\n    steps: &s [{op: wait, duration: 1s}]\n  - {id: a.c, title: t, source: s, tags: *t, steps: *s}\n",
		"rules: &r [*r]\n",
		"x: &x {op: wait, duration: 1s}\nrules: [{id: a.b, title: t, source: s, tags: [blob], steps: [{<<: *x}]}]\n",
		"x0: &x0 [{op: wait, duration: 1s}]\nx1: &x1 [*x0, *x0, *x0]\nx2: &x2 [*x1, *x1, *x1]\nrules: [{id: a.b, title: t, source: s, tags: [blob], steps: *x2}]\n",
		"rules:\n  - id: [\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rules []Rule
		var err error
		fuzzguard.Run(t, func() { rules, err = Parse("fuzz.yaml", data) })
		if err == nil {
			if len(rules) == 0 {
				t.Fatal("no error and no rules")
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is not a non-empty ErrorList: %v", err)
		}
		for _, e := range list {
			if e.Msg == "" || e.File != "fuzz.yaml" {
				t.Fatalf("empty or unnamed error: %#v", e)
			}
		}
	})
}
