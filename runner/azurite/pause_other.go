//go:build !unix

package azurite

import "syscall"

// Outside Unix there is no SIGSTOP: Pause fails (signalGroup cannot send
// it).
const (
	sigStop = syscall.Signal(19)
	sigCont = syscall.Signal(18)
)
