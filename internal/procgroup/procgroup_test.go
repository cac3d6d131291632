//go:build unix

package procgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid still runs (a zombie counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestTerminateTakesTheGroup: a child that ignores SIGTERM and forked a
// grandchild is killed after the grace period, grandchild included.
func TestTerminateTakesTheGroup(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	p, err := Start("/bin/sh", []string{"-c", "trap '' TERM; sleep 600 & echo $!; wait"}, nil, t.TempDir(), out)
	if err != nil {
		t.Fatal(err)
	}
	var grandchild int
	for i := 0; i < 500 && grandchild == 0; i++ { // the shell writes it at once; bounded
		b, _ := os.ReadFile(out.Name())
		grandchild, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if grandchild == 0 {
		t.Fatal("the shell did not say its child's pid")
	}
	killed := false
	if err := p.Terminate(SigTerm, 100*time.Millisecond, func() { killed = true }); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() || !killed {
		t.Errorf("exited %v, SIGKILL needed %v: the shell ignores SIGTERM", p.Exited(), killed)
	}
	// SIGKILL went to the whole group; the grandchild dies once the kernel
	// schedules it, which on a busy machine is not at once: wait for it
	// (bounded, generously), then say whether it is still there.
	for i := 0; i < 3000 && alive(grandchild); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(grandchild) {
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Errorf("the grandchild %d outlived its group by 30 s", grandchild)
	}
	if err := p.Terminate(SigTerm, time.Second, nil); err != nil {
		t.Errorf("terminating an exited process: %v", err)
	}
}

// TestStartReportsAMissingBinary: no process, the exec error.
func TestStartReportsAMissingBinary(t *testing.T) {
	if _, err := Start(filepath.Join(t.TempDir(), "none"), nil, nil, "", os.Stdout); err == nil {
		t.Fatal("a missing binary started")
	}
}
