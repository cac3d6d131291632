package cleanup

import (
	"context"
	"errors"
	"fmt"
	"github.com/stormcheck/stormcheck/runner/target"
	"time"
)

// Options choose the earlier runs whose resources CleanupRuns
// deletes: one run by id, or every run older than an age.
type Options struct {
	// RunID selects one run (8 hex digits, as the run printed it).
	RunID string
	// OlderThan selects every run whose marker is older than this.
	OlderThan time.Duration
	// DryRun lists what would be deleted and deletes nothing.
	DryRun bool
	// Now is the time ages count to (default time.Now).
	Now time.Time
}

// CleanedRun is what CleanupRuns found and did for one run.
type CleanedRun struct {
	Mark RunMark
	// Resources are the run's containers, tables and queues ("container
	// sc1a2b3c4d-counter"), deleted unless it was a dry run. The marker
	// itself is not listed.
	Resources []string
	// Left is what could not be deleted.
	Left []string
	// Err says what could not be listed or deleted (the marker is then
	// kept, so a later cleanup finds the run again).
	Err error
}

// Runs finds earlier runs on the target by their stamped markers
// (see runmarker.go) and deletes their resources, each marker last. It
// never touches a resource of a run without a marker: whatever carries the
// same name shape without stormcheck's stamp is someone else's.
func Runs(ctx context.Context, t *target.Target, o Options) ([]CleanedRun, error) {
	if (o.RunID == "") == (o.OlderThan <= 0) {
		return nil, errors.New("cleanup: give either a run id or an age")
	}
	if o.RunID != "" && !ValidRunID(o.RunID) {
		return nil, fmt.Errorf("cleanup: run id %q: want the 8 hex digits a run prints (e.g. 1a2b3c4d)", o.RunID)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	marks, err := findRuns(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("cleanup: %w", err)
	}
	var chosen []RunMark
	for _, m := range marks {
		switch {
		case o.RunID != "" && m.ID == o.RunID:
			chosen = append(chosen, m)
		case o.RunID == "" && !m.Created.IsZero() && o.Now.Sub(m.Created) > o.OlderThan:
			chosen = append(chosen, m)
		}
	}
	if o.RunID != "" && len(chosen) == 0 {
		return nil, fmt.Errorf("cleanup: no run %s on this target: its marker container %s is not there (nothing of it is left, or it is not stormcheck's)", o.RunID, MarkerName(o.RunID))
	}
	out := make([]CleanedRun, 0, len(chosen))
	for _, m := range chosen {
		res, left, err := CleanupRun(ctx, t, CleanupScope{RunID: m.ID, allServices: true, dryRun: o.DryRun})
		out = append(out, CleanedRun{Mark: m, Resources: res, Left: left, Err: err})
	}
	return out, nil
}
