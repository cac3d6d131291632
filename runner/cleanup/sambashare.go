package cleanup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// SambaShareDir is where a run against the managed Samba keeps its share:
// under its results folder (runner/target starts the Samba with its work
// folder there), so the files a run left there outlive the run only in that
// folder.
func SambaShareDir(resultsDir string) string { return filepath.Join(resultsDir, "samba", "share") }

// sambaEntry is a run's entry in the share: sc<run id>-<workload>-...
var sambaEntry = regexp.MustCompile(`^sc([0-9a-f]{8})-`)

// SambaShare deletes (or, in a dry run, lists) what runs left in a managed
// Samba's share folder (SambaShareDir): the entries named after run id
// (RunPrefix), or with olderThan > 0 those of every run last changed more
// than olderThan ago. Names are "file NAME" (or "folder NAME"); left names
// what could not be deleted. A missing folder holds nothing.
func SambaShare(dir, runID string, olderThan time.Duration, dryRun bool) (found, left []string, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing the Samba share %s: %w", dir, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var errs []error
	for _, e := range ents {
		m := sambaEntry.FindStringSubmatch(e.Name())
		if m == nil || runID != "" && !strings.HasPrefix(e.Name(), RunPrefix(runID)) {
			continue
		}
		if runID == "" {
			fi, ierr := e.Info()
			if ierr != nil || time.Since(fi.ModTime()) <= olderThan {
				continue
			}
		}
		what := "file " + e.Name()
		if e.IsDir() {
			what = "folder " + e.Name()
		}
		found = append(found, what)
		if dryRun {
			continue
		}
		if rerr := os.RemoveAll(filepath.Join(dir, e.Name())); rerr != nil {
			left = append(left, what)
			errs = append(errs, rerr)
		}
	}
	return found, left, errors.Join(errs...)
}
