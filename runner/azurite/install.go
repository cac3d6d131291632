package azurite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/stormcheck/stormcheck/internal/filelock"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoNode is returned by Ensure and Start when Azurite must be installed
// but node or npm is not on PATH.
var ErrNoNode = errors.New("azurite needs Node.js (20 or later) and npm: install them (e.g. apt-get install nodejs npm), or set STORMCHECK_AZURITE to an azurite binary, or point stormcheck at another target with --target")

// ownerMark is written into an install directory made by install, so that a
// broken cache made by us may be replaced but a foreign directory never is.
const ownerMark = ".stormcheck-azurite"

// install runs npm to install azurite@o.Version into o.CacheDir, atomically
// and under a lock file, and returns the binary path.
func install(ctx context.Context, o Options) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", ErrNoNode
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", ErrNoNode
	}
	parent, base := filepath.Dir(o.CacheDir), filepath.Base(o.CacheDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("azurite: cache: %w", err)
	}
	unlock, err := filelock.Lock(ctx, o.CacheDir+".lock", func() {
		o.progressf("waiting for another process to finish installing into %s", o.CacheDir)
	})
	if errors.Is(err, filelock.ErrUnsupported) {
		return "", errors.New("azurite: installing azurite is supported on Unix-like systems only; set STORMCHECK_AZURITE")
	}
	if err != nil {
		return "", fmt.Errorf("azurite: lock %s.lock: %w", o.CacheDir, err)
	}
	defer unlock()
	if bin, ok := cachedBin(o.CacheDir, o.Version); ok {
		return bin, nil // installed by whoever held the lock before us
	}
	// Holding the lock, no install of this directory is running: leftovers
	// are from interrupted ones.
	stale, _ := filepath.Glob(filepath.Join(parent, "."+base+".tmp-*"))
	for _, s := range stale {
		os.RemoveAll(s)
	}
	if err := clearBrokenCache(o.CacheDir); err != nil {
		return "", err
	}

	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return "", fmt.Errorf("azurite: cache: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op once renamed
	o.progressf("installing azurite %s with npm into %s (takes about a minute)", o.Version, o.CacheDir)
	start := time.Now()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp,
		"--no-audit", "--no-fund", "--no-update-notifier", "--prefer-offline",
		"azurite@"+o.Version)
	cmd.Dir = tmp
	cmd.Stdout, cmd.Stderr = &out, &out
	// npm stays in stormcheck's process group: Ctrl-C stops it too, and a
	// cancelled ctx kills it; WaitDelay bounds waiting for its output pipe.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return "", fmt.Errorf("azurite: npm install azurite@%s failed: %v; npm output ends with:\n%s",
			o.Version, err, lastLines(out.String(), 15))
	}
	if _, ok := cachedBin(tmp, o.Version); !ok {
		return "", fmt.Errorf("azurite: npm install azurite@%s succeeded but left no node_modules/.bin/azurite of that version; npm output ends with:\n%s",
			o.Version, lastLines(out.String(), 15))
	}
	if err := os.WriteFile(filepath.Join(tmp, ownerMark), []byte(o.Version+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("azurite: cache: %w", err)
	}
	if err := os.Rename(tmp, o.CacheDir); err != nil {
		return "", fmt.Errorf("azurite: cache: %w", err)
	}
	o.progressf("installed azurite %s in %s", o.Version, time.Since(start).Round(time.Second))
	bin, _ := cachedBin(o.CacheDir, o.Version)
	return bin, nil
}

// clearBrokenCache makes room for a fresh install at dir: it removes an
// empty directory or one of ours (with ownerMark) that failed cachedBin, and
// refuses to touch anything else.
func clearBrokenCache(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if os.Remove(dir) == nil { // empty
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ownerMark)); err != nil {
		return fmt.Errorf("azurite: cache dir %s exists but holds no usable azurite; remove it or choose another CacheDir", dir)
	}
	// Rename first so that a crash mid-removal leaves a stale tmp dir (cleaned
	// later), never a half cache.
	doomed := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-broken")
	os.RemoveAll(doomed)
	if err := os.Rename(dir, doomed); err != nil {
		return fmt.Errorf("azurite: cache: %w", err)
	}
	return os.RemoveAll(doomed)
}

// lastLines returns the last n non-empty lines of s, secrets redacted.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = redact(l)
	}
	return strings.Join(lines, "\n")
}
