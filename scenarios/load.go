package scenarios

import (
	"errors"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// Load reads the scenario file at path and returns it validated, with every
// default applied (see Parse). A file that cannot be read gives the error
// from the operating system; one larger than 1 MiB, or invalid, gives an
// ErrorList.
func Load(path string) (*Scenario, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// MaxFileBytes bounds a scenario file (and a rule file): Load refuses a
// larger one before reading it whole.
const MaxFileBytes = yamlx.MaxFileBytes

// ReadFile reads a scenario file's bytes, unparsed, as Load does: one
// larger than MaxFileBytes is an ErrorList (its error wraps a
// *boundedread.Error); one that cannot be read gives the error from the
// operating system. A bare name (see IsExampleName) that is not a file
// reads the built-in example of that name; a file on disk always wins.
func ReadFile(path string) ([]byte, error) {
	data, err := yamlx.ReadFile(path)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return readBuiltin(path, err)
	}
	var e *Error
	if errors.As(err, &e) {
		return nil, ErrorList{e}
	}
	return data, err
}

// Parse loads a scenario from data strictly: unknown fields, duplicate
// keys, wrong types and out-of-range values are errors, as are fields that
// do not apply (a rate on a closed executor, an account on an azurite
// target) and secrets written into the file. file names the source in
// errors and in Scenario.File.
//
// On failure Parse returns a nil Scenario and an ErrorList holding every
// problem it found, in file order, each located by line, column and field
// path and saying what is allowed. On success every default is applied.
func Parse(file string, data []byte) (*Scenario, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, ErrorList{err}
	}
	d := &decoder{file: file, at: map[string]*yaml.Node{}}
	s := &Scenario{File: file, Source: append([]byte(nil), data...)}
	d.scenario(root, s)
	if len(d.errs) > 0 {
		d.errs.SortByPosition()
		return nil, d.errs
	}
	d.defaults(s)
	return s, nil
}

// parseYAML parses data as exactly one YAML document holding a mapping and
// returns that mapping. The bounds on the text (size, aliases) are
// yamlx.ParseDocument's.
func parseYAML(file string, data []byte) (*yaml.Node, *Error) {
	root, err := yamlx.ParseDocument(file, data)
	if err != nil {
		return nil, err
	}
	empty := &Error{File: file, Line: 1, Col: 1, Msg: "empty scenario: a scenario file is a YAML mapping with at least name and workloads"}
	if root == nil {
		return nil, empty
	}
	root = resolve(root)
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, empty
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Line, Col: root.Column,
			Msg: "a scenario file is a YAML mapping of fields (" + strings.Join(topFields, ", ") + "), got " + describe(root)}
	}
	return root, nil
}

// defaults applies every default and notes those the user should hear
// about: a workload without any bound runs for DefaultDuration.
func (d *decoder) defaults(s *Scenario) {
	applyDefaults(s, d.has("seed"))
	if len(d.unbounded) > 0 && s.Duration == 0 {
		s.Duration = DefaultDuration
		names := make([]string, 0, len(d.unbounded))
		for _, p := range d.unbounded {
			for i := range s.Workloads {
				if index("workloads", i) == p {
					names = append(names, s.Workloads[i].Name)
				}
			}
		}
		s.Notes = append(s.Notes, "no duration: "+strings.Join(names, ", ")+" (no duration, stages or iterations of its own) runs for the default "+durText(DefaultDuration)+"; set duration: to choose")
	}
}
