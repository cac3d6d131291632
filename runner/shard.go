package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// Shard is one shard of a sharded run (`stormcheck run --shard I/N`). The
// shards of a run share its run id, so they name the same resources on one
// target. Shard 0 sets the run up; every shard starts its load at the same
// instant (StartAt, or the one shard 0 stamps on the run marker); the last
// shard to finish its load does the final reads and the cleanup.
type Shard struct {
	Index, Count int
	RunID        string
	// StartAt is when every shard's load starts; zero: shard 0 stamps one
	// RendezvousLead after its setup on the run marker, which the others
	// wait for.
	StartAt time.Time
	// ClockSkew pretends this machine's wall clock is off by this much
	// (tests): every wall-clock reading of the run has it added.
	ClockSkew time.Duration
	// SetupWait bounds how long shards 1..N-1 wait for shard 0's setup
	// (0: DefaultSetupWait).
	SetupWait time.Duration
}

// Sharding's bounds.
const (
	// DefaultSetupWait bounds how long a shard waits for shard 0 to set the
	// run up (pods of one Job may start minutes apart: image pulls).
	DefaultSetupWait = 10 * time.Minute
	// RendezvousLead is how far after its setup shard 0 sets the start of
	// every shard's load, when no --start-at was given.
	RendezvousLead = 10 * time.Second
	// markDoneBound bounds a shard's marking itself done.
	markDoneBound = time.Minute
	// shardPoll is how often a shard looks at the run marker.
	shardPoll = 250 * time.Millisecond
)

// The run's shared state is the metadata of the blob shardState inside
// the run's marker container (the container's own metadata takes no
// If-Match): setup=done (or failed), count, start_at, and done_<i> for each
// shard that finished its load, added with If-Match so no update is lost.
const (
	shardState    = "shards"
	metaSetup     = "setup"
	metaCount     = "count"
	metaStartAt   = "start_at"
	metaDone      = "done_"
	setupDone     = "done"
	setupFailedAs = "failed"
)

// check refuses an index out of range and, for N > 1, a missing or
// malformed run id.
func (s *Shard) check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: the index must be 0 to N-1 and N at least 1", s.Index, s.Count)
	}
	if s.Count > 1 && !cleanup.ValidRunID(s.RunID) {
		return fmt.Errorf("shard %d/%d: the shards of a run share its run id: give every shard the same --run-id, 8 lower-case hex digits (got %q)", s.Index, s.Count, s.RunID)
	}
	return nil
}

// now is this machine's wall clock as the shard reads it (with ClockSkew).
func (s *Shard) now() time.Time {
	if s == nil {
		return time.Now()
	}
	return time.Now().Add(s.ClockSkew)
}

func (s *Shard) stateBlob(t *target.Target) *blockblob.Client {
	return t.Blob.NewContainerClient(cleanup.MarkerName(s.RunID)).NewBlockBlobClient(shardState)
}

// publishSetup is shard 0's word after its setup: the state blob, with
// setup=done and the start, or setup=failed (why) so the others stop
// waiting. It returns the start every shard waits for.
func (s *Shard) publishSetup(ctx context.Context, t *target.Target, setupErr error) (time.Time, error) {
	start := s.StartAt
	if start.IsZero() {
		start = s.now().Add(RendezvousLead)
	}
	md := map[string]*string{metaCount: to.Ptr(strconv.Itoa(s.Count)), metaStartAt: to.Ptr(start.UTC().Format(time.RFC3339Nano)), metaSetup: to.Ptr(setupDone)}
	if setupErr != nil {
		md[metaSetup] = to.Ptr(setupFailedAs)
	}
	_, err := s.stateBlob(t).UploadBuffer(ctx, nil, &blockblob.UploadBufferOptions{
		Metadata:         md,
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}},
	})
	if err != nil {
		return start, fmt.Errorf("telling the other shards the setup is done (blob %s/%s): %s", cleanup.MarkerName(s.RunID), shardState, target.DescribeCallErr(err))
	}
	return start, nil
}

