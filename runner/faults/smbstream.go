package faults

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stormcheck/stormcheck/scenarios"
)

// The broken promises of SMB are stages on the SMB stream: SMBStream sits
// between the SMB clients and the server and, while such a fault's window
// is open, rewrites the messages its kind names. It can rewrite only what
// is neither signed nor encrypted (a signed or sealed message is passed on
// as it is, and counted in Skipped).
type SMBStream struct {
	s        *Schedule
	ln       net.Listener
	upstream string
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]bool
	closed   bool
	// Skipped counts messages a fault would have rewritten but could not:
	// signed or encrypted.
	Skipped atomic.Int64
}

// SMBKinds are the broken promises SMBStream carries.
var SMBKinds = []string{"broken.smb-share-access", "broken.smb-lock-shared", "broken.smb-keep-file", "broken.smb-lease-write"}

// IsSMB reports whether f is a broken promise of the SMB stream.
func (s *Schedule) IsSMB(f scenarios.Fault) bool { return contains(SMBKinds, f.Kind) }

// HasSMB reports whether any fault is a broken promise of the SMB stream.
func (s *Schedule) HasSMB() bool {
	for _, f := range s.faults {
		if s.IsSMB(f) {
			return true
		}
	}
	return false
}

// StartSMBStream listens on 127.0.0.1 and forwards every connection to
// upstream (host:port), rewriting as s's SMB broken promises say.
func StartSMBStream(s *Schedule, upstream string) (*SMBStream, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("SMB stream stage: %w", err)
	}
	st := &SMBStream{s: s, ln: ln, upstream: upstream, conns: map[net.Conn]bool{}}
	st.wg.Add(1)
	go st.accept()
	return st, nil
}

// Addr is the address SMB clients dial instead of the server's.
func (st *SMBStream) Addr() string { return st.ln.Addr().String() }

// Stop closes the listener and every connection, and waits for them.
func (st *SMBStream) Stop() {
	st.mu.Lock()
	st.closed = true
	for c := range st.conns {
		c.Close()
	}
	st.mu.Unlock()
	st.ln.Close()
	st.wg.Wait()
}

func (st *SMBStream) track(cs ...net.Conn) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return false
	}
	for _, c := range cs {
		st.conns[c] = true
	}
	return true
}

func (st *SMBStream) accept() {
	defer st.wg.Done()
	for {
		c, err := st.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", st.upstream)
		if err != nil {
			c.Close()
			continue
		}
		if !st.track(c, u) {
			c.Close()
			u.Close()
			return
		}
		st.wg.Add(2)
		go func() { defer st.wg.Done(); st.pipe(u, c, true); u.Close(); c.Close() }()
		go func() { defer st.wg.Done(); st.pipe(c, u, false); c.Close(); u.Close() }()
	}
}

// pipe copies frames (a 4-byte length, then an SMB2 message or a compound
// of them) from src to dst, rewriting requests (toServer) or responses.
func (st *SMBStream) pipe(dst io.Writer, src io.Reader, toServer bool) {
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint32(hdr[:])&0xffffff)
		if _, err := io.ReadFull(src, msg); err != nil {
			return
		}
		st.rewrite(msg, toServer)
		if _, err := dst.Write(append(hdr[:], msg...)); err != nil {
			return
		}
	}
}

// SMB2 header fields and the commands the stage reads (MS-SMB2 2.2.1).
const (
	smbHeaderLen   = 64
	smbCreate      = 5
	smbLock        = 10
	smbSetInfo     = 17
	smbFlagSigned  = 0x8
	smbFlagReply   = 0x1
	smbShareAll    = 7
	smbDeleteClose = 0x1000 // CREATE option FILE_DELETE_ON_CLOSE
	smbLockShared  = 0x1
	smbLockExcl    = 0x2
	smbLeaseRWH    = 0x7
)

var le = binary.LittleEndian

// rewrite changes msg in place as the open SMB broken promises say.
func (st *SMBStream) rewrite(msg []byte, toServer bool) {
	if len(msg) >= 4 && string(msg[:4]) == "\xfdSMB" {
		// Encrypted: nothing can be read, let alone rewritten.
		if st.s.HasSMB() {
			st.Skipped.Add(1)
		}
		return
	}
	for off := 0; off+smbHeaderLen <= len(msg); {
		m := msg[off:]
		if string(m[:4]) != "\xfeSMB" {
			return
		}
		next := int(le.Uint32(m[20:]))
		if next > 0 && next <= len(m) {
			m = m[:next]
		}
		st.rewriteOne(m, toServer)
		if next == 0 {
			return
		}
		off += next
	}
}

