//go:build !unix

package samba

import "syscall"

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// signalGroup: Start refuses to run outside Linux; this only compiles.
func signalGroup(pid int, sig syscall.Signal) error { return nil }
