//go:build unix

package filelock

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestLockExcludesAndWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	ctx := context.Background()
	unlock, err := Lock(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{}, 1)
	got := make(chan error, 1)
	go func() {
		u, err := Lock(ctx, path, func() { waited <- struct{}{} })
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("a second Lock did not wait for the first")
	}
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("second Lock after unlock: %v", err)
	}
	// A cancelled wait returns the context's error.
	unlock, _ = Lock(ctx, path, nil)
	defer unlock()
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := Lock(cctx, path, nil); err == nil {
		t.Fatal("Lock succeeded while another holder had the lock")
	}
}
