//go:build unix

package azurite

import "syscall"

const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)
