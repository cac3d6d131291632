//go:build !unix

package procgroup

import (
	"errors"
	"os"
	"syscall"
)

// Outside Unix there are no process groups or SIGSTOP here: a kill goes to
// the process itself and every other signal fails.
const (
	SigTerm = syscall.SIGTERM
	SigKill = syscall.SIGKILL
	SigStop = syscall.Signal(19)
	SigCont = syscall.Signal(18)
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func waitExitNoReap(int) bool { return false }

func signalGroup(pid int, sig syscall.Signal) error {
	if sig != SigKill && sig != SigTerm {
		return errors.New("signal not supported on this platform")
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
