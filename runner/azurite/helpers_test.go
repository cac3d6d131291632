package azurite

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// installTimeout bounds a test that may have to npm-install Azurite.
const installTimeout = 5 * time.Minute

// testCtx returns a context cancelled after d or at test end.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// syncBuffer is a goroutine-safe bytes.Buffer for Options.Progress.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// sharedBin returns the azurite binary from the shared cache (default
// CacheDir: $STORMCHECK_CACHE or os.UserCacheDir()/stormcheck), installing
// it on first use.
func sharedBin(t *testing.T) string {
	t.Helper()
	var progress syncBuffer
	bin, err := Ensure(testCtx(t, installTimeout), Options{Progress: &progress})
	if s := progress.String(); s != "" {
		t.Logf("ensure: %s", strings.TrimSpace(s))
	}
	if err != nil {
		t.Fatalf("Ensure (shared cache): %v", err)
	}
	return bin
}

// startT starts an instance with opts and stops it at test end.
func startT(t *testing.T, opts Options) *Instance {
	t.Helper()
	sharedBin(t) // install outside the measured start
	t0 := time.Now()
	inst, err := Start(testCtx(t, installTimeout), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("start-to-ready %s: %v", time.Since(t0).Round(time.Millisecond), inst)
	t.Cleanup(func() {
		if err := inst.Stop(); err != nil {
			t.Errorf("Stop (cleanup): %v", err)
		}
	})
	return inst
}

// hostPort extracts 127.0.0.1:PORT from a service URL.
func hostPort(t *testing.T, u string) string {
	t.Helper()
	rest := u[strings.Index(u, "://")+3:]
	hp := rest[:strings.IndexByte(rest, '/')]
	if _, _, err := net.SplitHostPort(hp); err != nil {
		t.Fatalf("bad URL %q: %v", u, err)
	}
	return hp
}

// pathWith returns a directory holding symlinks to exactly the named
// commands found on the current PATH, for use as a controlled PATH.
func pathWith(t *testing.T, cmds ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range cmds {
		p, err := exec.LookPath(c)
		if err != nil {
			t.Fatalf("%s not on PATH (CI must install Node.js and npm): %v", c, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, c)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
