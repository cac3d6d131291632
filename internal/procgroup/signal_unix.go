//go:build unix

package procgroup

import "syscall"

// The signals stormcheck sends its children.
const (
	SigTerm = syscall.SIGTERM
	SigKill = syscall.SIGKILL
	SigStop = syscall.SIGSTOP
	SigCont = syscall.SIGCONT
)

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}
