package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

const mergeSignalScenario = `name: merge-signals
duration: 2s
workloads:
  - {name: w, kind: blob.lww, actors: 2, keys: 1, shard_keys: shared}
`

// historyLines is a shard's history of n reads of one blob (plain JSON
// lines, as an older run wrote them), the setup's write first.
func historyLines(shard, n int) []byte {
	ms := int64(time.Millisecond)
	ops := []checks.Op{{Actor: checks.ActorSetup, Workload: "w", Kind: "blob.put", Key: "k0", Attempt: 1, Call: ms, Return: 2 * ms,
		In: checks.Input{Value: "init"}, Out: checks.Output{Status: 201, ETag: "E0"}}}
	for i := range n {
		call := 10*ms + int64(i)*ms
		ops = append(ops, checks.Op{Actor: shard, Workload: "w", Kind: "blob.get", Key: "k0", Attempt: 1, Intended: call, Call: call,
			Return: call + ms/2, Out: checks.Output{Status: 200, Value: "init", ETag: "E0"}})
	}
	var b []byte
	for i := range ops {
		ops[i].Seq = uint64(i + 1)
		b = ops[i].AppendJSONLine(b)
	}
	return b
}

// writeShard writes shard index of 2 of one run into dir: its scenario,
// summary and (unless fifo) its history; with fifo, the history is a named
// pipe the caller serves.
func writeShard(t *testing.T, dir string, index int, history []byte, fifo bool) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runner.ScenarioFile), []byte(mergeSignalScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &reports.Summary{Scenario: "merge-signals", File: "merge-signals.yaml", Started: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		Elapsed: 2 * time.Second, RunID: "abcd0042", Files: map[string]string{},
		Shard: &reports.ShardInfo{Index: index, Count: 2, RunID: "abcd0042"}}
	if err := reports.WriteSummaryJSON(filepath.Join(dir, runner.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, runner.LegacyHistoryFile)
	if fifo {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if err := os.WriteFile(path, history, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveHistory gives each reader that opens the named pipe path, in turn,
// the first part of a history, then holds the pipe open without more until
// that reader is gone: a shard history that stops coming mid-way (a slow
// or hung disk), so a merge reading it is caught in the middle, whenever
// the signal comes. (A reader that reads only the first record and leaves
// is served and let go.)
func serveHistory(t *testing.T, path string, part []byte) {
	var stop atomic.Bool
	served := make(chan struct{})
	go func() {
		defer close(served)
		for !stop.Load() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0) // waits for a reader
			if err != nil {
				return
			}
			_, _ = f.Write(part) // (a reader gone already: EPIPE)
			readerGone(f, &stop) // holds the pipe: the reader waits for more
			f.Close()
		}
	}()
	t.Cleanup(func() {
		stop.Store(true)
		// A reader's open lets a waiting writer's open return; the writer
		// may reach its open just after ours (it read stop before we set
		// it), and would then wait for a reader forever: open again until
		// it is gone.
		for {
			if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				r.Close()
			}
			select {
			case <-served:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
}

// readerGone waits until the read end of the pipe f writes to is closed
// (EPOLLERR on the write end), or stop.
func readerGone(f *os.File, stop *atomic.Bool) {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	defer syscall.Close(ep)
	fd := int(f.Fd())
	if syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLERR, Fd: int32(fd)}) != nil {
		return
	}
	ev := make([]syscall.EpollEvent, 1)
	for !stop.Load() {
		if n, err := syscall.EpollWait(ep, ev, 100); n > 0 || (err != nil && err != syscall.EINTR) {
			return
		}
	}
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestMergeSignals sends the built binary SIGTERM, SIGHUP or SIGINT while
// it merges local shard folders (caught mid-way: one shard's history
// stops coming). Each exits 130 and leaves OUT absent, or as it was when
// it was an empty folder, and no temporary folder beside it; a merge let
// finish writes OUT whole, named as OUT, and nothing beside it.
func TestMergeSignals(t *testing.T) {
	bin := buildBinary(t)
	cases := []struct {
		sig      syscall.Signal
		emptyOut bool // OUT exists, empty, before the merge
	}{{syscall.SIGTERM, false}, {syscall.SIGHUP, false}, {syscall.SIGINT, false}, {syscall.SIGINT, true}}
	for _, c := range cases {
		name := c.sig.String()
		if c.emptyOut {
			name += ", OUT empty before"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each waits on its own pipe
			tmp := t.TempDir()
			shard0, shard1 := filepath.Join(tmp, "shard-0"), filepath.Join(tmp, "shard-1")
			writeShard(t, shard0, 0, historyLines(0, 2000), false)
			h1 := historyLines(1, 2000)
			serveHistory(t, writeShard(t, shard1, 1, nil, true), h1[:32<<10]) // (within a pipe's buffer)
			parent := filepath.Join(tmp, "merged")
			if err := os.Mkdir(parent, 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(parent, "out")
			if c.emptyOut {
				if err := os.Mkdir(out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := entries(t, parent)
			cmd := exec.Command(bin, "merge", out, shard0, shard1)
			stdout, stderr := &syncBuffer{}, &syncBuffer{}
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			waitForStderr(t, cmd, stderr, "stormcheck merge: merging the histories of 2 shards")
			if m, _ := filepath.Glob(filepath.Join(parent, ".out.partial-*")); len(m) != 1 {
				t.Fatalf("mid-merge, beside OUT: %v (want the one temporary folder)\n%s", entries(t, parent), stderr.String())
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			_ = cmd.Wait()
			took := time.Since(sent)
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", code, cmd.ProcessState, exitInterrupted, stderr.String())
			}
			if took > mergeStopGrace+5*time.Second {
				t.Errorf("exited %v after the signal; a merge caught mid-step stops within %v (5 s of slack)", took, mergeStopGrace)
			}
			if !strings.Contains(stderr.String(), "stormcheck merge: interrupted: stopping; "+out+" is not written") {
				t.Errorf("the signal was not said:\n%s", stderr.String())
			}
			if got := entries(t, parent); !slices.Equal(got, before) {
				t.Errorf("beside OUT after the signal: %v, want %v as before the merge", got, before)
			}
			if c.emptyOut {
				if got := entries(t, out); len(got) > 0 {
					t.Errorf("the empty OUT now holds %v", got)
				}
			}
		})
	}

	t.Run("let finish", func(t *testing.T) {
		t.Parallel()
		tmp := t.TempDir()
		shard0, shard1 := filepath.Join(tmp, "shard-0"), filepath.Join(tmp, "shard-1")
		writeShard(t, shard0, 0, historyLines(0, 200), false)
		writeShard(t, shard1, 1, historyLines(1, 200), false)
		out := filepath.Join(tmp, "merged", "out")
		cmd := exec.Command(bin, "merge", out, shard0, shard1)
		b, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code == exitInterrupted || code == exitHarness || code == exitUsage {
			t.Fatalf("exit %d (%v):\n%s", code, err, b)
		}
		if got := entries(t, filepath.Join(tmp, "merged")); !slices.Equal(got, []string{"out"}) {
			t.Errorf("beside OUT: %v, want only OUT", got)
		}
		s, err := reports.ReadSummary(filepath.Join(out, runner.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		if s.File != filepath.Join(out, runner.ScenarioFile) {
			t.Errorf("the summary names its scenario %s, want %s", s.File, filepath.Join(out, runner.ScenarioFile))
		}
		n := 0
		if err := checks.ReadHistoryFile(runner.HistoryPath(out), func(*checks.Op) error { n++; return nil }); err != nil || n != 2*201 {
			t.Errorf("merged history: %d records (%v), want %d", n, err, 2*201)
		}
	})
}
