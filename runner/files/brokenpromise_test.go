package files_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	_ "github.com/stormcheck/stormcheck/checks/smb"
	_ "github.com/stormcheck/stormcheck/runner/files"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// shareRewriter is a stage on the SMB stream between the clients and smbd:
// it rewrites the ShareAccess of every unsigned, unencrypted CREATE request
// to read|write|delete, so the server grants opens the clients asked to
// keep exclusive (the broken promise of share modes: Samba 4.17 has no
// setting that stops enforcing them).
type shareRewriter struct {
	ln        net.Listener
	server    string
	rewritten atomic.Int64
	wg        sync.WaitGroup
}

// listenInRange listens on the first free loopback port of 49000-49999.
func listenInRange(t *testing.T) net.Listener {
	for p := 49000; p < 50000; p++ {
		if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			return ln
		}
	}
	t.Fatal("no free loopback port in 49000-49999")
	return nil
}

func startRewriter(t *testing.T, server string) *shareRewriter {
	r := &shareRewriter{ln: listenInRange(t), server: server}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			r.wg.Add(2)
			go func() { defer r.wg.Done(); io.Copy(c, s); c.Close() }()
			go func() { defer r.wg.Done(); r.forward(s, c); s.Close() }()
		}
	}()
	t.Cleanup(func() { r.ln.Close(); r.wg.Wait() })
	return r
}

// forward copies client frames to the server, rewriting CREATE requests.
func (r *shareRewriter) forward(dst io.Writer, src io.Reader) {
	const hdr, shareOff = 64, 32 // SMB2 header; ShareAccess in the CREATE request body (MS-SMB2 2.2.13)
	var lenb [4]byte
	for {
		if _, err := io.ReadFull(src, lenb[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(lenb[:]) & 0xffffff
		msg := make([]byte, n)
		if _, err := io.ReadFull(src, msg); err != nil {
			return
		}
		if len(msg) >= hdr+shareOff+4 && string(msg[:4]) == "\xfeSMB" &&
			binary.LittleEndian.Uint16(msg[12:]) == 5 && binary.LittleEndian.Uint32(msg[16:])&0x8 == 0 {
			binary.LittleEndian.PutUint32(msg[hdr+shareOff:], 7)
			r.rewritten.Add(1)
		}
		if _, err := dst.Write(append(lenb[:], msg...)); err != nil {
			return
		}
	}
}

// drive runs the example scenario's workload against addr for a fixed
// number of iterations per actor (no clock decides what is checked) and
// returns the share-modes check of its history.
func drive(t *testing.T, inst *samba.Instance, addr string) checks.Result {
	sc, err := scenarios.Load("../../scenarios/examples/files-share-modes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := sc.Workloads[0]
	tgt := &target.Target{Desc: "samba via " + addr, Samba: &samba.Instance{Addr: addr, Share: inst.Share, User: inst.User, Password: inst.Password}}
	path := filepath.Join(t.TempDir(), "history.jsonl.zst")
	rec, err := workload.NewRecorder(path, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := workload.NewEnv(w, sc, rec, tgt, "bp")
	f, _ := workload.Lookup(w.Kind)
	wl, err := f(w, tgt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := wl.Setup(ctx, e); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range w.Actors {
		a := e.Actor(i)
		wg.Go(func() {
			for range 150 {
				wl.Iterate(ctx, a)
			}
		})
	}
	wg.Wait()
	e.Stop.Store(true)
	if err := wl.Final(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	c, _ := checks.New("share-modes")
	if err := checks.ReadHistoryFile(path, func(op *checks.Op) error { c.Observe(op); return nil }); err != nil {
		t.Fatal(err)
	}
	return c.Finish()
}

// TestShareModesBrokenPromise: the same workload, straight to smbd, passes;
// through the stage that rewrites every CREATE's share access to
// read|write|delete, the server grants conflicting opens and share-modes
// fails, naming them.
func TestShareModesBrokenPromise(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	if r := drive(t, inst, inst.Addr); r.Verdict != checks.Pass {
		t.Fatalf("unmodified server: %s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
	rw := startRewriter(t, inst.Addr)
	r := drive(t, inst, rw.ln.Addr().String())
	if rw.rewritten.Load() == 0 {
		t.Fatal("the stage rewrote no CREATE (signed sessions?)")
	}
	if r.Verdict != checks.Fail || r.Total == 0 || !strings.Contains(r.Violations[0].Message, "held at the same time") {
		t.Fatalf("rewritten share modes: %s %s", r.Verdict, r.Summary)
	}
	t.Logf("%d CREATEs rewritten; %s", rw.rewritten.Load(), r.Summary)
}
