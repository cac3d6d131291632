package samba

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/internal/aptinstall"
	"github.com/stormcheck/stormcheck/internal/procgroup"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

// Instance is a running private smbd.
type Instance struct {
	// Addr is "127.0.0.1:port".
	Addr string
	// Port is the SMB port on 127.0.0.1.
	Port int
	// Share is the share's name; SharePath its directory.
	Share, SharePath string
	// User and Password log on (NTLMv2). Never print Password.
	User, Password string
	// Server names the server for results: "Samba 4.17.12-Debian".
	Server string
	// WorkDir holds the config, state and logs; ConfPath is smb.conf and
	// LogPath smbd's own output.
	WorkDir, ConfPath, LogPath string
	// RequireSigning and RequireEncryption say what the server requires
	// (Options.RequireSigning, Options.RequireEncryption): clients that
	// log on sign (encrypt) every request.
	RequireSigning, RequireEncryption bool

	proc        *procgroup.Process
	logFile     *os.File
	removeWork  bool
	stopTimeout time.Duration
	stopOnce    sync.Once
	stopErr     error
}

// String describes the instance without its password.
func (i *Instance) String() string {
	return fmt.Sprintf("%s on %s (share %s, user %s)", i.Server, i.Addr, i.Share, i.User)
}

// GoString is String, so that %#v does not print the password either.
func (i *Instance) GoString() string { return i.String() }

// Start finds (or installs, see Ensure) smbd, writes its configuration and
// passdb user under o.WorkDir, starts it on a free 127.0.0.1 port, and
// returns once it answers an SMB2 NEGOTIATE. The caller must Stop it.
func Start(ctx context.Context, o Options) (*Instance, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "linux" {
		return nil, ErrNotLinux
	}
	if os.Geteuid() != 0 {
		return nil, ErrNotRoot
	}
	bins, err := Ensure(ctx, o)
	if err != nil {
		return nil, err
	}
	removeWork := false
	if o.WorkDir == "" {
		if o.WorkDir, err = os.MkdirTemp("", "stormcheck-samba-"); err != nil {
			return nil, fmt.Errorf("samba: work dir: %w", err)
		}
		removeWork = true
	}
	l := newLayout(o.WorkDir)
	for _, d := range append([]string{l.root, l.share}, mapValues(l.dirs)...) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("samba: %w", err)
		}
	}
	if err := os.Chmod(l.share, 0o777); err != nil {
		return nil, fmt.Errorf("samba: %w", err)
	}
	password, err := randomPassword()
	if err != nil {
		return nil, err
	}
	// A port the kernel has just handed out is almost always still free;
	// when smbd cannot bind it, try another.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(l.conf, []byte(config(o, l, port))); err != nil {
			return nil, err
		}
		if attempt == 0 {
			if err := addUser(ctx, bins, l.conf, o.User, password); err != nil {
				return nil, err
			}
		}
		inst, err := launch(ctx, o, bins, l, port)
		if err == nil {
			inst.Share, inst.User, inst.Password, inst.removeWork = o.Share, o.User, password, removeWork
			return inst, nil
		}
		lastErr = err
		if !errors.Is(err, errBind) || ctx.Err() != nil {
			break
		}
	}
	if removeWork {
		os.RemoveAll(o.WorkDir)
	}
	return nil, lastErr
}

var errBind = errors.New("smbd could not bind its port")

// ErrNotLinux is returned by Start outside Linux.
var ErrNotLinux = errors.New("samba: a managed Samba runs on Linux only")

// launch starts smbd and waits for its first NEGOTIATE answer.
func launch(ctx context.Context, o Options, bins Binaries, l layout, port int) (*Instance, error) {
	logFile, err := os.OpenFile(l.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("samba: log: %w", err)
	}
	start, _ := logFile.Seek(0, 2)
	args := []string{"--foreground", "--no-process-group", "--debug-stdout", "--debuglevel=1", "--configfile=" + l.conf}
	p, err := procgroup.Start(bins.Smbd, args, nil, l.root, logFile)
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("samba: start %s: %w", bins.Smbd, err)
	}
	inst := &Instance{
		Addr:              net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Port:              port,
		SharePath:         l.share,
		Server:            "Samba " + bins.Version,
		RequireSigning:    o.RequireSigning,
		RequireEncryption: o.RequireEncryption,
		WorkDir:           l.root,
		ConfPath:          l.conf,
		LogPath:           l.log,
		proc:              p,
		logFile:           logFile,
		stopTimeout:       o.StopTimeout,
	}
	if err := inst.waitReady(ctx, o.StartTimeout); err != nil {
		inst.stop()
		tail := readTail(l.log, start)
		if strings.Contains(tail, "bind failed") || strings.Contains(tail, "Address already in use") {
			return nil, fmt.Errorf("%w: %v", errBind, err)
		}
		return nil, fmt.Errorf("samba: smbd did not come up: %v; its log (%s) ends with:\n%s", err, l.log, aptinstall.LastLines(tail, 15))
	}
	return inst, nil
}

// waitReady polls until a NEGOTIATE is answered, smbd exits, or the
// timeout passes.
func (i *Instance) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if i.proc.Exited() {
			return fmt.Errorf("smbd exited (%v)", i.proc.Err())
		}
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := smb2.Dial(actx, i.Addr, smb2.Options{})
		acancel()
		if err == nil {
			c.Close()
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("no NEGOTIATE answer within %s (last: %v)", timeout, last)
		case <-i.proc.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop stops smbd: SIGTERM to its process group, up to StopTimeout, then
// SIGKILL; then it closes the log and, when Start made the work dir,
// removes it. It is idempotent; later calls return the first's result.
func (i *Instance) Stop() error {
	i.stopOnce.Do(func() {
		i.stopErr = i.stop()
		if i.removeWork {
			if err := os.RemoveAll(i.WorkDir); err != nil && i.stopErr == nil {
				i.stopErr = fmt.Errorf("samba: %w", err)
			}
		}
	})
	return i.stopErr
}

func (i *Instance) stop() error {
	p := i.proc
	var err error
	if terr := p.Terminate(procgroup.SigTerm, i.stopTimeout, nil); terr != nil {
		err = fmt.Errorf("samba: smbd %w", terr)
	}
	// Children left in the group (connection workers) go too.
	_ = p.Signal(procgroup.SigKill)
	i.logFile.Close()
	return err
}

// addUser adds user to the passdb with password (smbpasswd -a -s reads it
// twice from stdin).
func addUser(ctx context.Context, b Binaries, conf, user, password string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.Smbpasswd, "-c", conf, "-a", "-s", user)
	cmd.Stdin = strings.NewReader(password + "\n" + password + "\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("samba: smbpasswd -a %s: %v: %s", user, err, aptinstall.LastLines(out.String(), 5))
	}
	return nil
}

func randomPassword() (string, error) {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("samba: finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("samba: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("samba: %w", err)
	}
	return nil
}

func readTail(path string, from int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < from {
		return ""
	}
	return string(b[from:])
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// ProcessGroup is smbd's process group (smbd and the children it forks for
// connections), 0 once stopped or before it started.
func (i *Instance) ProcessGroup() int {
	if i == nil || i.proc == nil {
		return 0
	}
	return i.proc.PID
}
