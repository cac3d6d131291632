package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on every Linux
// port Go supports).
const clockTick = 10 * time.Millisecond

// machineCPU is the CPU time every process on the machine has used since
// boot: the busy fields of /proc/stat's "cpu" line.
func machineCPU() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return parseProcStat(b)
}

// parseProcStat sums user, nice, system, irq, softirq and steal of the
// first line ("cpu  user nice system idle iowait irq softirq steal ...");
// guest time is already inside user.
func parseProcStat(b []byte) (time.Duration, bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0, false
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil {
			return 0, false
		}
		busy += n
	}
	return time.Duration(busy) * clockTick, true
}

// groupsCPU is the CPU time (user + system) of each live process in one of
// the process groups, by pid.
func groupsCPU(groups []int) map[int]time.Duration {
	out := map[int]time.Duration{}
	if len(groups) == 0 {
		return out
	}
	want := map[int]bool{}
	for _, g := range groups {
		want[g] = true
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range dirs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		if pgrp, cpu, ok := parsePidStat(b); ok && want[pgrp] {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			out[pid] = cpu
		}
	}
	return out
}

// parsePidStat reads a /proc/PID/stat line: the process group (field 5)
// and utime + stime (fields 14 and 15). The command name (field 2) is in
// parentheses and may hold spaces and parentheses itself, so fields are
// counted from the last ')'.
func parsePidStat(b []byte) (pgrp int, cpu time.Duration, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, 0, false
	}
	g, err1 := strconv.Atoi(string(f[2]))
	u, err2 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err3 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false
	}
	return g, time.Duration(u+s) * clockTick, true
}
