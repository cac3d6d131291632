package samba

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/internal/aptinstall"
)

// InstallHint says how to get smbd when stormcheck cannot install it.
const InstallHint = "install Debian's samba (as root: apt-get update && apt-get install -y --no-install-recommends samba) and run stormcheck as root"

// ErrNotRoot is returned when smbd would have to run (or be installed) by
// a user other than root.
var ErrNotRoot = errors.New("samba: smbd runs as root only (it switches to the logged-on user for file access); " + InstallHint)

// Binaries are the Samba programs Start runs.
type Binaries struct {
	Smbd, Smbpasswd string
	// Version is smbd's version ("4.17.12-Debian").
	Version string
}

// installTimeout bounds apt-get (update and install), waiting included.
const installTimeout = 15 * time.Minute

// Ensure finds smbd and smbpasswd on PATH or in /usr/sbin and /usr/bin.
// When they are missing and the process runs as root on Linux with
// apt-get, it installs Debian's samba under a file lock (so that parallel
// test packages install it once), saying so on o.Progress. Otherwise the
// error says what to install.
func Ensure(ctx context.Context, o Options) (Binaries, error) {
	err := aptinstall.Ensure(ctx, aptinstall.Package{
		Name: "samba", What: "smbd", Hint: InstallHint, Why: "takes a minute, once", Timeout: installTimeout,
		Installed: func() bool { _, ok := find(); return ok },
		Progress:  o.progressf,
	})
	if err != nil {
		return Binaries{}, fmt.Errorf("samba: %w", err)
	}
	b, _ := find()
	return withVersion(ctx, b)
}

// find looks for installed smbd and smbpasswd.
func find() (Binaries, bool) {
	look := func(name string, dirs ...string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return p
			}
		}
		return ""
	}
	b := Binaries{Smbd: look("smbd", "/usr/sbin", "/usr/local/samba/sbin"), Smbpasswd: look("smbpasswd", "/usr/bin", "/usr/local/samba/bin")}
	return b, b.Smbd != "" && b.Smbpasswd != ""
}

func withVersion(ctx context.Context, b Binaries) (Binaries, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.Smbd, "--version").Output()
	if err != nil {
		return b, fmt.Errorf("samba: %s --version: %v", b.Smbd, err)
	}
	b.Version = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Version "))
	return b, nil
}
