// Package browser gives the report's tests a real headless Chromium: it finds
// Debian's chromium, installs it with apt-get when it is missing and the tests
// run as root (as CI does), and loads a page in it over the DevTools protocol
// with no network, reporting the console, the requests, the rendered <svg>
// elements and a screenshot. Only tests use it.
package browser

import (
	"bytes"
	"context"
	"fmt"
	"github.com/stormcheck/stormcheck/internal/filelock"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// EnvChromium names a Chromium (or Chrome) binary to use instead of looking
// for one.
const EnvChromium = "STORMCHECK_CHROMIUM"

// InstallHint says how to get Chromium when the tests cannot install it.
const InstallHint = "install Debian's chromium (as root: apt-get update && apt-get install -y --no-install-recommends chromium), " +
	"or set " + EnvChromium + " to a Chromium or Chrome binary"

// installTimeout bounds apt-get (update and install), waiting for the lock
// included.
const installTimeout = 20 * time.Minute

// Chromium returns the path of a Chromium binary: $STORMCHECK_CHROMIUM, else
// chromium (or chromium-browser) on PATH or /usr/bin/chromium. When there is
// none and the process runs as root on Linux with apt-get, it installs
// Debian's chromium (apt-get update, then apt-get install -y
// --no-install-recommends chromium) under a file lock, so that test packages
// running in parallel install it once. progress gets a line for each step
// (nil: stderr). The error says how to install it by hand.
func Chromium(ctx context.Context, progress io.Writer) (string, error) {
	if progress == nil {
		progress = os.Stderr
	}
	if p := os.Getenv(EnvChromium); p != "" {
		abs, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvChromium, p, err)
		}
		return abs, nil
	}
	if p, ok := find(); ok {
		return p, nil
	}
	apt, err := exec.LookPath("apt-get")
	switch {
	case runtime.GOOS != "linux":
		return "", fmt.Errorf("headless Chromium not found (no chromium on PATH, no /usr/bin/chromium); %s", InstallHint)
	case err != nil:
		return "", fmt.Errorf("headless Chromium not found and apt-get is not available to install it; %s", InstallHint)
	case os.Geteuid() != 0:
		return "", fmt.Errorf("headless Chromium not found, and the tests can install it only as root; %s", InstallHint)
	}
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	lock := filepath.Join(os.TempDir(), "stormcheck-chromium-install.lock")
	unlock, err := filelock.Lock(ctx, lock, func() {
		fmt.Fprintf(progress, "browser: waiting for another test process installing chromium (lock %s)\n", lock)
	})
	if err != nil {
		return "", fmt.Errorf("chromium install lock %s: %w", lock, err)
	}
	defer unlock()
	if p, ok := find(); ok { // installed by whoever held the lock before us
		return p, nil
	}
	start := time.Now()
	for _, args := range [][]string{
		{"-q", "update"},
		{"-q", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600", "install", "chromium"},
	} {
		fmt.Fprintf(progress, "browser: chromium is missing; running apt-get %s (the report's browser test needs it; takes a few minutes once)\n", strings.Join(args, " "))
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return "", fmt.Errorf("apt-get %s: %v; its output ends with:\n%s\n%s",
				strings.Join(args, " "), err, lastLines(out.String(), 15), InstallHint)
		}
	}
	p, ok := find()
	if !ok {
		return "", fmt.Errorf("apt-get installed chromium but no chromium binary is on PATH or at /usr/bin/chromium; %s", InstallHint)
	}
	fmt.Fprintf(progress, "browser: installed %s in %s\n", p, time.Since(start).Round(time.Second))
	return p, nil
}

// find looks for an installed Chromium.
func find() (string, bool) {
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ArtifactPath is where a test keeps a file for people to look at after the
// run (a screenshot): $STORMCHECK_ARTIFACTS/name, else
// $TMPDIR/stormcheck-artifacts/name; never inside the repository. The
// directory is created.
func ArtifactPath(name string) (string, error) {
	dir := os.Getenv("STORMCHECK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "stormcheck-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}
