package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

// TestHelperSpinCPU is not a test: run as a child with STORMCHECK_SPIN set,
// it keeps every core busy until its stdin closes, or for two minutes at
// most, so it stops by itself.
func TestHelperSpinCPU(t *testing.T) {
	if os.Getenv("STORMCHECK_SPIN") == "" {
		t.Skip("a helper process, not a test")
	}
	stop := make(chan struct{})
	for i := 0; i < runtime.NumCPU(); i++ {
		go func() {
			for x := 0; ; x++ {
				select {
				case <-stop:
					return
				default:
				}
				for j := 0; j < 1e5; j++ {
					x ^= j
				}
				runtime.KeepAlive(x)
			}
		}()
	}
	go func() { bufio.NewReader(os.Stdin).ReadString('\n'); close(stop) }()
	os.Stdout.WriteString("spinning\n")
	select {
	case <-stop:
	case <-time.After(2 * time.Minute):
	}
	os.Exit(0)
}

// TestCompareOfARunBesideABusyProcess runs one scenario twice against the
// managed Azurite, the second beside a process that keeps every core busy,
// and compares them both ways: never a regression or an improvement
// (exit 6), whatever the machine. The run beside the burner records the
// machine's other work, and compare says the runs are not comparable when
// it was high.
func TestCompareOfARunBesideABusyProcess(t *testing.T) {
	tmp := t.TempDir()
	sc := filepath.Join(tmp, "bench.yaml")
	if err := os.WriteFile(sc, []byte("name: bench\nduration: 3s\nworkloads:\n  - {name: counter, kind: blob.lww, actors: 4, keys: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce := func(name string) string {
		dir := filepath.Join(tmp, name)
		var out, errOut bytes.Buffer
		if code := run([]string{"run", "--out", dir, "--progress", "none", sc}, &out, &errOut); code != exitOK {
			t.Fatalf("run %s: exit %d\n%s\n%s", name, code, out.String(), errOut.String())
		}
		return dir
	}
	quiet := runOnce("quiet")

	spin := exec.Command(os.Args[0], "-test.run=^TestHelperSpinCPU$")
	spin.Env = append(os.Environ(), "STORMCHECK_SPIN=1")
	stdin, err := spin.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := spin.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "spinning\n" {
		spin.Process.Kill()
		t.Fatalf("the spinner said %q (%v)", line, err)
	}
	busy := runOnce("busy")
	stdin.Close()
	spin.Wait()

	s, err := reports.ReadSummary(filepath.Join(busy, runner.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && s.OtherCPU == nil {
		t.Error("the run beside the spinner recorded no other_cpu")
	}
	for _, pair := range [][2]string{{quiet, busy}, {busy, quiet}} {
		var out, errOut bytes.Buffer
		code := run([]string{"compare", pair[0], pair[1]}, &out, &errOut)
		if code == exitRegression {
			t.Errorf("compare %s %s: exit %d\n%s%s", filepath.Base(pair[0]), filepath.Base(pair[1]), code, out.String(), errOut.String())
		}
		if reports.MachineBusy(s) != "" && (code != exitUndecided || !strings.Contains(out.String(), "busy with other work")) {
			t.Errorf("the busy run (%s) compared: exit %d, want %d saying the machine was busy\n%s", reports.MachineBusy(s), code, exitUndecided, out.String())
		}
	}
	if s.OtherCPU != nil {
		t.Logf("other work beside the busy run: %s of the machine's CPU", reports.Pct(*s.OtherCPU))
	}
}
