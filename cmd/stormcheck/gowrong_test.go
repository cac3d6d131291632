package main

// The standing tests of "What stormcheck promises when things go wrong"
// (README): each does one bad thing on purpose to the built binary or to a
// real Azurite it runs against (killed, frozen, a full disk, Ctrl-C two and
// three times) and checks the promise: a bounded time (a generous bound,
// not a speed), the documented exit code, every recorded result still
// readable, nothing created left on the target once the cleanup ran (and
// when it could not, `stormcheck cleanup` as printed deletes exactly it),
// someone else's look-alike resources and an earlier run's untouched.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/targettest"
)

// wrongScenario touches all three services, with a connection-string
// target (an Azurite the test starts, so the test can kill or freeze it and
// look at what is left on it).
const wrongScenario = `name: wrong
duration: 2m
timeout: 2s
target: {kind: connection-string}
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 2}
  - {name: entities, kind: table.etag-counter, actors: 2}
  - {name: messages, kind: queue.work, actors: 2, params: {producers: 1, visibility: 1s}}
`

// wrongRun is one run of the built binary against a test-managed Azurite.
type wrongRun struct {
	t              *testing.T
	inst           *azurite.Instance
	target         *targettest.Clients
	dir            string
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	started        time.Time
}

// startWrongRun starts Azurite, plants look-alikes, and starts the binary
// (through sh when prefix is set, e.g. a ulimit) on wrongScenario.
func startWrongRun(t *testing.T, dir string, shPrefix string, extra ...string) *wrongRun {
	t.Helper()
	inst, c := startWrongTarget(t)
	return startWrongRunOn(t, inst, c, wrongScenario, dir, shPrefix, extra...)
}

