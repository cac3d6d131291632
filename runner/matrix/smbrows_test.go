package matrix

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
)

// TestSMBRows runs each SMB row of the matrix against a managed Samba under
// a net.* fault (its check holds, at or above its floor) and under the
// broken promise of its check (the check fails); the faults that act on
// HTTP or on Azurite are n/a there.
func TestSMBRows(t *testing.T) {
	if os.Geteuid() != 0 || runtime.GOOS != "linux" {
		t.Skip("no managed Samba here: it runs as root on Linux only")
	}
	broken := map[string]string{"files-share-modes": "broken.smb-share-access", "files-locks": "broken.smb-lock-shared",
		"files-leases": "broken.smb-lease-write", "files-delete-pending": "broken.smb-keep-file"}
	var cells []Cell
	for _, s := range SMBScenarios {
		for _, kind := range []string{"net.reset-after", broken[s.Name], "http.drop-response", "target.pause"} {
			c := runCell(context.Background(), s, kind, Options{Duration: 2e9, Dir: t.TempDir()}, nil)
			t.Log(c.Line())
			if !c.OK {
				t.Errorf("%s: %s (%s)", c.Scenario, c.Line(), c.Err)
			}
			if applies := scenarios.FaultFamily(kind) == "net" || scenarios.IsSMBFault(kind); c.Applies != applies {
				t.Errorf("%s under %s: applies %v", s.Name, kind, c.Applies)
			}
			if !c.Applies && !strings.Contains(c.Line(), "n/a") {
				t.Errorf("%s: %s", s.Name, c.Line())
			}
			cells = append(cells, c)
		}
	}
	if line, ok := Verdict(cells); !ok {
		t.Errorf("verdict: %s", line)
	}
}
