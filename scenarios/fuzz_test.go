package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/internal/fuzzguard"
	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// aliasSeeds use anchors, aliases and merge keys the ways a user might, and
// small versions of the ways an attacker would.
var aliasSeeds = []string{
	"name: a\nduration: 1s\nbase: &b {kind: blob.lww, actors: 2}\nworkloads:\n  - {<<: *b, name: one}\n  - {<<: *b, name: two, actors: 3}\n",
	"name: a\nduration: 1s\nworkloads:\n  - &w {name: one, kind: blob.lww}\n  - {<<: [*w, {keys: 2}], name: two}\n",
	"name: a\nduration: &d 2s\ntimeout: *d\nworkloads: [{name: w, kind: blob.lww, duration: *d}]\nchecks: &c [no-lost-updates]\n",
	"name: a\nworkloads: &w [*w]\n",
	"name: a\nduration: 1s\nworkloads:\n  - &w {name: a, kind: blob.lww, <<: *w}\n",
	"name: a\nduration: 1s\nworkloads: [{<<: *nope, name: w}]\n",
	nestedMerges(3, 3),
	nestedMerges(6, 4),
}

// FuzzParse checks that Parse never panics, and returns either a scenario
// or an ErrorList of located errors, within fuzzguard's bounds on one
// input's time and memory (scripts/fuzz.sh). The seeds are every YAML file
// here, and files built from aliases and merge keys (<<), nested and not.
func FuzzParse(f *testing.F) {
	for _, seed := range aliasSeeds {
		f.Add([]byte(seed))
	}
	for _, pattern := range []string{"examples/*.yaml", "testdata/invalid/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s *Scenario
		var err error
		fuzzguard.Run(t, func() { s, err = Parse("fuzz.yaml", data) })
		if (s == nil) == (err == nil) {
			t.Fatalf("got scenario %v and error %v", s, err)
		}
		if err == nil {
			return
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is not a non-empty ErrorList: %v", err)
		}
		for _, e := range list {
			if (e.Line < 1 && len(data) <= yamlx.MaxFileBytes) || e.Msg == "" { // a file too large is refused as a whole
				t.Fatalf("unlocated or empty error: %#v", e)
			}
		}
	})
}
