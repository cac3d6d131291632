package samba

import (
	"os"
	"os/exec"
	"runtime"
)

// process is a running smbd; done is closed once it has exited and been
// reaped, and err is its exit status then.
type process struct {
	pid  int
	done chan struct{}
	err  error
}

// startProcess starts bin in its own process group with stdout and stderr
// going to out, and reaps it in the background. The goroutine that forks
// stays locked to its thread for the child's life: Linux's Pdeathsig fires
// when the forking thread exits.
func startProcess(bin string, args []string, dir string, out *os.File) (*process, error) {
	p := &process{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
