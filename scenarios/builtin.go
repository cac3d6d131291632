package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/stormcheck/stormcheck/scenarios/examples"
	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// IsExampleName reports whether arg could name a built-in example rather
// than a file: no path separator, no dot (so no .yaml suffix), not empty.
func IsExampleName(arg string) bool {
	return arg != "" && !strings.ContainsAny(arg, "/\\.")
}

// readBuiltin is ReadFile's answer for a path that does not exist: the
// built-in example of that name when path is a bare name (see
// IsExampleName), an error listing the examples when it names none, and
// notExist unchanged for anything else.
func readBuiltin(path string, notExist error) ([]byte, error) {
	if !IsExampleName(path) || !errors.Is(notExist, fs.ErrNotExist) {
		return nil, notExist
	}
	if b, ok := examples.Read(path); ok {
		return b, nil
	}
	return nil, &UnknownExampleError{Name: path}
}

// UnknownExampleError is ReadFile's error for a bare name that is neither a
// file nor a built-in example. It wraps fs.ErrNotExist.
type UnknownExampleError struct{ Name string }

func (e *UnknownExampleError) Error() string {
	return e.Name + ": no such file, and " + UnknownExample(e.Name)
}

// UnknownExample says that name is not a built-in example, with the
// nearest ones and the list of all.
func UnknownExample(name string) string {
	s := fmt.Sprintf("no built-in example %q", name)
	if near := yamlx.Nearest(name, examples.Names(), 3); len(near) > 0 {
		s += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
	}
	return s + "; built-in examples: " + strings.Join(examples.Names(), ", ")
}

func (e *UnknownExampleError) Unwrap() error { return fs.ErrNotExist }
