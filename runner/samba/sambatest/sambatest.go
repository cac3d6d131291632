// Package sambatest is test help: it starts a private Samba for one test
// and stops it when the test ends.
package sambatest

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/samba"
)

// Start starts a private smbd for t (installing samba first when it is
// missing and the test runs as root) and stops it at t's cleanup. It skips
// t, saying why, only when smbd cannot run here at all (not root, not
// Linux); any other failure, a failed install included, fails t.
func Start(t testing.TB, o samba.Options) *samba.Instance {
	t.Helper()
	if o.WorkDir == "" {
		o.WorkDir = t.TempDir()
	}
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 16*time.Minute)
	defer cancel()
	inst, err := samba.Start(ctx, o)
	if errors.Is(err, samba.ErrNotRoot) || errors.Is(err, samba.ErrNotLinux) {
		t.Skipf("no managed Samba here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := inst.Stop(); err != nil {
			t.Errorf("samba: stop: %v", err)
		}
	})
	return inst
}
