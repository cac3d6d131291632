package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, and returns either a scenario
// or an ErrorList of located errors. The seeds are every YAML file here.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"*.yaml", "testdata/invalid/*.yaml"} {
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
		s, err := Parse("fuzz.yaml", data)
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
			if e.Line < 1 || e.Msg == "" {
				t.Fatalf("unlocated or empty error: %#v", e)
			}
		}
	})
}
