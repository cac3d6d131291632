package samba

import "syscall"

// sysProcAttr puts smbd in its own process group (a terminal's Ctrl-C
// reaches stormcheck, which then stops smbd) and has the kernel SIGTERM it
// if stormcheck dies abruptly.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