// awaitSetup waits, within SetupWait, for shard 0's word, and returns the
// start it stamped.
func (s *Shard) awaitSetup(ctx context.Context, t *target.Target, logf func(string, ...any)) (time.Time, error) {
	bound := s.SetupWait
	if bound <= 0 {
		bound = DefaultSetupWait
	}
	logf("shard %d/%d: waiting for shard 0 to set run %s up (at most %s)", s.Index, s.Count, s.RunID, bound)
	deadline := time.Now().Add(bound)
	var last error
	for {
		props, err := s.stateBlob(t).GetProperties(ctx, nil)
		switch {
		case err == nil:
			md := props.Metadata
			if n := cleanup.Meta(md, metaCount); n != strconv.Itoa(s.Count) {
				return time.Time{}, fmt.Errorf("shard 0 of run %s runs %s shards, this shard %d: give every shard the same count", s.RunID, n, s.Count)
			}
			if cleanup.Meta(md, metaSetup) != setupDone {
				return time.Time{}, fmt.Errorf("shard 0 of run %s failed to set the run up (see its output): this shard does not start", s.RunID)
			}
			at, perr := time.Parse(time.RFC3339Nano, cleanup.Meta(md, metaStartAt))
			if perr != nil {
				return time.Time{}, fmt.Errorf("run %s: shard 0 stamped start_at %q, not an RFC 3339 time", s.RunID, cleanup.Meta(md, metaStartAt))
			}
			if !s.StartAt.IsZero() {
				at = s.StartAt // this shard's own --start-at wins
			}
			return at, nil
		case target.IsStatus(err, 404):
			last = nil
		default:
			last = errors.New(target.DescribeCallErr(err))
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("shard %d/%d: shard 0 did not set run %s up within %s (is shard 0 running, with the same --run-id and target?)", s.Index, s.Count, s.RunID, bound)
			if last != nil {
				msg += "; last answer: " + last.Error()
			}
			return time.Time{}, errors.New(msg)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("shard %d/%d: stopped while waiting for shard 0's setup: %w", s.Index, s.Count, context.Cause(ctx))
		case <-time.After(shardPoll):
		}
	}
}

// awaitStart sleeps until at by this shard's clock and returns how late
// the load starts: 0 if the shard was there in time.
func (s *Shard) awaitStart(ctx context.Context, at time.Time) time.Duration {
	wait := at.Sub(s.now())
	if wait <= 0 {
		return -wait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return 0
}

// markDone adds done_<index> to the state blob's metadata with If-Match
// (retried on 412: another shard got there first) and reports whether
// this shard is the last of the run to finish its load, and how many are
// done.
func (s *Shard) markDone(ctx context.Context, t *target.Target) (last bool, done int, err error) {
	ctx, cancel := context.WithTimeout(ctx, markDoneBound)
	defer cancel()
	b := s.stateBlob(t)
	for {
		props, err := b.GetProperties(ctx, nil)
		if err != nil {
			return false, 0, fmt.Errorf("reading the run's shard state %s/%s: %s", cleanup.MarkerName(s.RunID), shardState, target.DescribeCallErr(err))
		}
		md := map[string]*string{}
		for k, v := range props.Metadata {
			md[strings.ToLower(k)] = v
		}
		md[metaDone+strconv.Itoa(s.Index)] = to.Ptr("1")
		done = 0
		for k := range md {
			if strings.HasPrefix(k, metaDone) {
				done++
			}
		}
		_, err = b.SetMetadata(ctx, md, &blob.SetMetadataOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: props.ETag}},
		})
		switch {
		case err == nil:
			return done >= s.Count, done, nil
		case target.IsStatus(err, 412):
			continue // another shard marked itself in between: read again
		default:
			return false, 0, fmt.Errorf("marking shard %d done in %s/%s: %s", s.Index, cleanup.MarkerName(s.RunID), shardState, target.DescribeCallErr(err))
		}
	}
}

// checkShard refuses a shard setting that cannot work, before anything is
// written.
func checkShard(sc *scenarios.Scenario, o Options) error {
	if o.Shard == nil {
		return nil
	}
	if err := o.Shard.check(); err != nil {
		return err
	}
	managed := sc.Target.Kind == scenarios.TargetAzurite && o.Target.ConnectionString == "" && o.Target.Azurite == nil
	if o.Shard.Count > 1 && managed {
		return fmt.Errorf("shard %d/%d: the shards of a run share one target, and a managed Azurite belongs to one process: run the shards with --target connection-string (or a scenario target of kind connection-string, account-key or entra-id)", o.Shard.Index, o.Shard.Count)
	}
	return nil
}

