package azurite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCtrlCDuringStartSaysInterrupted: a Ctrl-C while Azurite starts (its
// process launched, not yet ready) is reported as an interruption, not as
// Azurite failing to report its ports in time; the process is stopped and
// its workspace removed.
func TestCtrlCDuringStartSaysInterrupted(t *testing.T) {
	sharedBin(t)
	for attempt := 1; ; attempt++ {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(testCtx(t, time.Minute))
		go func() { // cancel once the process is being launched: its log exists
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for range tick.C {
				if _, err := os.Stat(filepath.Join(dir, "azurite.log")); err == nil || ctx.Err() != nil {
					cancel()
					return
				}
			}
		}()
		inst, err := Start(ctx, Options{WorkDir: dir})
		cancel()
		if err == nil { // ready before the cancel landed: try again
			inst.Stop()
			if attempt == 3 {
				t.Fatal("Azurite was ready three times before a cancel issued as its process launched")
			}
			continue
		}
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "start-up interrupted while Azurite was starting; it was stopped") ||
			strings.Contains(err.Error(), "in time") || strings.Contains(err.Error(), "last lines") {
			t.Fatalf("got %v", err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "data-*")); len(left) != 0 {
			t.Errorf("workspace left behind: %v", left)
		}
		t.Logf("attempt %d: %v", attempt, err)
		return
	}
}

func TestCtrlCBeforeStartStartsNothing(t *testing.T) {
	sharedBin(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Start(ctx, Options{WorkDir: dir})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "start-up interrupted before Azurite was started") {
		t.Fatalf("got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v in the work dir", entries)
	}
}
