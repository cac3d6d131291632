package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

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

// StagedDir is a results directory written whole or not at all: into a
// temporary sibling (Temp), renamed to its name (Dir) by Commit, or
// removed by Discard, whichever comes first.
type StagedDir struct {
	Dir, Temp string
	mu        sync.Mutex
	committed bool
	discarded bool
}

// StageResultsDir refuses dir as ClaimResultsDir does (it must be new, or
// an empty directory, which is left as it is until Commit replaces it) and
// makes the temporary sibling the results are written into.
func StageResultsDir(dir string) (*StagedDir, error) {
	if dir == "" {
		return nil, &ResultsDirError{Dir: `""`, Err: errors.New("no results directory given")}
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, &ResultsDirError{Dir: dir, Err: err}
	}
	switch entries, err := os.ReadDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, &ResultsDirError{Dir: dir, Err: err}
	case len(entries) > 0:
		return nil, &ResultsDirError{Dir: dir, Entries: len(entries)}
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dir))+".partial-*")
	if err == nil {
		err = os.Chmod(tmp, 0o755) // as a results directory made with Mkdir
	}
	if err != nil {
		return nil, &ResultsDirError{Dir: dir, Err: err}
	}
	return &StagedDir{Dir: dir, Temp: tmp}, nil
}

// ErrDiscarded is Commit's error after Discard.
var ErrDiscarded = errors.New("results discarded")

// Commit renames Temp to Dir (replacing Dir if it is an empty directory);
// after Discard it does nothing and returns ErrDiscarded.
func (s *StagedDir) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.discarded {
		return fmt.Errorf("results directory %s: %w", s.Dir, ErrDiscarded)
	}
	// os.Rename never replaces a directory: an empty OUT goes first (Remove
	// refuses it if something was written there meanwhile).
	if fi, err := os.Lstat(s.Dir); err == nil && fi.IsDir() {
		if err := os.Remove(s.Dir); err != nil {
			return fmt.Errorf("results directory %s: %w; the results are in %s", s.Dir, err, s.Temp)
		}
	}
	if err := os.Rename(s.Temp, s.Dir); err != nil {
		return fmt.Errorf("results directory %s: %w; the results are in %s", s.Dir, err, s.Temp)
	}
	s.committed = true
	return nil
}

// Discard removes Temp unless Commit came first; it reports whether Dir
// is left unwritten.
func (s *StagedDir) Discard() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.committed {
		return false
	}
	if !s.discarded {
		_ = os.RemoveAll(s.Temp)
		s.discarded = true
	}
	return true
}

// Committed reports whether Commit renamed Temp to Dir.
func (s *StagedDir) Committed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.committed
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