// startWrongTarget starts an Azurite for wrong runs and plants look-alikes
// and an earlier run's resources on it.
func startWrongTarget(t *testing.T) (*azurite.Instance, *targettest.Clients) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	inst, err := azurite.Start(ctx, azurite.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop() })
	t.Cleanup(func() { _ = syscall.Kill(-inst.PID, syscall.SIGCONT) }) // never leave it stopped
	c, err := targettest.Open(inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PlantLookAlikes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.PlantEarlierRun(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	return inst, c
}

// startWrongRunOn starts the binary on scenario against inst.
func startWrongRunOn(t *testing.T, inst *azurite.Instance, c *targettest.Clients, scenario, dir, shPrefix string, extra ...string) *wrongRun {
	t.Helper()
	bin := buildBinary(t)
	file := filepath.Join(t.TempDir(), "wrong.yaml")
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "--out", dir, "--progress", "lines", file}, extra...)
	var cmd *exec.Cmd
	if shPrefix != "" {
		cmd = exec.Command("/bin/sh", append([]string{"-c", shPrefix + ` && exec "$0" "$@"`, bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+inst.ConnectionString())
	r := &wrongRun{t: t, inst: inst, target: c, dir: dir, cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	r.started = time.Now()
	return r
}

// await waits for s on stderr (generously: Azurite's first start may
// install it).
func (r *wrongRun) await(s string) {
	r.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(r.stderr.String(), s) {
		if time.Now().After(deadline) {
			r.t.Fatalf("no %q on stderr:\n%s", s, r.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// loadIsOn waits until every workload has printed a progress line.
func (r *wrongRun) loadIsOn() {
	for _, w := range []string{"counter:", "entities:", "messages:"} {
		r.await(w)
	}
}

func (r *wrongRun) signal(sig syscall.Signal) {
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatal(err)
	}
}

func (r *wrongRun) azurite(sig syscall.Signal) {
	if err := syscall.Kill(-r.inst.PID, sig); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for the exit (within bound) and checks its code (want < 0:
// any).
func (r *wrongRun) wait(bound time.Duration, want int) {
	r.t.Helper()
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(bound):
		_ = r.cmd.Process.Kill()
		r.t.Fatalf("still running after %v\nstderr:\n%s", bound, r.stderr.String())
	}
	if code := r.cmd.ProcessState.ExitCode(); want >= 0 && code != want {
		r.t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, r.stdout.String(), r.stderr.String())
	}
}

// historyReadable reads every record of the history: a torn end is only
// allowed when the run says the history was cut (truncOK).
func (r *wrongRun) historyReadable(truncOK bool) int {
	r.t.Helper()
	n := 0
	err := checks.ReadHistoryFile(runner.HistoryPath(r.dir), func(*checks.Op) error { n++; return nil })
	if err != nil && !(truncOK && checks.IsTruncated(err)) {
		r.t.Fatalf("history not readable: %v", err)
	}
	if n == 0 {
		r.t.Errorf("the history holds no record")
	}
	return n
}

// onTarget is everything left on the target, look-alikes included.
func (r *wrongRun) onTarget() []string {
	r.t.Helper()
	all, err := r.target.List(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return all
}

// nothingLeft checks the target holds exactly what was there before the
// run: the look-alikes and an earlier run's resources.
func (r *wrongRun) nothingLeft(after string) {
	r.t.Helper()
	want := append(targettest.SortedLookAlikes(), targettest.EarlierRun...)
	slices.Sort(want)
	if got := r.onTarget(); !slices.Equal(got, want) {
		r.t.Errorf("after %s the target holds\n%v\nwant only the look-alikes and the earlier run\n%v", after, got, want)
	}
}

func (r *wrongRun) summary() *reports.Summary {
	r.t.Helper()
	s, err := reports.ReadSummary(filepath.Join(r.dir, runner.SummaryFile))
	if err != nil {
		r.t.Fatalf("summary: %v", err)
	}
	return s
}

// TestSecondCtrlCStillCleansUp: Ctrl-C twice in a row skips the final
// reads, but the cleanup still runs (its own bound, not the interrupt's):
// exit 130, results written, nothing of the run left on the target.
func TestSecondCtrlCStillCleansUp(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	r := startWrongRun(t, filepath.Join(t.TempDir(), "out"), "")
	r.loadIsOn()
	r.signal(syscall.SIGINT)
	r.await("interrupted: stopping the load")
	r.signal(syscall.SIGINT)
	r.wait(2*time.Minute, exitInterrupted)
	for _, want := range []string{"skipping the final reads", "cleanup: deleting the run's resources"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
		}
	}
	if s := r.summary(); !s.Interrupted || s.ExitCode != exitInterrupted || s.CleanupError != "" {
		t.Errorf("summary: interrupted %v, exit %d, cleanup error %q", s.Interrupted, s.ExitCode, s.CleanupError)
	}
	r.historyReadable(false)
	r.nothingLeft("two Ctrl-Cs")
}

// TestFirstCtrlCAfterTheLoadSaysSo: a first Ctrl-C once the load is over
// (the target frozen, so the final reads wait and say so) says that, not
// "stopping the load"; the second and third then skip the final reads and
// stop the cleanup as documented: exit 130, the results written.
func TestFirstCtrlCAfterTheLoadSaysSo(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	r := startWrongRun(t, filepath.Join(t.TempDir(), "out"), "", "--duration", "20s", "--unreachable-after", "10m")
	r.await("counter:")
	r.azurite(syscall.SIGSTOP) // the load ends by its duration; the final reads then wait
	r.await("final reads: still waiting for the target after 5s")
	r.signal(syscall.SIGINT)
	r.await("stormcheck: interrupted: the load is already over; the final reads go on, then the cleanup and the checks (Ctrl-C again to skip the final reads)")
	r.signal(syscall.SIGINT)
	r.await("cleanup: deleting the run's resources")
	r.signal(syscall.SIGINT)
	r.wait(2*time.Minute, exitInterrupted)
	if strings.Contains(r.stderr.String(), "stopping the load") {
		t.Errorf("a Ctrl-C after the load said it stops the load:\n%s", r.stderr.String())
	}
	if s := r.summary(); !s.Interrupted || s.ExitCode != exitInterrupted {
		t.Errorf("summary: interrupted %v, exit %d", s.Interrupted, s.ExitCode)
	}
	r.historyReadable(false)
}

// cleanupLine is the command a run prints for what it left.
var cleanupLine = regexp.MustCompile(`(?m)^  (stormcheck cleanup --run ([0-9a-f]{8}) .*)$`)

// TestThirdCtrlCOnFrozenTarget freezes the target (SIGSTOP) mid-load and
// presses Ctrl-C three times: the load stops, the final reads wait (and say
// so) until the second, the cleanup waits until the third. The run exits
// 130 with its results written and prints the cleanup command; once the
// target is thawed, that command deletes exactly what the run left, and
// leaves the run's results folder as it was.
func TestThirdCtrlCOnFrozenTarget(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	r := startWrongRun(t, filepath.Join(t.TempDir(), "out"), "", "--unreachable-after", "10m")
	r.loadIsOn()
	r.azurite(syscall.SIGSTOP)
	r.signal(syscall.SIGINT)
	r.await("final reads: still waiting for the target after 5s (gives up after 2m0s)")
	r.signal(syscall.SIGINT)
	r.await("cleanup: deleting the run's resources")
	r.signal(syscall.SIGINT)
	r.wait(2*time.Minute, exitInterrupted)
	m := cleanupLine.FindStringSubmatch(r.stderr.String())
	if m == nil {
		t.Fatalf("no cleanup command printed:\n%s", r.stderr.String())
	}
	s := r.summary()
	if s.RunID != m[2] || !strings.Contains(s.CleanupError, "third interrupt") {
		t.Errorf("summary: run %q, cleanup error %q", s.RunID, s.CleanupError)
	}
	r.historyReadable(false)
	r.azurite(syscall.SIGCONT)
	if left := r.onTarget(); !slices.Contains(left, "container sc"+m[2]) {
		t.Fatalf("nothing of run %s on the target? %v", m[2], left)
	}
	before := hashTree(t, r.dir)
	clean := exec.Command("/bin/sh", "-c", strings.Replace(m[1], "stormcheck", buildBinary(t), 1))
	clean.Env = r.cmd.Env // the same AZURE_STORAGE_CONNECTION_STRING as the run
	out, err := clean.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", m[1], err, out)
	}
	r.nothingLeft(m[1])
	if after := hashTree(t, r.dir); !slices.Equal(before, after) {
		t.Errorf("stormcheck cleanup changed the results folder:\n%v\n%v", before, after)
	}
}

// TestKilledTargetExits3: the target is killed mid-load (SIGKILL). The run
// stops once nothing answered for --unreachable-after, prints an ERROR line
// naming the endpoint, writes everything and exits 3.
func TestKilledTargetExits3(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	r := startWrongRun(t, filepath.Join(t.TempDir(), "out"), "", "--unreachable-after", "3s")
	r.loadIsOn()
	r.azurite(syscall.SIGKILL)
	r.wait(2*time.Minute, exitHarness)
	host := strings.Split(strings.TrimPrefix(r.inst.BlobURL, "http://"), "/")[0]
	if !regexp.MustCompile(`ERROR: target 127\.0\.0\.1:\d+ unreachable: no answer at all since \d\d:\d\d:\d\d`).MatchString(r.stderr.String()) {
		t.Errorf("no ERROR line naming the endpoint (%s and the others) and since when:\n%s", host, r.stderr.String())
	}
	if s := r.summary(); s.ExitCode != exitHarness || !strings.Contains(s.Error, "unreachable") {
		t.Errorf("summary: exit %d, error %q", s.ExitCode, s.Error)
	}
	r.historyReadable(false)
	t.Logf("stderr:\n%s", r.stderr.String())
}

// TestFullDiskStopsTheLoad runs with a results folder that fills up: on a
// 256 KiB tmpfs where the test may mount one (root), else under a file size
// limit (ulimit -f; Go ignores SIGXFSZ, so the write fails with EFBIG).
// The load stops at the first failed write, the history reads back up to
// its last whole record, what could not be written is said, nothing is
// left on the target, exit 3.
func TestFullDiskStopsTheLoad(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	base := t.TempDir()
	prefix := ""
	if err := syscall.Mount("tmpfs", base, "tmpfs", 0, "size=256k"); err == nil {
		t.Cleanup(func() { _ = syscall.Unmount(base, syscall.MNT_DETACH) })
		t.Log("results on a 256 KiB tmpfs")
	} else {
		prefix = "ulimit -f 64" // 32 KiB (dash: 512-byte blocks) or 64 KiB (bash)
		t.Logf("cannot mount a tmpfs (%v): results under %s", err, prefix)
	}
	r := startWrongRun(t, filepath.Join(base, "out"), prefix, "--unreachable-after", "10m")
	r.wait(2*time.Minute, exitHarness)
	out := r.stdout.String() + r.stderr.String()
	t.Logf("output:\n%s", out)
	if !strings.Contains(out, "stopped the load at the first failed write") {
		t.Errorf("the run does not say it stopped at the failed write:\n%s", out)
	}
	if !strings.Contains(out, "NOT WRITTEN: "+runner.HistoryFile) {
		t.Errorf("the report does not name the history as not written:\n%s", out)
	}
	if strings.Contains(out, "checks: none") {
		t.Errorf("the report hides how checking went behind \"checks: none\":\n%s", out)
	}
	r.historyReadable(true)
	if s, err := reports.ReadSummary(filepath.Join(r.dir, runner.SummaryFile)); err == nil {
		if _, err := os.Stat(filepath.Join(r.dir, reports.HTMLFile)); err != nil && s.Files["report"] != "" {
			t.Errorf("the summary names %s, which was not written", reports.HTMLFile)
		}
		if len(s.NotWritten) == 0 {
			t.Errorf("summary.json does not say what was not written")
		}
	} else if !strings.Contains(out, "NOT WRITTEN: "+runner.SummaryFile) {
		t.Errorf("summary.json missing (%v) and not said:\n%s", err, out)
	}
	r.nothingLeft("a full disk")
}

// hashTree maps every file under dir to its SHA-256.
func hashTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out = append(out, fmt.Sprintf("%s %s", p, hex.EncodeToString(sum[:8])))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