// rewriteOne rewrites one SMB2 message m (header and body).
func (st *SMBStream) rewriteOne(m []byte, toServer bool) {
	cmd, flags := le.Uint16(m[12:]), le.Uint32(m[16:])
	if (flags&smbFlagReply == 0) != toServer {
		return
	}
	body := m[smbHeaderLen:]
	op, kind := "", ""
	switch {
	case toServer && cmd == smbCreate && len(body) >= 56:
		op = "files.open"
	case toServer && cmd == smbLock && len(body) >= 48:
		op = "files.lock"
	case toServer && cmd == smbSetInfo && len(body) >= 32 && body[2] == 1 && body[3] == 13:
		op = "files.set-delete"
	case !toServer && cmd == smbCreate && le.Uint32(m[8:]) == 0 && len(body) >= 88:
		op = "files.open"
	default:
		return
	}
	i := st.s.pickIf(Request{Service: "file", Op: op}, func(i int) bool {
		k := st.s.faults[i].Kind
		switch op {
		case "files.open":
			return (toServer && (k == "broken.smb-share-access" || k == "broken.smb-keep-file")) || (!toServer && k == "broken.smb-lease-write")
		case "files.lock":
			return k == "broken.smb-lock-shared"
		}
		return k == "broken.smb-keep-file"
	})
	if i < 0 {
		return
	}
	kind = st.s.faults[i].Kind
	if flags&smbFlagSigned != 0 {
		st.Skipped.Add(1)
		return
	}
	action := ""
	switch kind {
	case "broken.smb-share-access":
		if le.Uint32(body[32:]) != smbShareAll {
			le.PutUint32(body[32:], smbShareAll)
			action = "CREATE share access rewritten to read|write|delete"
		}
	case "broken.smb-keep-file":
		if op == "files.open" {
			if o := le.Uint32(body[40:]); o&smbDeleteClose != 0 {
				le.PutUint32(body[40:], o&^smbDeleteClose)
				action = "CREATE option FILE_DELETE_ON_CLOSE stripped"
			}
		} else if bo := int(le.Uint16(body[8:])); le.Uint32(body[4:]) >= 1 && bo < len(m) && m[bo] != 0 {
			m[bo] = 0
			action = "SET_INFO delete disposition turned into keep"
		}
	case "broken.smb-lock-shared":
		n := int(le.Uint16(body[2:]))
		for j := 0; j < n && 24+24*j+24 <= len(body); j++ {
			fl := body[24+24*j+16:]
			if f := le.Uint32(fl); f&smbLockExcl != 0 {
				le.PutUint32(fl, f&^smbLockExcl|smbLockShared)
				action = "LOCK exclusive rewritten to shared"
			}
		}
	case "broken.smb-lease-write":
		action = leaseWrite(m, body)
	}
	if action != "" {
		el, _ := st.s.Elapsed()
		st.s.keep(Touch{At: el, Fault: st.s.faults[i].Name, Kind: kind, Action: action, Request: Request{Service: "file", Op: op}}, false)
	}
}

// leaseWrite sets every granted lease in a CREATE response to read, write
// and handle caching (MS-SMB2 2.2.14.2.10), whatever the server granted.
func leaseWrite(m, body []byte) string {
	at, n := int(le.Uint32(body[80:])), int(le.Uint32(body[84:]))
	if at < smbHeaderLen || n == 0 || at+n > len(m) {
		return ""
	}
	var done []string
	for c := m[at : at+n]; len(c) >= 16; {
		next := int(le.Uint32(c))
		no, nl, do, dl := int(le.Uint16(c[4:])), int(le.Uint16(c[6:])), int(le.Uint16(c[10:])), int(le.Uint32(c[12:]))
		if no+nl <= len(c) && do+dl <= len(c) && string(c[no:no+nl]) == "RqLs" && dl >= 20 {
			if le.Uint32(c[do+16:]) != smbLeaseRWH {
				le.PutUint32(c[do+16:], smbLeaseRWH)
				done = append(done, "lease state rewritten to RWH")
			}
		}
		if next <= 0 || next > len(c) {
			break
		}
		c = c[next:]
	}
	return strings.Join(done, "; ")
}
