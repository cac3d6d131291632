// Package browser gives the report's tests a real headless Chromium: it finds
// Debian's chromium, installs it with apt-get when it is missing and the tests
// run as root (as CI does), and loads a page in it over the DevTools protocol
// with no network, reporting the console, the requests, the rendered <svg>
// elements and a screenshot. Only tests use it.
package browser

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/stormcheck/stormcheck/internal/aptinstall"
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
	err := aptinstall.Ensure(ctx, aptinstall.Package{
		Name: "chromium", What: "headless Chromium", Hint: InstallHint, Timeout: installTimeout,
		Why:       "the report's browser test needs it; takes a few minutes once",
		Installed: func() bool { _, ok := find(); return ok },
		Progress:  func(format string, a ...any) { fmt.Fprintf(progress, "browser: "+format+"\n", a...) },
	})
	if err != nil {
		return "", err
	}
	p, _ := find()
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
