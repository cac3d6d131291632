package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
)

// ErrResultsDirRefused is what Run returns (wrapped in a
// *ResultsDirError) when it will not write into its results directory: it
// holds files already (an earlier run's), or is not a directory it can
// make. Run then has written nothing at all, and its caller must write
// nothing either: the directory is left byte for byte as it was.
var ErrResultsDirRefused = errors.New("results directory refused")

// ResultsDirError says why a results directory was refused.
type ResultsDirError struct {
	Dir string
	// Entries is how many entries the directory already holds (0 when it
	// could not be made or read; Err says why).
	Entries int
	Err     error
}

func (e *ResultsDirError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("results directory %s: %v; nothing was written (choose another with --out)", e.Dir, e.Err)
	}
	return fmt.Sprintf("results directory %s already holds %d entries (an earlier run's?); nothing was written there: "+
		"choose a new or empty directory with --out (stormcheck never writes into a used one)", e.Dir, e.Entries)
}

// Is makes errors.Is(err, ErrResultsDirRefused) true.
func (e *ResultsDirError) Is(target error) bool { return target == ErrResultsDirRefused }

func (e *ResultsDirError) Unwrap() error { return e.Err }

// ClaimResultsDir makes dir for a new run (or conformance run), or accepts it if it exists and is
// empty; anything else is a *ResultsDirError, with nothing written. The
// last element is made with Mkdir, so of two runs given the same new
// directory at once, one makes it.
func ClaimResultsDir(dir string) error {
	if dir == "" {
		return &ResultsDirError{Dir: `""`, Err: errors.New("no results directory given")}
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return &ResultsDirError{Dir: dir, Err: err}
	}
	err := os.Mkdir(dir, 0o755)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return &ResultsDirError{Dir: dir, Err: err}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &ResultsDirError{Dir: dir, Err: err}
	}
	if len(entries) > 0 {
		return &ResultsDirError{Dir: dir, Entries: len(entries)}
	}
	return nil
}

// prepareResults claims the results directory and keeps a copy of the
// scenario beside the results, so a run can be re-read and re-checked.
func prepareResults(dir string, sc *scenarios.Scenario) error {
	if err := ClaimResultsDir(dir); err != nil {
		return err
	}
	return reports.WriteFileAtomic(filepath.Join(dir, ScenarioFile), func(w io.Writer) error {
		_, err := w.Write(sc.Source)
		return err
	})
}
