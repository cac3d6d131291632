package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/stormcheck/stormcheck/runner"
)

// interrupts turns Ctrl-C (SIGINT, and SIGTERM and SIGHUP alike) into a run's three
// ways of stopping, each said on stderr the moment it is asked for:
//
//  1. stop the load; final reads, cleanup and checks still run;
//  2. skip the final reads; the cleanup still runs, within
//     runner.CleanupAfterAbort, and the results are written;
//  3. stop the cleanup; what it did not delete is listed with the
//     `stormcheck cleanup` command that deletes it later.
type interrupts struct {
	load, abort, abandon context.Context
	release              func()
}

func catchInterrupts(stderr io.Writer) *interrupts {
	load, stopLoad := context.WithCancel(context.Background())
	abort, abortNow := context.WithCancel(context.Background())
	abandon, abandonNow := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, interruptSignals()...)
	done := make(chan struct{})
	go func() {
		steps := []struct {
			cancel context.CancelFunc
			say    string
		}{
			{stopLoad, "interrupted: stopping the load; final reads, cleanup and checks follow (Ctrl-C again to skip the final reads)"},
			{abortNow, fmt.Sprintf("interrupted again: skipping the final reads; the cleanup still runs, for at most %s (Ctrl-C again to stop it)", runner.CleanupAfterAbort)},
			{abandonNow, "interrupted a third time: stopping the cleanup; what is left is listed at the end with the command that deletes it"},
		}
		for _, s := range steps {
			select {
			case <-done:
				return
			case <-sigs:
			}
			fmt.Fprintf(stderr, "stormcheck: %s\n", s.say)
			s.cancel()
		}
	}()
	return &interrupts{load: load, abort: abort, abandon: abandon, release: func() {
		signal.Stop(sigs)
		close(done)
		stopLoad()
		abortNow()
		abandonNow()
	}}
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