// shardFinished marks this shard done on the run's marker and reports
// whether it is the last of the run to finish its load (it then does the
// final reads and the cleanup).
func shardFinished(o Options, t *target.Target, trouble context.Context, sum *reports.Summary, logf func(string, ...any)) bool {
	s := o.Shard
	bound := markDoneBound // the word the cleanup waits on: the cleanup's cuts and, once aborted, its short bound
	if o.Abort.Err() != nil {
		bound = stage.CleanupAfterAbort
	}
	st := stage.Begin("marking the shard done", bound, stage.Cut{Ctx: o.Abandon, Why: stage.ErrInterruptedThird}, stage.Cut{Ctx: trouble, Why: nil})
	defer st.Cancel()
	last, done, err := s.markDone(st.Ctx, t)
	switch {
	case err != nil:
		logf("shard %d/%d: %v; the final reads and the cleanup are left to the other shards (or: stormcheck cleanup --run %s)", s.Index, s.Count, err, s.RunID)
	case last:
		logf("shard %d/%d: the last of %d shards to finish: final reads and cleanup", s.Index, s.Count, s.Count)
	default:
		logf("shard %d/%d: done; %d of %d shards have finished their load (the last to finish does the final reads and the cleanup; if a shard died, nothing will: stormcheck cleanup --run %s)", s.Index, s.Count, done, s.Count, s.RunID)
	}
	return last
}

// setUp sets the run up (an unsharded run, or shard 0: the marker, every
// workload, and for N > 1 the word to the other shards), or, for the other
// shards, opens the workloads' clients without sending anything and waits
// for shard 0's word. It returns the start shard 0 stamped (zero: none)
// and whether this process created resources it must clean up if it stops
// now.
func setUp(ctx context.Context, o Options, t *target.Target, id string, runs []*running, logf func(string, ...any)) (startAt time.Time, owner bool, err error) {
	s := o.Shard
	if s != nil && s.Index > 0 {
		for _, r := range runs { // shard 0 set them up: open the clients only
			if err := r.wl.Setup(ctx, r.env); err != nil {
				return time.Time{}, false, fmt.Errorf("workload %s: %w", r.env.Name, err)
			}
		}
		at, err := s.awaitSetup(ctx, t, logf)
		return at, false, err
	}
	logf("setting up %d workload(s) (run id %s)", len(runs), id)
	if err := cleanup.MarkRun(ctx, t, id, s.now()); err != nil {
		return time.Time{}, false, fmt.Errorf("setup: %w", err)
	}
	var setupErr error
	for _, r := range runs {
		if err := r.wl.Setup(ctx, r.env); err != nil {
			setupErr = fmt.Errorf("setup of workload %s: %w", r.env.Name, target.WithEndpoint(t, err))
			break
		}
	}
	if s != nil && s.Count > 1 {
		at, err := s.publishSetup(ctx, t, setupErr) // a failed setup too: the others stop waiting
		if setupErr == nil {
			setupErr = err
		}
		startAt = at
	}
	return startAt, true, setupErr
}

// startTogether waits for the start every shard shares (its own
// --start-at, or shard 0's stamp) and records it, and how late this shard
// is, in info.
func (s *Shard) startTogether(ctx context.Context, stamped time.Time, info *reports.ShardInfo, logf func(string, ...any)) {
	at := s.StartAt
	if at.IsZero() {
		at = stamped
		if !at.IsZero() {
			info.Rendezvous = at.UTC().Format(time.RFC3339Nano)
		}
	}
	if at.IsZero() {
		return // one shard, no --start-at: start now
	}
	when := at.UTC().Format(time.RFC3339Nano)
	logf("shard %d/%d: load starts at %s", s.Index, s.Count, when)
	if late := s.awaitStart(ctx, at); late > 0 {
		info.Late = late
		logf("shard %d/%d: started %s late (start at %s)", s.Index, s.Count, late.Round(time.Millisecond), when)
	}
}
