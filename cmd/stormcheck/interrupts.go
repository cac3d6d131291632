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

// interrupts turns Ctrl-C (SIGINT, and SIGTERM alike) into a run's three
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
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
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
