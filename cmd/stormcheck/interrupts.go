package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/stormcheck/stormcheck/runner"
	scstage "github.com/stormcheck/stormcheck/runner/stage"
)

// interrupts turns Ctrl-C (SIGINT, and SIGTERM and SIGHUP alike) into a run's three
// ways of stopping, each said on stderr the moment it is asked for:
//
//  1. stop the load; final reads, cleanup and checks still run;
//  2. cut the lease releases of the load stopping (runner.StoppingBound)
//     and skip the final reads; the cleanup still runs, within
//     runner.CleanupAfterAbort, and the results are written;
//  3. stop the cleanup; what it did not delete is listed with the
//     `stormcheck cleanup` command that deletes it later.
//
// What a press says depends on the run's stage (runner.Options.Stage): a
// first press after the load is over stops nothing that is still to come,
// and says so. A fourth and later press changes nothing: it says what is
// running and that the results follow.
type interrupts struct {
	load, abort, abandon context.Context
	release              func()
	stage                atomic.Int32 // a runner.Stage, or stageUpload
	upload               atomic.Bool  // the run uploads its results at the end
}

// setStage is runner.Options.Stage.
func (in *interrupts) setStage(st runner.Stage) { in.stage.Store(int32(st)) }

func catchInterrupts(stderr io.Writer) *interrupts {
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, interruptSignals()...)
	in := newInterrupts(stderr, sigs)
	release := in.release
	in.release = func() {
		signal.Stop(sigs)
		release()
	}
	return in
}

// newInterrupts acts on each value from sigs, a press of Ctrl-C.
func newInterrupts(stderr io.Writer, sigs <-chan os.Signal) *interrupts {
	in := &interrupts{}
	ctxs, release := onPresses(stderr, sigs, 3, func(press int) string {
		return "stormcheck: " + pressSays(press, runner.Stage(in.stage.Load()), in.upload.Load())
	})
	in.load, in.abort, in.abandon, in.release = ctxs[0], ctxs[1], ctxs[2], release
	return in
}

// catchPresses is Ctrl-C (and SIGTERM, SIGHUP: interruptSignals) for a
// command with n ways of stopping (see onPresses). The returned func
// stops catching.
func catchPresses(stderr io.Writer, n int, says func(press int) string) ([]context.Context, func()) {
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, interruptSignals()...)
	ctxs, release := onPresses(stderr, sigs, n, says)
	return ctxs, func() {
		signal.Stop(sigs)
		release()
	}
}

// onPresses acts on each value from sigs, a press of Ctrl-C: press i
// (from 1) says says(i) on stderr at once and ends the i-th of the n
// contexts; later presses only say. The returned func ends them all.
func onPresses(stderr io.Writer, sigs <-chan os.Signal, n int, says func(press int) string) ([]context.Context, func()) {
	ctxs := make([]context.Context, n)
	cancels := make([]context.CancelFunc, n)
	for i := range n {
		ctxs[i], cancels[i] = context.WithCancel(context.Background())
	}
	done := make(chan struct{})
	go func() {
		for press := 1; ; press++ {
			select {
			case <-done:
				return
			case <-sigs:
			}
			fmt.Fprintln(stderr, says(press))
			if press <= n {
				cancels[press-1]()
			}
		}
	}()
	return ctxs, func() {
		close(done)
		for _, c := range cancels {
			c()
		}
	}
}

// stageUpload follows the run's stages: its results are written and
// `run --upload` copies them (the third press stops that).
const stageUpload = runner.StageChecks + 1

// pressSays is what the press-th Ctrl-C says when the run is at stage st;
// upload: the run uploads its results at the end.
func pressSays(press int, st runner.Stage, upload bool) string {
	said := map[int]string{1: "interrupted", 2: "interrupted again", 3: "interrupted a third time"}[press]
	if said == "" {
		said = fmt.Sprintf("interrupted %d times", press)
	}
	skipUpload := ""
	if upload && press == 3 {
		skipUpload = "; the upload is skipped"
	}
	switch {
	case press == 1 && st == runner.StageLoad:
		return said + ": stopping the load; final reads, cleanup and checks follow (Ctrl-C again to skip the final reads)"
	case press == 1 && st == runner.StageFinalReads:
		return said + ": the load is already over; the final reads go on, then the cleanup and the checks (Ctrl-C again to skip the final reads)"
	case press == 1 && st == runner.StageCleanup:
		return said + ": the load and the final reads are over; the cleanup goes on, then the checks (Ctrl-C twice more to stop the cleanup)"
	case press == 2 && st == runner.StageLoad:
		return fmt.Sprintf("%s: cutting the lease releases still pending and skipping the final reads; the cleanup still runs, for at most %s (Ctrl-C again to stop it)", said, scstage.CleanupAfterAbort)
	case press == 2 && st == runner.StageFinalReads:
		return fmt.Sprintf("%s: skipping the final reads; the cleanup still runs, for at most %s (Ctrl-C again to stop it)", said, scstage.CleanupAfterAbort)
	case press == 2 && st == runner.StageCleanup:
		return said + ": the cleanup goes on (Ctrl-C again to stop it)"
	case press == 3 && st <= runner.StageCleanup:
		return said + ": stopping the cleanup; what is left is listed at the end with the command that deletes it" + skipUpload
	case st == stageUpload && press < 3:
		return fmt.Sprintf("%s: the results are written; the upload goes on (Ctrl-C %d more time(s) to stop it)", said, 3-press)
	case st == stageUpload && press == 3:
		return said + ": stopping the upload; the results stay in the results folder"
	case st == stageUpload:
		return said + ": the upload is stopping; the results stay in the results folder (Ctrl-C changes nothing more)"
	}
	running := "the checks are running"
	switch st {
	case runner.StageLoad:
		running = "the load is stopping; the final reads and the cleanup are skipped"
	case runner.StageFinalReads:
		running = "the final reads are stopping; the cleanup is skipped"
	case runner.StageCleanup:
		running = "the cleanup is stopping"
	}
	more := "Ctrl-C changes nothing more"
	if upload && press < 3 {
		more = fmt.Sprintf("Ctrl-C %d more time(s) to skip the upload", 3-press)
	}
	return fmt.Sprintf("%s: %s%s; the results follow, written whatever is pressed (%s)", said, running, skipUpload, more)
}

// interruptSignals are the signals every command takes as Ctrl-C: SIGINT,
// SIGTERM (kill, timeout(1), a CI job cancelled, Kubernetes stopping a pod)
// and SIGHUP (the terminal or ssh session that started it closed), unless
// SIGHUP is ignored (nohup): catching it would undo nohup. Left to their
// default, SIGTERM and SIGHUP ended a run at once: no summary.json, no
// report, Azurite's data left in the results folder, the run's resources
// left on the target with no cleanup command said.
func interruptSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// survivePipeClose makes a write to a closed stdout or stderr (`stormcheck
// run ... | head`, a log collector gone) fail with EPIPE instead of the
// Go runtime ending the process with SIGPIPE: the command goes on to its
// end and writes its results. Catching SIGPIPE (rather than ignoring it)
// leaves it at its default in the processes stormcheck starts (Azurite,
// npm).
func survivePipeClose() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
