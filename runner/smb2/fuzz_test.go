package smb2

import (
	"bytes"
	"net"
	"testing"

	"github.com/stormcheck/stormcheck/internal/fuzzguard"
)

// One fuzz target per parser of what a server sends: none may panic,
// loop, or allocate without bound on any input (internal/fuzzguard), and
// what they accept must hold together.

func FuzzNegotiateResponse(f *testing.F) {
	f.Add(unhex(f, blogNegResp...)[HeaderSize:])
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzguard.Run(t, func() {
			r, err := UnmarshalNegotiateResponse(body)
			if err != nil {
				return
			}
			for _, c := range r.Contexts {
				c.Preauth()
				c.Ciphers()
			}
			spnegoOffersNTLM(r.SecurityBuffer)
		})
	})
}

func FuzzSessionSetupResponse(f *testing.F) {
	f.Add(unhex(f, blogSSResp1...)[HeaderSize:])
	f.Add(unhex(f, blogSSResp2...)[HeaderSize:])
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzguard.Run(t, func() {
			r, err := UnmarshalSessionSetupResponse(body)
			if err != nil {
				return
			}
			tok, err := parseSPNEGOResp(r.SecurityBuffer)
			if err != nil || len(tok.ResponseToken) == 0 {
				return
			}
			ParseNTLMChallenge(tok.ResponseToken)
		})
	})
}

func FuzzNTLMChallenge(f *testing.F) {
	ss1 := unhex(f, blogSSResp1...)
	f.Add(ss1[bytes.Index(ss1, ntlmSignature):])
	f.Fuzz(func(t *testing.T, msg []byte) {
		fuzzguard.Run(t, func() {
			if _, err := ParseNTLMChallenge(msg); err != nil {
				return
			}
			a, err := ntlmAuthenticate("u", "p", "d", "w", NTLMNegotiate(ntlmClientFlags), msg, [8]byte{1}, make([]byte, 16), 1)
			if err != nil {
				return
			}
			if len(a.exportedSessionKey) != 16 || !bytes.HasPrefix(a.authenticate, ntlmSignature) {
				t.Fatalf("authenticate %x with key %x", a.authenticate, a.exportedSessionKey)
			}
		})
	})
}

func FuzzCreateResponse(f *testing.F) {
	lease := LeaseContext(Lease{Version: 2, State: LeaseRead | LeaseHandle})
	body := make([]byte, 88)
	le.PutUint16(body, 89)
	le.PutUint32(body[80:], HeaderSize+88)
	body = appendCreateContexts(body, 0, []CreateContext{lease, {Name: "MxAc", Data: make([]byte, 8)}})
	le.PutUint32(body[84:], uint32(len(body)-88))
	f.Add(body)
	f.Add(body[:88])
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzguard.Run(t, func() {
			r, err := UnmarshalCreateResponse(body)
			if err != nil {
				return
			}
			r.Lease()
		})
	})
}

// FuzzResponseStream feeds arbitrary messages to a connection's receive
// path with requests waiting (a LOCK that may go async, a CREATE): headers,
// interim STATUS_PENDING answers, compounds and break notifications.
func FuzzResponseStream(f *testing.F) {
	pending := Header{Status: StatusPending, Command: CmdLock, Credits: 1, Flags: FlagServerToRedir | FlagAsyncCommand, MessageID: 5, AsyncID: 9}
	final := pending
	final.Status, final.Credits = StatusSuccess, 0
	lockResp := le.AppendUint32(nil, 4)
	brk := Header{Command: CmdOplockBreak, Flags: FlagServerToRedir, MessageID: UnsolicitedMessageID}
	lb := make([]byte, 44)
	le.PutUint16(lb, 44)
	f.Add(append(pending.Append(nil), errorBodySeed()...))
	f.Add(append(final.Append(nil), lockResp...))
	f.Add(append(brk.Append(nil), lb...))
	f.Fuzz(func(t *testing.T, msg []byte) {
		fuzzguard.Run(t, func() {
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			c := &Conn{nc: a, pending: map[uint64]*call{}, creditsCh: make(chan struct{}), breakCh: make(chan struct{}, 1), done: make(chan struct{})}
			for _, id := range []uint64{5, 6} {
				c.pending[id] = &call{ch: make(chan *response, 1)}
			}
			if err := c.handle(msg); err != nil {
				return
			}
			for id, cl := range c.pending {
				select {
				case r := <-cl.ch:
					t.Fatalf("call %d answered but still pending: %+v", id, r.hdr)
				default:
				}
			}
		})
	})
}

// errorBodySeed is an ERROR response body.
func errorBodySeed() []byte { return []byte{9, 0, 0, 0, 0, 0, 0, 0, 0} }

func FuzzTransformHeader(f *testing.F) {
	for _, s := range [][]string{
		{"FD534D42A6015530A18F6D9AFFE22AFAE8E66484860000000000000011000014",
			"00E4080050000000000001001100001400E40800DBF46435C5F14169293CE079",
			"E344479BF670227E49873F458672C3098DAC467DD5809F369D67409166515787",
			"1483E01F7BECD02064EAC3E235F913668BBC2F097980D4B378F1993EFF6E60D1", "77309E5B"},
	} {
		f.Add(unhex(f, s...))
	}
	ccm, _ := aead(CipherAES128CCM, unhex(f, "8FE2B57EC34D2DB5B1A9727F526BBDB5"))
	gcm, _ := aead(CipherAES128GCM, unhex(f, "748C50868C90F302962A5C35F5F9A8BF"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		fuzzguard.Run(t, func() {
			if _, err := UnmarshalTransformHeader(msg); err != nil {
				return
			}
			if p, err := decrypt(ccm, msg); err == nil && len(p) != len(msg)-TransformHeaderSize {
				t.Fatalf("decrypted %d bytes from a %d-byte message", len(p), len(msg))
			}
			decrypt(gcm, msg)
		})
	})
}
