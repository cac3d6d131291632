package samba_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func logon(t *testing.T, inst *samba.Instance, o smb2.Options) *smb2.Tree {
	return sambatest.Logon(t, inst, o)
}

// TestStartWritesALoopbackConfigAndStopEndsEverything: the config keeps
// smbd on 127.0.0.1 without NetBIOS and every path under the work dir; the
// password never shows in the instance's text; Stop ends the process group
// and the port refuses connections.
func TestStartWritesALoopbackConfigAndStopEndsEverything(t *testing.T) {
	dir := t.TempDir()
	inst := sambatest.Start(t, samba.Options{WorkDir: dir, RequireSigning: true, Share: "data"})
	conf, err := os.ReadFile(inst.ConfPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("smb ports = %d", inst.Port), "interfaces = 127.0.0.1", "bind interfaces only = yes",
		"disable netbios = yes", "server signing = mandatory", "server min protocol = SMB2_10", "[data]",
		"load printers = no",
	} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("smb.conf lacks %q", want)
		}
	}
	for _, line := range strings.Split(string(conf), "\n") {
		if i := strings.Index(line, " = /"); i > 0 && !strings.Contains(line, "/dev/null") {
			if p := strings.TrimSpace(line[i+3:]); !strings.HasPrefix(strings.TrimPrefix(p, "tdbsam:"), dir) {
				t.Errorf("smb.conf line %q points outside the work dir %s", strings.TrimSpace(line), dir)
			}
		}
	}
	if strings.Contains(string(conf), inst.Password) {
		t.Error("smb.conf holds the password")
	}
	for _, s := range []string{inst.String(), fmt.Sprintf("%v %+v %#v", inst, inst, inst)} {
		if strings.Contains(s, inst.Password) {
			t.Fatalf("the instance's text shows the password: %s", s)
		}
	}
	if !strings.HasPrefix(inst.Server, "Samba 4.") || !strings.HasPrefix(inst.Addr, "127.0.0.1:") {
		t.Fatalf("server %q at %q", inst.Server, inst.Addr)
	}
	tr := logon(t, inst, smb2.Options{})
	if !tr.Session().Signed {
		t.Fatal("the session is not signed although the server requires signing")
	}
	f, err := tr.OpenFile(ctxT(t), "x", smb2.GenericWrite, smb2.ShareAll, smb2.FileCreate)
	if err != nil {
		t.Fatal(err)
	}
	f.Close(ctxT(t))
	if _, err := os.Stat(filepath.Join(inst.SharePath, "x")); err != nil {
		t.Fatalf("the file is not in the share's directory: %v", err)
	}

	pid := smbdPid(t, dir)
	if err := inst.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := inst.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("smbd pid %d still exists after Stop (kill 0: %v)", pid, err)
	}
	if c, err := net.DialTimeout("tcp", inst.Addr, 5*time.Second); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after Stop", inst.Addr)
	}
}

// smbdPid reads the pid smbd wrote into its pid directory.
func smbdPid(t *testing.T, dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "pid", "smbd.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestBadOptionsAreRefused(t *testing.T) {
	for _, o := range []samba.Options{
		{Share: "a b"}, {Share: "global"}, {User: "x;y"}, {MinProtocol: "NT1"},
		{Global: []string{"include = /etc/passwd\n[x]"}}, {Ciphers: "rot13;"},
	} {
		if _, err := samba.Start(ctxT(t), o); err == nil || errors.Is(err, samba.ErrNotRoot) {
			t.Errorf("options %+v: got %v, want a refusal", o, err)
		}
	}
}

// TestBrokenPromises shows each option that turns a promise off does so:
// the conflicting request a correct server refuses is granted.
func TestBrokenPromises(t *testing.T) {
	excl := smb2.LockElement{Offset: 0, Length: 10, Flags: smb2.LockExclusive | smb2.LockFailImmediately}
	t.Run("locking = no", func(t *testing.T) {
		inst := sambatest.Start(t, samba.Options{IgnoreByteRangeLocks: true})
		a, b := logon(t, inst, smb2.Options{}), logon(t, inst, smb2.Options{})
		ctx := ctxT(t)
		fa, err := a.OpenFile(ctx, "f", smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, smb2.FileOverwriteIf)
		if err != nil {
			t.Fatal(err)
		}
		fb, err := b.OpenFile(ctx, "f", smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, smb2.FileOpen)
		if err != nil {
			t.Fatal(err)
		}
		if err := fa.Lock(ctx, excl); err != nil {
			t.Fatal(err)
		}
		if err := fb.Lock(ctx, excl); err != nil {
			t.Fatalf("conflicting lock with locking = no: %v, want it granted", err)
		}
		if _, err := fb.Write(ctx, 2, []byte("x")); err != nil {
			t.Fatalf("write inside another handle's range with locking = no: %v, want it done", err)
		}
	})
	t.Run("fake oplocks = yes", func(t *testing.T) {
		inst := sambatest.Start(t, samba.Options{FakeOplocks: true})
		broke := make(chan *smb2.Break, 1)
		a := logon(t, inst, smb2.Options{OnBreak: func(b *smb2.Break) { broke <- b }})
		b := logon(t, inst, smb2.Options{})
		ctx := ctxT(t)
		fa, err := a.Create(ctx, smb2.CreateRequest{
			OplockLevel: smb2.OplockBatch, DesiredAccess: smb2.FileReadData | smb2.FileWriteData, ShareAccess: smb2.ShareAll,
			Disposition: smb2.FileOverwriteIf, Name: "f",
		})
		if err != nil {
			t.Fatal(err)
		}
		if fa.Create.OplockLevel != smb2.OplockBatch {
			t.Fatalf("fake oplocks granted oplock level %d, want batch", fa.Create.OplockLevel)
		}
		if _, err := b.OpenFile(ctx, "f", smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, smb2.FileOpen); err != nil {
			t.Fatal(err)
		}
		if err := a.Session().Conn().Echo(ctx); err != nil { // a break would have arrived before this answer
			t.Fatal(err)
		}
		select {
		case br := <-broke:
			t.Fatalf("fake oplocks broke the oplock: %+v", br.Oplock)
		default:
		}
	})
	t.Run("smb2 leases = no", func(t *testing.T) {
		inst := sambatest.Start(t, samba.Options{DisableLeases: true})
		a := logon(t, inst, smb2.Options{})
		lease := smb2.Lease{Version: 2, State: smb2.LeaseRead | smb2.LeaseWrite | smb2.LeaseHandle}
		fa, err := a.Create(ctxT(t), smb2.CreateRequest{
			OplockLevel: smb2.OplockLease, DesiredAccess: smb2.FileReadData, ShareAccess: smb2.ShareAll,
			Disposition: smb2.FileOverwriteIf, Name: "f", Contexts: []smb2.CreateContext{smb2.LeaseContext(lease)},
		})
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := fa.Create.Lease(); ok && l.State != 0 {
			t.Fatalf("a lease %v was granted with smb2 leases = no", l.State)
		}
	})
}
