package azurite

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEnsureInstallsIntoSharedCache exercises the real npm install into the
// shared cache (default CacheDir: $STORMCHECK_CACHE/azurite-<version>, else
// os.UserCacheDir()/stormcheck/azurite-<version>), from two goroutines at
// once. On a fresh machine (CI) this installs (~20-60 s) and checks that
// exactly one goroutine ran npm; once the cache is populated it verifies the
// cached install instead and says so, so that repeated runs stay fast. Run
// with STORMCHECK_CACHE=$(mktemp -d) to force a real install. The install
// mechanics (lock, atomic rename, failures, interruption) are covered
// every run by the fake-npm tests in install_test.go.
func TestEnsureInstallsIntoSharedCache(t *testing.T) {
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(o.CacheDir, "node_modules", ".bin", "azurite")
	_, cachedBefore := cachedBin(o.CacheDir, o.Version)
	t.Setenv(EnvAzurite, "")
	// Only node, npm and sh (npm runs postinstall scripts with sh): an
	// azurite elsewhere on PATH must not satisfy Ensure.
	t.Setenv("PATH", pathWith(t, "node", "npm", "sh"))
	ctx := testCtx(t, installTimeout)

	var progress syncBuffer
	var wg sync.WaitGroup
	bins, errs := make([]string, 2), make([]error, 2)
	t0 := time.Now()
	for i := range 2 {
		wg.Go(func() {
			bins[i], errs[i] = Ensure(ctx, Options{Progress: &progress})
		})
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("Ensure #%d: %v", i, errs[i])
		}
		if bins[i] != want {
			t.Errorf("Ensure #%d = %q, want %q", i, bins[i], want)
		}
	}
	installs := strings.Count(progress.String(), "with npm into")
	if cachedBefore {
		t.Logf("NOTE: %s already held azurite %s, so no npm install ran (took %s); set STORMCHECK_CACHE to an empty dir to exercise one",
			o.CacheDir, o.Version, time.Since(t0).Round(time.Millisecond))
		if installs != 0 {
			t.Errorf("installed over a valid cache:\n%s", progress.String())
		}
	} else {
		t.Logf("real npm install took %s; progress:\n%s", time.Since(t0).Round(time.Millisecond), progress.String())
		if installs != 1 {
			t.Errorf("%d installs announced, want exactly 1", installs)
		}
		if _, err := os.Stat(filepath.Join(o.CacheDir, ownerMark)); err != nil {
			t.Errorf("owner mark missing: %v", err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(o.CacheDir), ".*tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary install dirs left behind: %v", left)
	}
	// The renamed tree must run (relative .bin symlink, no absolute paths).
	out, err := exec.CommandContext(ctx, want, "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != DefaultVersion {
		t.Fatalf("%s --version = %q, %v; want %s", want, out, err, DefaultVersion)
	}
	// A further Ensure is a cache hit: silent, and it runs no npm: with
	// nothing on PATH (no npm, no node) it still answers. (How long it takes
	// depends on the machine and is not asserted.)
	var again syncBuffer
	t.Setenv("PATH", t.TempDir())
	if bin, err := Ensure(ctx, Options{Progress: &again}); err != nil || bin != want {
		t.Fatalf("cached Ensure with no npm on PATH = %q, %v", bin, err)
	}
	if again.String() != "" {
		t.Errorf("cached Ensure said %q; want silent", again.String())
	}
}

// TestEnsureWithoutNodeOrNpm: with an empty PATH and an empty cache, Ensure
// and Start fail with the one-line ErrNoNode message.
func TestEnsureWithoutNodeOrNpm(t *testing.T) {
	t.Setenv(EnvAzurite, "")
	t.Setenv("PATH", t.TempDir())
	opts := Options{CacheDir: filepath.Join(t.TempDir(), "azurite")}
	_, err := Ensure(testCtx(t, time.Minute), opts)
	if !errors.Is(err, ErrNoNode) {
		t.Fatalf("Ensure err = %v, want ErrNoNode", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "Node.js") || !strings.Contains(msg, "STORMCHECK_AZURITE") || !strings.Contains(msg, "--target") {
		t.Errorf("message not the one-line hint: %q", msg)
	}
	if _, err := Start(testCtx(t, time.Minute), opts); !errors.Is(err, ErrNoNode) {
		t.Fatalf("Start err = %v, want ErrNoNode", err)
	}
}

// TestEnsureEnvOverride: $STORMCHECK_AZURITE wins over an empty cache, and a
// version mismatch is an error rather than a silent install.
func TestEnsureEnvOverride(t *testing.T) {
	bin := sharedBin(t)
	t.Setenv(EnvAzurite, bin)
	t.Setenv("PATH", t.TempDir()) // no npm: any install attempt would fail loudly
	ctx := testCtx(t, time.Minute)
	empty := filepath.Join(t.TempDir(), "azurite")
	got, err := Ensure(ctx, Options{CacheDir: empty})
	if err != nil || got != bin {
		t.Fatalf("Ensure = %q, %v; want %q", got, err, bin)
	}
	_, err = Ensure(ctx, Options{CacheDir: empty, Version: "3.0.0"})
	if err == nil || !strings.Contains(err.Error(), "want 3.0.0") {
		t.Fatalf("version mismatch: err = %v", err)
	}
}

// TestEnsureFindsAzuriteOnPath: with an empty cache, an azurite of the right
// version on PATH is used; of another version, it is not.
func TestEnsureFindsAzuriteOnPath(t *testing.T) {
	bin := sharedBin(t)
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "azurite")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvAzurite, "")
	t.Setenv("PATH", dir)
	ctx := testCtx(t, time.Minute)
	empty := filepath.Join(t.TempDir(), "azurite")
	got, err := Ensure(ctx, Options{CacheDir: empty})
	if err != nil || got != filepath.Join(dir, "azurite") {
		t.Fatalf("Ensure = %q, %v; want the PATH azurite", got, err)
	}
	if _, err := Ensure(ctx, Options{CacheDir: empty, Version: "3.0.0"}); !errors.Is(err, ErrNoNode) {
		t.Fatalf("other version on PATH: err = %v, want ErrNoNode (would install, no npm)", err)
	}
}
