package aptinstall

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestEnsureDoesNothingWhenInstalled: a package that is there is not
// installed again and nothing is said.
func TestEnsureDoesNothingWhenInstalled(t *testing.T) {
	said := 0
	p := Package{Name: "x", What: "x", Installed: func() bool { return true }, Hint: "install x",
		Progress: func(string, ...any) { said++ }, Timeout: time.Second}
	if err := Ensure(context.Background(), p); err != nil || said != 0 {
		t.Fatalf("err %v, %d progress lines", err, said)
	}
}

// TestEnsureSaysHowToInstall: when it cannot install (not root, or no
// apt-get, or not Linux), the error names what is missing and ends with
// the hint. As root with apt-get it would install, so that case is left to
// the Samba and Chromium tests that need the real packages.
func TestEnsureSaysHowToInstall(t *testing.T) {
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		t.Setenv("PATH", t.TempDir()) // no apt-get
	}
	p := Package{Name: "stormcheck-no-such-package", What: "the frobnicator", Installed: func() bool { return false },
		Hint: "install it by hand", Timeout: time.Second}
	err := Ensure(context.Background(), p)
	if err == nil || !strings.HasPrefix(err.Error(), "the frobnicator not found") || !strings.HasSuffix(err.Error(), "; install it by hand") {
		t.Fatalf("err %v", err)
	}
}

func TestLastLines(t *testing.T) {
	if got := LastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("%q", got)
	}
}
