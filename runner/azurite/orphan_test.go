package azurite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const helperEnv = "STORMCHECK_AZURITE_TEST_HELPER"

// TestMain lets the test binary double as a "stormcheck" that starts
// Azurite and then hangs until killed (see TestAzuriteDiesWithParent).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "start-and-hang" {
		ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
		inst, err := Start(ctx, Options{WorkDir: os.Getenv("HELPER_WORKDIR")})
		cancel()
		if err != nil {
			fmt.Println("error:", strings.ReplaceAll(err.Error(), "\n", " | "))
			os.Exit(1)
		}
		fmt.Println("pid:", inst.PID)
		time.Sleep(time.Hour) // killed by the test
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// alive reports whether pid exists and is not a zombie (in a container the
// reaper of orphans may be slow or absent).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) == 0 || f[0] != "Z"
}

// TestAzuriteDiesWithParent SIGKILLs a process that started Azurite (so no
// Stop runs) and expects Pdeathsig to take Azurite down with it.
func TestAzuriteDiesWithParent(t *testing.T) {
	sharedBin(t)
	ctx := testCtx(t, 2*time.Minute)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=start-and-hang", "HELPER_WORKDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "pid: ") {
		t.Fatalf("helper said %q, %v", line, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid: ")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) }) // if the test fails
	if !alive(pid) {
		t.Fatalf("azurite pid %d not running while its parent lives", pid)
	}
	t0 := time.Now()
	cmd.Process.Kill()
	for alive(pid) {
		if time.Since(t0) > time.Minute { // a deadline, not a speed: an orphan left alive never goes
			t.Fatalf("azurite pid %d still alive a minute after its parent was SIGKILLed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("orphaned azurite gone %s after its parent died", time.Since(t0).Round(time.Millisecond))
}
