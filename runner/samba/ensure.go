package samba

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/internal/filelock"
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
	if b, ok := find(); ok {
		return withVersion(ctx, b)
	}
	apt, err := exec.LookPath("apt-get")
	switch {
	case runtime.GOOS != "linux":
		return Binaries{}, fmt.Errorf("samba: smbd not found; %s", InstallHint)
	case err != nil:
		return Binaries{}, fmt.Errorf("samba: smbd not found and apt-get is not available to install it; %s", InstallHint)
	case os.Geteuid() != 0:
		return Binaries{}, fmt.Errorf("samba: smbd not found, and stormcheck installs it only as root; %s", InstallHint)
	}
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	lock := filepath.Join(os.TempDir(), "stormcheck-samba-install.lock")
	unlock, err := filelock.Lock(ctx, lock, func() {
		o.progressf("waiting for another process installing samba (lock %s)", lock)
	})
	if err != nil {
		return Binaries{}, fmt.Errorf("samba: install lock %s: %w", lock, err)
	}
	defer unlock()
	if b, ok := find(); ok { // installed by whoever held the lock before us
		return withVersion(ctx, b)
	}
	start := time.Now()
	for _, args := range [][]string{
		{"-q", "update"},
		{"-q", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600", "install", "samba"},
	} {
		o.progressf("smbd is missing; running apt-get %s (takes a minute, once)", strings.Join(args, " "))
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return Binaries{}, fmt.Errorf("samba: apt-get %s: %v; its output ends with:\n%s\n%s",
				strings.Join(args, " "), err, lastLines(out.String(), 15), InstallHint)
		}
	}
	b, ok := find()
	if !ok {
		return Binaries{}, fmt.Errorf("samba: apt-get installed samba but smbd or smbpasswd is still missing; %s", InstallHint)
	}
	o.progressf("installed samba in %s", time.Since(start).Round(time.Second))
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

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
