package azurite

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/stormcheck/stormcheck/internal/procgroup"
)

// Pause freezes Azurite (SIGSTOP to its process group) until Resume: its
// sockets stay open, nothing is answered. Stop resumes it first.
func (i *Instance) Pause() error {
	i.life.Lock()
	defer i.life.Unlock()
	if i.proc.Exited() {
		return errors.New("azurite: pause: the process has exited")
	}
	if err := i.proc.Signal(procgroup.SigStop); err != nil {
		return fmt.Errorf("azurite: pause (SIGSTOP pid %d): %w", i.proc.PID, err)
	}
	i.paused = true
	i.sink.note("paused (SIGSTOP) on purpose")
	return nil
}

// Resume lets a paused Azurite go on (SIGCONT).
func (i *Instance) Resume() error {
	i.life.Lock()
	defer i.life.Unlock()
	if !i.paused {
		return nil
	}
	i.paused = false
	if err := i.proc.Signal(procgroup.SigCont); err != nil {
		return fmt.Errorf("azurite: resume (SIGCONT pid %d): %w", i.proc.PID, err)
	}
	i.sink.note("resumed (SIGCONT)")
	return nil
}

// Halt stops Azurite and keeps its disk workspace, so that Restart brings
// it back with its data: a clean stop (SIGTERM, then up to StopTimeout for
// it to exit; SIGKILL after that) or a crash (SIGKILL at once: what its
// LokiJS databases had not saved yet, every 5 s, is lost).
func (i *Instance) Halt(crash bool) error {
	i.life.Lock()
	defer i.life.Unlock()
	p := i.proc
	if p.Exited() {
		return nil
	}
	if i.paused {
		_ = p.Signal(procgroup.SigCont)
		i.paused = false
	}
	how, first := "stopped (SIGTERM)", procgroup.SigTerm
	if crash {
		how, first = "crashed (SIGKILL)", procgroup.SigKill
	}
	i.sink.note("%s on purpose; the workspace is kept for a restart", how)
	if err := p.Terminate(first, i.stopTimeout, nil); err != nil {
		return fmt.Errorf("azurite: %w", err)
	}
	// The output pipe drains once the process group is gone.
	select {
	case <-i.sink.eof:
	case <-time.After(2 * time.Second):
		i.sink.r.Close() // a leftover writer holds the pipe open; stop reading
		<-i.sink.eof
	}
	return nil
}

// Restart starts Azurite again after Halt, on the same workspace, ports
// and log, and returns once every service answers (or after StartTimeout).
func (i *Instance) Restart(ctx context.Context) error {
	i.life.Lock()
	defer i.life.Unlock()
	if !i.proc.Exited() {
		return errors.New("azurite: restart: the process is still running (Halt it first)")
	}
	args := azuriteArgs(i.opts, i.dataDir)
	for flag, u := range map[string]string{"--blobPort": i.BlobURL, "--queuePort": i.QueueURL, "--tablePort": i.TableURL} {
		pu, err := url.Parse(u)
		if err != nil || pu.Port() == "" {
			return fmt.Errorf("azurite: restart: no port in %s", u)
		}
		for k := 0; k+1 < len(args); k++ {
			if args[k] == flag {
				args[k+1] = pu.Port()
			}
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("azurite: restart: %w", err)
	}
	i.sink.r = r
	i.sink.eof = make(chan struct{})
	go i.sink.run()
	i.sink.note("restarting on the same workspace and ports")
	p, err := procgroup.Start(i.bin, args, childEnv(), i.dataDir, w)
	w.Close()
	if err != nil {
		return fmt.Errorf("azurite: restart %s: %w", i.bin, err)
	}
	i.proc, i.PID = p, p.PID
	if err := i.await(ctx, i.opts); err != nil {
		return fmt.Errorf("azurite: restart: %w\nlast lines of %s:\n%s", err, i.LogPath, i.sink.lastLines())
	}
	i.httpClient.CloseIdleConnections()
	return nil
}
