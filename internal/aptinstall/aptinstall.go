// Package aptinstall installs a Debian package a test or a managed target
// needs (samba, chromium) when it is missing: with apt-get, as root, on
// Linux, once across the processes that need it at the same time (a file
// lock), and otherwise says how to install it by hand.
package aptinstall

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/internal/filelock"
)

// Package describes what to install and how to tell it is there.
type Package struct {
	// Name is the Debian package ("samba").
	Name string
	// What names what is missing in errors ("smbd", "headless Chromium").
	What string
	// Installed reports whether it is there (checked before, under the
	// lock, and after installing).
	Installed func() bool
	// Hint says how to install it by hand; every error ends with it.
	Hint string
	// Why ends each progress line about apt-get ("takes a minute, once").
	Why string
	// Progress gets a line for each step (nil: none).
	Progress func(format string, a ...any)
	// Timeout bounds apt-get, the wait for the lock included.
	Timeout time.Duration
}

func (p Package) progressf(format string, a ...any) {
	if p.Progress != nil {
		p.Progress(format, a...)
	}
}

// Ensure returns nil once p is installed, installing it if it can. It
// takes no action, and returns nil, when p.Installed says it is there.
func Ensure(ctx context.Context, p Package) error {
	if p.Installed() {
		return nil
	}
	apt, err := exec.LookPath("apt-get")
	switch {
	case runtime.GOOS != "linux":
		return fmt.Errorf("%s not found; %s", p.What, p.Hint)
	case err != nil:
		return fmt.Errorf("%s not found and apt-get is not available to install it; %s", p.What, p.Hint)
	case os.Geteuid() != 0:
		return fmt.Errorf("%s not found, and stormcheck installs it only as root; %s", p.What, p.Hint)
	}
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	lock := filepath.Join(os.TempDir(), "stormcheck-"+p.Name+"-install.lock")
	unlock, err := filelock.Lock(ctx, lock, func() {
		p.progressf("waiting for another process installing %s (lock %s)", p.Name, lock)
	})
	if err != nil {
		return fmt.Errorf("%s install lock %s: %w", p.Name, lock, err)
	}
	defer unlock()
	if p.Installed() { // installed by whoever held the lock before us
		return nil
	}
	start := time.Now()
	for _, args := range [][]string{
		{"-q", "update"},
		{"-q", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600", "install", p.Name},
	} {
		p.progressf("%s is missing; running apt-get %s (%s)", p.What, strings.Join(args, " "), p.Why)
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return fmt.Errorf("apt-get %s: %v; its output ends with:\n%s\n%s", strings.Join(args, " "), err, LastLines(out.String(), 15), p.Hint)
		}
	}
	if !p.Installed() {
		return fmt.Errorf("apt-get installed %s but %s is still missing; %s", p.Name, p.What, p.Hint)
	}
	p.progressf("installed %s in %s", p.Name, time.Since(start).Round(time.Second))
	return nil
}

// LastLines returns the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
