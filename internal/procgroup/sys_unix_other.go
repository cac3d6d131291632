//go:build unix && !linux

package procgroup

import "syscall"

// sysProcAttr puts the child in its own process group. There is no
// Pdeathsig outside Linux: an abrupt stormcheck death leaks the child.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// waitExitNoReap is not available: the group is not swept after exit.
func waitExitNoReap(int) bool { return false }
