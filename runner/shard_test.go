package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// TestShardMarkerProtocol drives the run marker's shard state against a
// real Azurite: shard 1 waits (boundedly) for a setup nobody does and says
// so; after shard 0's word it gets shard 0's start; 8 shards marking
// themselves done at once (If-Match, retried on 412) elect exactly one
// last shard, and every mark counts.
func TestShardMarkerProtocol(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := runtest.OpenTarget(ctx, t, inst)
	const id, n = "0badc0de", 8
	logf := func(string, ...any) {}

	waiter := &Shard{Index: 1, Count: n, RunID: id, SetupWait: 300 * time.Millisecond}
	if _, err := waiter.awaitSetup(ctx, tg, logf); err == nil || !strings.Contains(err.Error(), "shard 0 did not set run 0badc0de up within 300ms") {
		t.Fatalf("no setup: err = %v", err)
	}

	if err := cleanup.MarkRun(ctx, tg, id, time.Now()); err != nil {
		t.Fatal(err)
	}
	s0 := &Shard{Index: 0, Count: n, RunID: id}
	before := time.Now()
	start, err := s0.publishSetup(ctx, tg, nil)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if start.Before(before.Add(RendezvousLead)) || start.After(after.Add(RendezvousLead)) {
		t.Errorf("shard 0 stamped %v, want its clock when it wrote plus %v (between %v and %v)", start, RendezvousLead, before.Add(RendezvousLead), after.Add(RendezvousLead))
	}
	if _, err := s0.publishSetup(ctx, tg, nil); err == nil {
		t.Error("a second setup word was accepted: the state blob is created once (If-None-Match: *)")
	}
	waiter.SetupWait = time.Minute
	got, err := waiter.awaitSetup(ctx, tg, logf)
	if err != nil || !got.Equal(start) {
		t.Fatalf("shard 1 got start %v (%v), shard 0 stamped %v", got, err, start)
	}
	wrong := &Shard{Index: 1, Count: 3, RunID: id, SetupWait: time.Minute}
	if _, err := wrong.awaitSetup(ctx, tg, logf); err == nil || !strings.Contains(err.Error(), "runs 8 shards, this shard 3") {
		t.Errorf("count mismatch: err = %v", err)
	}

	var wg sync.WaitGroup
	lasts := make([]bool, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := &Shard{Index: i, Count: n, RunID: id}
			lasts[i], _, errs[i] = s.markDone(ctx, tg)
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, l := range lasts {
		if l {
			count++
		}
	}
	if count != 1 {
		t.Errorf("%d shards think they are the last, want exactly 1 (%v)", count, lasts)
	}
	props, err := s0.stateBlob(tg).GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for k := range props.Metadata {
		if strings.HasPrefix(strings.ToLower(k), metaDone) {
			done++
		}
	}
	if done != n {
		t.Errorf("%d done marks on the marker, want %d: an update was lost", done, n)
	}
}

// TestShardSetupFailureStopsTheOthers: shard 0's failed setup is stamped
// on the marker, and a waiting shard stops at once, saying so.
func TestShardSetupFailureStopsTheOthers(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := runtest.OpenTarget(ctx, t, inst)
	const id = "0badf00d"
	if err := cleanup.MarkRun(ctx, tg, id, time.Now()); err != nil {
		t.Fatal(err)
	}
	s0 := &Shard{Index: 0, Count: 2, RunID: id}
	if _, err := s0.publishSetup(ctx, tg, errors.New("boom")); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err := (&Shard{Index: 1, Count: 2, RunID: id}).awaitSetup(ctx2, tg, func(string, ...any) {})
	if err == nil || !strings.Contains(err.Error(), "shard 0 of run 0badf00d failed to set the run up") {
		t.Fatalf("err = %v", err)
	}
}

// TestOneShardStartAtInThePast: a run of one shard (--start-at alone) on a
// managed Azurite is a whole run: it sets up, does the final reads and the
// cleanup, runs its checks, and says how late its load started; its shard
// info carries the generated run id.
func TestOneShardStartAtInThePast(t *testing.T) {
	sc := runtest.Parse(t, "name: one\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2, iterations: 20}\n")
	dir := filepath.Join(t.TempDir(), "results")
	at := time.Now().Add(-time.Hour)
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Shard: &Shard{Count: 1, StartAt: at}})
	if err != nil {
		t.Fatal(err)
	}
	sh := sum.Shard
	if sh == nil || sh.RunID != sum.RunID || !cleanup.ValidRunID(sh.RunID) || sh.Count != 1 {
		t.Fatalf("shard info %+v, run id %q", sh, sum.RunID)
	}
	if !sh.Setup || !sh.FinalReads || !sh.Cleanup || sh.Late < time.Hour || sh.StartAt == "" || sh.Rendezvous != "" {
		t.Errorf("one shard: %+v", sh)
	}
	if len(sum.Checks) == 0 {
		t.Error("a run of one shard ran no checks")
	}
	if sh.ClockOffset.Samples == 0 || !sh.ClockOffset.Contains(0) {
		t.Errorf("clock offset against a local Azurite: %+v", sh.ClockOffset)
	}
}
