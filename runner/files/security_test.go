package files_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// wireTap is a loopback TCP relay that reads the client's SMB frames as
// they pass and counts, past NEGOTIATE and SESSION_SETUP, the requests
// sent in the clear, signed, and sealed (an SMB 3 transform).
type wireTap struct {
	ln                    net.Listener
	mu                    sync.Mutex
	plain, signed, sealed int
}

func startTap(t *testing.T, upstream string) *wireTap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &wireTap{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(c, u); c.Close() }()
			go func() { w.relay(u, c); u.Close() }()
		}
	}()
	return w
}

// relay copies the client's frames to the server, counting them.
func (w *wireTap) relay(dst io.Writer, src io.Reader) {
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint32(hdr[:])&0xFFFFFF)
		if _, err := io.ReadFull(src, msg); err != nil {
			return
		}
		w.count(msg)
		if _, err := dst.Write(append(hdr[:], msg...)); err != nil {
			return
		}
	}
}

func (w *wireTap) count(msg []byte) {
	if len(msg) < 64 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch string(msg[:4]) {
	case "\xfdSMB":
		w.sealed++
	case "\xfeSMB":
		if cmd := binary.LittleEndian.Uint16(msg[12:]); cmd <= 1 {
			return // NEGOTIATE, SESSION_SETUP: before the session's keys
		}
		if binary.LittleEndian.Uint32(msg[16:])&0x8 != 0 {
			w.signed++
		} else {
			w.plain++
		}
	}
}

// TestSMBScenarioSignedAndEncrypted: a samba target's signing and
// encryption settings reach the managed smbd (its smb.conf) and the
// sessions: the share-modes example, run through a tap that reads every
// request on the wire, sends them in the clear by default (but each SMB
// 3.1.1 TREE_CONNECT, signed), all signed with
// signing required, all sealed with encryption required (and with both),
// and its check passes each time.
func TestSMBScenarioSignedAndEncrypted(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		signing, encryption   string
		conf                  []string
		plain, signed, sealed bool
	}{
		{"default", "", "", nil, true, false, false},
		{"signing required", scenarios.SMBRequired, "", []string{"server signing = mandatory"}, false, true, false},
		{"encryption required", "", scenarios.SMBRequired, []string{"smb encrypt = required"}, false, false, true},
		{"both required", scenarios.SMBRequired, scenarios.SMBRequired, []string{"server signing = mandatory", "smb encrypt = required"}, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 16*time.Minute)
			defer cancel()
			st := scenarios.Target{Kind: scenarios.TargetSamba, Signing: tc.signing, Encryption: tc.encryption}
			tgt, err := target.Open(ctx, st, target.Options{WorkDir: t.TempDir(), Progress: os.Stderr})
			if errors.Is(err, samba.ErrNotRoot) || errors.Is(err, samba.ErrNotLinux) {
				t.Skipf("no managed Samba here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tgt.Close()
			conf, err := os.ReadFile(tgt.Samba.ConfPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.conf {
				if !strings.Contains(string(conf), want) {
					t.Fatalf("%s lacks %q", filepath.Base(tgt.Samba.ConfPath), want)
				}
			}
			tap := startTap(t, tgt.Samba.Addr)
			r := driveExample(t, "files-share-modes.yaml", tgt.Samba, tap.ln.Addr().String(), 4, 40, "share-modes")
			if r.Verdict != checks.Pass {
				t.Fatalf("share-modes: %s %s", r.Verdict, r.Summary)
			}
			tap.mu.Lock()
			defer tap.mu.Unlock()
			t.Logf("%s: requests past session setup: %d in the clear, %d signed, %d sealed (%s)", tgt.Desc, tap.plain, tap.signed, tap.sealed, r.Summary)
			got := func(n int) bool { return n > 0 }
			signed := got(tap.signed)
			if !tc.signed && !tc.sealed {
				signed = false // by default SMB 3.1.1 still signs each TREE_CONNECT
			}
			if got(tap.plain) != tc.plain || signed != tc.signed || got(tap.sealed) != tc.sealed || tap.plain+tap.signed+tap.sealed < 100 {
				t.Fatalf("requests past session setup: %d in the clear, %d signed, %d sealed; want clear %v, signed %v, sealed %v (and at least 100)",
					tap.plain, tap.signed, tap.sealed, tc.plain, tc.signed, tc.sealed)
			}
		})
	}
}
