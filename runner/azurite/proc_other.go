//go:build !unix

package azurite

import (
	"os"
	"syscall"
)

// Outside Unix there are no process groups here: signals go to the
// process itself, Stop can only kill it, and there is no Pdeathsig.
const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func waitExitNoReap(pid int) bool { return false }

func signalGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
