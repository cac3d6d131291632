// Package procgroup starts a server stormcheck manages (Azurite, smbd) in a
// process group of its own, reaps it in the background, and stops it with
// everything it forked: SIGTERM to the group, a grace period, then SIGKILL.
package procgroup

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// KillWait bounds the wait for the kernel after SIGKILL.
const KillWait = 5 * time.Second

// Process is a running child. Done is closed once it has exited and been
// reaped; Err is its exit status then.
type Process struct {
	// PID is the child's process id, which is also its process group id.
	PID  int
	done chan struct{}
	err  error
}

// Start starts bin in its own process group, with stdout and stderr both
// going to out (one *os.File: no copying goroutines), and reaps it in the
// background. env nil means this process's environment.
//
// The child is started and waited for on one goroutine locked to its OS
// thread for the child's whole life: on Linux, Pdeathsig (the kernel's
// SIGTERM to the child when stormcheck dies abruptly) fires when the thread
// that forked the child exits, not the process, so the forking thread must
// outlive the child. The goroutine never unlocks, so the thread is retired
// only after the child is reaped. Once the leader has exited, whatever it
// left in its group is killed before the reap frees the group id.
func Start(bin string, args, env []string, dir string, out *os.File) (*Process, error) {
	p := &Process{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.PID = cmd.Process.Pid
		started <- nil
		if waitExitNoReap(p.PID) {
			// The leader is a zombie, so its pid still names the group.
			_ = signalGroup(p.PID, SigKill)
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Done is closed once the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the exit status, valid once Done is closed.
func (p *Process) Err() error { return p.err }

// Exited reports whether the process has been reaped.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the process's whole group.
func (p *Process) Signal(sig syscall.Signal) error { return signalGroup(p.PID, sig) }

// Terminate sends first (SigTerm for a clean stop, SigKill for a crash) to
// the group and waits up to grace for the process to exit; past it,
// onKill (if any) is told and the group gets SIGKILL, with KillWait more.
// A process that already exited is fine. Its waits are bounded: grace
// plus KillWait.
func (p *Process) Terminate(first syscall.Signal, grace time.Duration, onKill func()) error {
	if p.Exited() {
		return nil
	}
	_ = p.Signal(first)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if onKill != nil {
		onKill()
	}
	_ = p.Signal(SigKill)
	select {
	case <-p.done:
		return nil
	case <-time.After(KillWait):
		return fmt.Errorf("pid %d survived SIGKILL for %s", p.PID, KillWait)
	}
}
