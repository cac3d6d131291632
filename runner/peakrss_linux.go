//go:build linux

package runner

import (
	"bytes"
	"os"
	"strconv"
)

// peakRSS is this process's peak resident set in bytes: VmHWM from
// /proc/self/status. Not getrusage's maxrss: Linux starts an exec'd
// process's maxrss at its parent's resident set (the mm it replaced), so a
// stormcheck started by a large parent (a test binary, a CI runner) would
// report the parent's memory.
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	return parseVmHWM(b)
}

// parseVmHWM reads the "VmHWM:   1234 kB" line of a /proc status file.
func parseVmHWM(status []byte) (int64, bool) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}
