package azurite

import (
	"os"
	"os/exec"
	"runtime"
)

// process is a running Azurite. done is closed once it has exited and been
// reaped; err (its exit status) is valid after that.
type process struct {
	pid  int
	done chan struct{}
	err  error
}

// startProcess starts bin in its own process group with stdout and stderr
// both going to out, and reaps it in the background.
//
// The process is started and waited for on one goroutine locked to its OS
// thread for the child's whole life: on Linux, Pdeathsig fires when the
// thread that forked the child exits, not the process, so the forking thread
// must outlive the child. The goroutine never unlocks, so the thread is
// retired only after the child is reaped.
func startProcess(bin string, args, env []string, dir string, out *os.File) (*process, error) {
	p := &process{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = out, out // one *os.File: no copying goroutines
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		if waitExitNoReap(p.pid) {
			// The leader is a zombie, so its pid still names the group:
			// kill whatever it left behind before reaping frees the pgid.
			signalGroup(p.pid, sigKill)
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// exited reports whether the process has been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
