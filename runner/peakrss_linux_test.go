//go:build linux

package runner

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestParseVmHWM(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"Name:\tx\nVmPeak:\t  9 kB\nVmHWM:\t   1234 kB\nVmRSS:\t 10 kB\n", 1234 << 10, true},
		{"VmHWM: 0 kB\n", 0, true},
		{"VmRSS:\t 10 kB\n", 0, false},
		{"VmHWM:\t 12 MB\n", 0, false},
		{"VmHWM:\t x kB\n", 0, false},
	} {
		got, ok := parseVmHWM([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseVmHWM(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestPeakRSSIsThisProcesss: the figure is this process's own high-water
// mark (what `ps` calls its resident set, or more), read from the kernel.
func TestPeakRSSIsThisProcesss(t *testing.T) {
	hwm, ok := peakRSS()
	if !ok || hwm <= 0 {
		t.Fatalf("peakRSS() = %d, %v on Linux", hwm, ok)
	}
	out, err := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(os.Getpid())).Output()
	if err != nil {
		t.Skipf("ps: %v", err)
	}
	rss, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("ps output %q: %v", out, err)
	}
	// The high-water mark was read before ps looked; the resident set
	// can only have grown by what this test allocated since.
	if hwm < (rss<<10)/2 {
		t.Errorf("peak %d bytes is far below the resident set ps sees, %d KiB", hwm, rss)
	}
}
