//go:build !linux

package samba

import "syscall"

// sysProcAttr: Start refuses to run outside Linux; this only compiles.
func sysProcAttr() *syscall.SysProcAttr { return nil }
