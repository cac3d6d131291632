package runner

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	got, ok := parseProcStat([]byte("cpu  100 5 50 9000 20 3 2 40 7 0\ncpu0 50 2 25 4500 10 1 1 20 3 0\n"))
	// user 100 + nice 5 + system 50 + irq 3 + softirq 2 + steal 40 ticks
	if want := 200 * clockTick; !ok || got != want {
		t.Errorf("busy %v (ok %v), want %v", got, ok, want)
	}
	for _, bad := range []string{"", "intr 1 2 3\n", "cpu 1 2 x 4 5 6 7 8\n"} {
		if _, ok := parseProcStat([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParsePidStat(t *testing.T) {
	// The command name holds a space and a parenthesis.
	line := "4242 (node (azur) ite) S 1 4200 4200 0 -1 4194560 100 0 0 0 170 30 0 0 20 0 11 0 123 456 789\n"
	pgrp, cpu, ok := parsePidStat([]byte(line))
	if !ok || pgrp != 4200 || cpu != 200*clockTick {
		t.Errorf("pgrp %d cpu %v ok %v; want 4200, %v", pgrp, cpu, ok, 200*clockTick)
	}
	if _, _, ok := parsePidStat([]byte("4242 (x) S 1 2\n")); ok {
		t.Error("a short line parsed")
	}
}

// TestHelperBurnCPU is not a test: run as a child with STORMCHECK_BURN
// set, it burns CPU until it has used that much, says "burnt" and waits
// for its stdin to close (or a minute, whichever comes first).
func TestHelperBurnCPU(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("STORMCHECK_BURN"))
	if err != nil {
		t.Skip("a helper process, not a test")
	}
	for x := 0; ; x++ {
		if c, _ := processCPU(); c >= d {
			break
		}
		for i := 0; i < 1e6; i++ {
			x ^= i
		}
		runtime.KeepAlive(x)
	}
	os.Stdout.WriteString("burnt\n")
	done := make(chan struct{})
	go func() { bufio.NewReader(os.Stdin).ReadString('\n'); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
	}
	os.Exit(0)
}

// TestOtherShareLeavesTheTargetOut: a process that burns 300 ms of CPU is
// other work unless its process group is the target's; the difference
// between the two readings of the same samples is its CPU time (counted by
// the kernel, whatever the machine's speed or load).
func TestOtherShareLeavesTheTargetOut(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBurnCPU$")
	cmd.Env = append(os.Environ(), "STORMCHECK_BURN=300ms")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	groups := []int{cmd.Process.Pid}
	wall0 := time.Now()
	a := sampleCPU(groups)
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "burnt\n" {
		t.Fatalf("the burner said %q (%v)", line, err)
	}
	b := sampleCPU(groups)
	wall := time.Since(wall0)
	if len(b.target) != 1 {
		t.Fatalf("target processes %v, want the burner", b.target)
	}
	with, ok1 := otherShare(a, b, wall)
	b.target, a.target = nil, nil
	without, ok2 := otherShare(a, b, wall)
	if !ok1 || !ok2 {
		t.Fatal("not measured")
	}
	burnt := time.Duration((without - with) * float64(wall) * float64(runtime.NumCPU()))
	if burnt < 250*time.Millisecond || burnt > 2*time.Second {
		t.Errorf("the burner's share came to %v of CPU, want about 300ms", burnt)
	}
}
