package azurite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNpm is an npm stand-in for testing the install mechanics cheaply: it
// records each call, then behaves per $FAKE_NPM_MODE: "ok" lays out an
// azurite package of version 9.9.9 after a second, "fail" leaves a partial
// tree and exits 1, "hang" sleeps (to be cancelled).
const fakeNpm = `#!/bin/sh
echo "$@" >> "$FAKE_NPM_CALLS"
while [ "$1" != "--prefix" ]; do shift; done
dir="$2"
mkdir -p "$dir/node_modules/azurite/dist/src" "$dir/node_modules/.bin"
case "$FAKE_NPM_MODE" in
fail) echo "npm error code E404"; echo "npm error 404 Not Found - azurite@9.9.9"; exit 1;;
hang) exec sleep 60;;
esac
sleep 1
echo '{"name":"azurite","version":"9.9.9"}' > "$dir/node_modules/azurite/package.json"
printf '#!/bin/sh\necho 9.9.9\n' > "$dir/node_modules/azurite/dist/src/azurite.js"
chmod +x "$dir/node_modules/azurite/dist/src/azurite.js"
ln -s ../azurite/dist/src/azurite.js "$dir/node_modules/.bin/azurite"
echo "added 1 package"
`

// withFakeNpm puts fakeNpm first on PATH in the given mode and returns a
// function counting its calls.
func withFakeNpm(t *testing.T, mode string) (calls func() int) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "npm"), []byte(fakeNpm), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_NPM_MODE", mode)
	t.Setenv("FAKE_NPM_CALLS", log)
	t.Setenv(EnvAzurite, "")
	return func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n")
	}
}

// leftovers lists temporary install dirs beside cache.
func leftovers(cache string) []string {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(cache), "."+filepath.Base(cache)+".tmp-*"))
	return m
}

// TestInstallConcurrentOnce: concurrent Ensures on an empty cache run npm
// once, all get the same binary, and a stale temp dir from a crashed
// install is cleaned up.
func TestInstallConcurrentOnce(t *testing.T) {
	calls := withFakeNpm(t, "ok")
	cache := filepath.Join(t.TempDir(), "azurite-9.9.9")
	stale := filepath.Join(filepath.Dir(cache), ".azurite-9.9.9.tmp-crashed")
	if err := os.MkdirAll(filepath.Join(stale, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, time.Minute)
	var wg sync.WaitGroup
	bins, errs := make([]string, 4), make([]error, 4)
	for i := range 4 {
		wg.Go(func() { bins[i], errs[i] = Ensure(ctx, Options{Version: "9.9.9", CacheDir: cache}) })
	}
	wg.Wait()
	want := filepath.Join(cache, "node_modules", ".bin", "azurite")
	for i := range 4 {
		if errs[i] != nil || bins[i] != want {
			t.Errorf("Ensure #%d = %q, %v; want %q", i, bins[i], errs[i], want)
		}
	}
	if n := calls(); n != 1 {
		t.Errorf("npm ran %d times, want 1", n)
	}
	if l := leftovers(cache); len(l) != 0 {
		t.Errorf("leftovers: %v", l)
	}
}

// TestInstallFailureLeavesNoCache: a failing npm yields an error with the
// tail of its output, and neither a cache nor temp dirs remain.
func TestInstallFailureLeavesNoCache(t *testing.T) {
	withFakeNpm(t, "fail")
	cache := filepath.Join(t.TempDir(), "azurite-9.9.9")
	_, err := Ensure(testCtx(t, time.Minute), Options{Version: "9.9.9", CacheDir: cache})
	if err == nil || !strings.Contains(err.Error(), "npm install azurite@9.9.9 failed") || !strings.Contains(err.Error(), "404 Not Found") {
		t.Fatalf("err = %v; want npm failure with its output", err)
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cache dir exists after failed install: %v", err)
	}
	if l := leftovers(cache); len(l) != 0 {
		t.Errorf("leftovers: %v", l)
	}
}

// TestInstallInterrupted: cancelling the context mid-install stops npm
// promptly, leaves no cache, and releases the lock for the next attempt.
func TestInstallInterrupted(t *testing.T) {
	withFakeNpm(t, "hang")
	cache := filepath.Join(t.TempDir(), "azurite-9.9.9")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := Ensure(ctx, Options{Version: "9.9.9", CacheDir: cache})
	if !errors.Is(err, context.DeadlineExceeded) && (err == nil || !strings.Contains(err.Error(), "deadline exceeded")) {
		t.Fatalf("err = %v; want deadline exceeded", err)
	}
	if d := time.Since(t0); d > time.Minute { // a deadline, not a speed: the hanging npm never returns by itself
		t.Errorf("cancellation took %s", d)
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cache dir exists after interrupted install: %v", err)
	}
	if l := leftovers(cache); len(l) != 0 {
		t.Errorf("leftovers: %v", l)
	}
	t.Setenv("FAKE_NPM_MODE", "ok") // the lock must be free again
	if _, err := Ensure(testCtx(t, time.Minute), Options{Version: "9.9.9", CacheDir: cache}); err != nil {
		t.Fatalf("Ensure after interruption: %v", err)
	}
}

// TestInstallReplacesOnlyOwnBrokenCache: a broken cache made by us is
// reinstalled; a foreign non-empty directory is never deleted.
func TestInstallReplacesOnlyOwnBrokenCache(t *testing.T) {
	calls := withFakeNpm(t, "ok")
	ctx := testCtx(t, time.Minute)
	own := filepath.Join(t.TempDir(), "azurite-9.9.9")
	os.MkdirAll(own, 0o755)
	os.WriteFile(filepath.Join(own, ownerMark), []byte("9.9.9\n"), 0o644) // no node_modules: broken
	if _, err := Ensure(ctx, Options{Version: "9.9.9", CacheDir: own}); err != nil {
		t.Fatalf("own broken cache: %v", err)
	}
	foreign := filepath.Join(t.TempDir(), "precious")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644)
	if _, err := Ensure(ctx, Options{Version: "9.9.9", CacheDir: foreign}); err == nil || !strings.Contains(err.Error(), "remove it or choose another") {
		t.Fatalf("foreign dir: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "thesis.tex")); err != nil {
		t.Fatalf("foreign dir damaged: %v", err)
	}
	if n := calls(); n != 1 {
		t.Errorf("npm ran %d times, want 1", n)
	}
}
