// Package examples holds the example scenarios shipped with stormcheck, the
// YAML files of this directory, and the JSON Schema they name on their first
// line. They are compiled into every binary, so that a user with only the
// binary can run one by name (stormcheck run quickstart) or write one out.
//
// It may use the standard library only.
package examples

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.yaml scenario.schema.json
var files embed.FS

// SchemaFile is the name of the schema beside the examples.
const SchemaFile = "scenario.schema.json"

// Names lists the examples by name (the file name without .yaml), sorted.
func Names() []string {
	matches, _ := fs.Glob(files, "*.yaml")
	names := make([]string, 0, len(matches))
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(path.Base(m), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Read returns the YAML of the example called name (see Names); false if
// there is none.
func Read(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := files.ReadFile(name + ".yaml")
	return b, err == nil
}

// Schema returns the JSON Schema kept beside the examples.
func Schema() []byte {
	b, _ := files.ReadFile(SchemaFile)
	return b
}
