// Package sambatest is test help: it starts a private Samba for one test,
// stops it when the test ends, and logs SMB clients on to it.
package sambatest

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/smb2"
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

// Logon dials inst, logs on as its user with NTLMv2 and connects its share;
// the connection is closed at t's cleanup.
func Logon(t testing.TB, inst *samba.Instance, o smb2.Options) *smb2.Tree {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := smb2.Dial(ctx, inst.Addr, o)
	if err != nil {
		t.Fatalf("dial %s: %v", inst.Addr, err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := c.SessionSetup(ctx, smb2.Credentials{User: inst.User, Password: inst.Password})
	if err != nil {
		t.Fatalf("session setup (dialect %v): %v", c.Dialect, err)
	}
	tr, err := s.TreeConnect(ctx, inst.Share)
	if err != nil {
		t.Fatalf("tree connect: %v", err)
	}
	return tr
}
