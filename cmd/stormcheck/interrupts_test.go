package main

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner"
)

// press is one Ctrl-C at a stage: what it must say, what it must not, and
// which of the run's contexts are cancelled after it.
type press struct {
	stage                runner.Stage
	say, notSay          string
	load, abort, abandon bool
}

// pressAll sends the presses to newInterrupts one at a time, each once the
// run is at its stage, and checks each line said and the contexts.
func pressAll(t *testing.T, upload bool, presses []press) {
	t.Helper()
	var stderr syncBuffer
	sigs := make(chan os.Signal)
	in := newInterrupts(&stderr, sigs)
	defer in.release()
	in.upload.Store(upload)
	for i, p := range presses {
		in.setStage(p.stage)
		select {
		case sigs <- syscall.SIGINT: // (unbuffered: taken by the goroutine)
		case <-time.After(time.Minute): // a deadline, not a speed
			t.Fatalf("press %d swallowed: nobody reads the signals any more\n%s", i+1, stderr.String())
		}
		deadline := time.Now().Add(time.Minute)
		for strings.Count(stderr.String(), "\n") < i+1 {
			if time.Now().After(deadline) {
				t.Fatalf("press %d said nothing:\n%s", i+1, stderr.String())
			}
			time.Sleep(time.Millisecond)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		line := lines[i]
		if !strings.Contains(line, p.say) || (p.notSay != "" && strings.Contains(line, p.notSay)) {
			t.Errorf("press %d at stage %d said\n  %s\nwant %q, not %q", i+1, p.stage, line, p.say, p.notSay)
		}
		for _, c := range []struct {
			name string
			ctx  context.Context
			want bool
		}{{"load", in.load, p.load}, {"abort", in.abort, p.abort}, {"abandon", in.abandon, p.abandon}} {
			if c.want { // the line is said first, the context ended right after: wait for it (bounded)
				select {
				case <-c.ctx.Done():
				case <-time.After(time.Minute): // a deadline, not a speed
				}
			}
			if got := c.ctx.Err() != nil; got != c.want {
				t.Errorf("press %d: %s cancelled %v, want %v", i+1, c.name, got, c.want)
			}
		}
	}
}

// TestCtrlCSaysWhatItChanges: each press says what it changes at the
// stage the run is in. A first press after the load is over no longer says
// "stopping the load"; a fourth and later press is no longer swallowed: it
// says what is running and that the results follow; the three documented
// steps still cancel the load, the final reads and the cleanup in turn.
func TestCtrlCSaysWhatItChanges(t *testing.T) {
	t.Run("during the load", func(t *testing.T) {
		pressAll(t, false, []press{
			{runner.StageLoad, "stormcheck: interrupted: stopping the load; final reads, cleanup and checks follow", "", true, false, false},
			{runner.StageLoad, "interrupted again: cutting the lease releases still pending and skipping the final reads; the cleanup still runs, for at most 10s", "", true, true, false},
			{runner.StageLoad, "interrupted a third time: stopping the cleanup; what is left is listed", "upload", true, true, true},
			{runner.StageLoad, "interrupted 4 times: the load is stopping; the final reads and the cleanup are skipped; the results follow", "", true, true, true},
		})
	})
	t.Run("after the load", func(t *testing.T) {
		pressAll(t, false, []press{
			{runner.StageFinalReads, "interrupted: the load is already over; the final reads go on, then the cleanup and the checks (Ctrl-C again to skip the final reads)", "stopping the load", true, false, false},
			{runner.StageCleanup, "interrupted again: the cleanup goes on (Ctrl-C again to stop it)", "skipping the final reads", true, true, false},
			{runner.StageCleanup, "interrupted a third time: stopping the cleanup", "", true, true, true},
			{runner.StageCleanup, "interrupted 4 times: the cleanup is stopping; the results follow", "", true, true, true},
		})
		pressAll(t, false, []press{
			{runner.StageCleanup, "interrupted: the load and the final reads are over; the cleanup goes on, then the checks (Ctrl-C twice more to stop the cleanup)", "stopping the load", true, false, false},
		})
	})
	t.Run("during long checks", func(t *testing.T) {
		pressAll(t, false, []press{
			{runner.StageChecks, "interrupted: the checks are running; the results follow, written whatever is pressed (Ctrl-C changes nothing more)", "stopping the load", true, false, false},
			{runner.StageChecks, "interrupted again: the checks are running; the results follow", "final reads", true, true, false},
			{runner.StageChecks, "interrupted a third time: the checks are running; the results follow", "cleanup", true, true, true},
			{runner.StageChecks, "interrupted 4 times: the checks are running; the results follow", "", true, true, true},
			{runner.StageChecks, "interrupted 5 times: the checks are running; the results follow", "", true, true, true},
		})
	})
	t.Run("with an upload", func(t *testing.T) {
		pressAll(t, true, []press{
			{runner.StageChecks, "interrupted: the checks are running; the results follow, written whatever is pressed (Ctrl-C 2 more time(s) to skip the upload)", "", true, false, false},
			{stageUpload, "interrupted again: the results are written; the upload goes on (Ctrl-C 1 more time(s) to stop it)", "", true, true, false},
			{stageUpload, "interrupted a third time: stopping the upload; the results stay in the results folder", "", true, true, true},
			{stageUpload, "interrupted 4 times: the upload is stopping", "", true, true, true},
		})
		pressAll(t, true, []press{
			{runner.StageLoad, "stopping the load", "", true, false, false},
			{runner.StageLoad, "skipping the final reads", "", true, true, false},
			{runner.StageLoad, "interrupted a third time: stopping the cleanup; what is left is listed at the end with the command that deletes it; the upload is skipped", "", true, true, true},
		})
	})
}
