package smb2

import (
	"context"
	"crypto/rand"
	"crypto/sha512"
	"errors"
	"fmt"
	"net"
	"time"
)

// Credentials are an NTLM user's.
type Credentials struct {
	User, Password, Domain string
	// Workstation is sent in the AUTHENTICATE message (default "STORMCHECK").
	Workstation string
}

// Session is an authenticated SMB2 session on a Conn.
type Session struct {
	conn *Conn
	// ID is the server's SessionId.
	ID uint64
	// Flags are the SESSION_SETUP response's SessionFlags.
	Flags uint16
	// Signed says every request is signed; Encrypted that every request is
	// encrypted.
	Signed, Encrypted bool
}

// Conn is the session's connection.
func (s *Session) Conn() *Conn { return s.conn }

// SessionSetup authenticates with NTLMv2 inside SPNEGO and derives the
// session's keys. The Conn then signs or encrypts as the server and the
// Options require.
func (c *Conn) SessionSetup(ctx context.Context, cr Credentials) (*Session, error) {
	c.mu.Lock()
	if c.sess != nil {
		c.mu.Unlock()
		return nil, errors.New("smb2: the connection already has a session")
	}
	c.mu.Unlock()
	if !spnegoOffersNTLM(c.negToken) {
		return nil, errors.New("smb2: the server does not offer NTLM in SPNEGO")
	}
	if c.opts.RequireEncryption && (!c.Dialect.Is3() || c.Cipher == CipherNone) {
		return nil, fmt.Errorf("smb2: encryption required, but dialect %v with cipher %v was negotiated", c.Dialect, c.Cipher)
	}
	if cr.Workstation == "" {
		cr.Workstation = "STORMCHECK"
	}
	secMode := uint8(SigningEnabled)
	if c.opts.RequireSigning {
		secMode |= uint8(SigningRequired)
	}
	preauth := c.preauth
	hash := func(b []byte) {
		if c.Dialect != Dialect311 {
			return
		}
		h := sha512.New()
		h.Write(preauth)
		h.Write(b)
		preauth = h.Sum(nil)
	}

	// Round 1: NEGOTIATE_MESSAGE in a NegTokenInit.
	ntlmNeg := NTLMNegotiate(ntlmClientFlags)
	tok, err := spnegoInit(ntlmNeg)
	if err != nil {
		return nil, err
	}
	r1, raw1, err := c.roundTrip(ctx, &SessionSetupRequest{SecurityMode: secMode, SecurityBuffer: tok}, sendParams{})
	if err != nil {
		return nil, err
	}
	if r1.hdr.Status != StatusMoreProcessingRequired {
		return nil, &Error{Command: CmdSessionSetup, Status: r1.hdr.Status}
	}
	hash(raw1)
	hash(r1.raw)
	sid := r1.hdr.SessionID
	ss1, err := UnmarshalSessionSetupResponse(r1.body)
	if err != nil {
		return nil, err
	}
	nt1, err := parseSPNEGOResp(ss1.SecurityBuffer)
	if err != nil {
		return nil, err
	}
	if nt1.NegState == negReject || len(nt1.ResponseToken) == 0 {
		return nil, errors.New("smb2: the server rejected NTLM in SPNEGO")
	}

	// Round 2: AUTHENTICATE_MESSAGE and the mechListMIC.
	var cc [8]byte
	rand.Read(cc[:])
	esk := make([]byte, 16)
	rand.Read(esk)
	auth, err := ntlmAuthenticate(cr.User, cr.Password, cr.Domain, cr.Workstation, ntlmNeg, nt1.ResponseToken, cc, esk, filetime(time.Now()))
	if err != nil {
		return nil, err
	}
	tok, err = spnegoResp(auth.authenticate, ntlmMechListMIC(auth.exportedSessionKey, auth.flags, spnegoMechTypes()))
	if err != nil {
		return nil, err
	}
	r2, raw2, err := c.roundTrip(ctx, &SessionSetupRequest{SecurityMode: secMode, SecurityBuffer: tok}, sendParams{sessionID: sid})
	if err != nil {
		return nil, err
	}
	if r2.hdr.Status != StatusSuccess {
		return nil, &Error{Command: CmdSessionSetup, Status: r2.hdr.Status}
	}
	hash(raw2)
	ss2, err := UnmarshalSessionSetupResponse(r2.body)
	if err != nil {
		return nil, err
	}
	if ss2.SessionFlags&(SessionFlagIsGuest|SessionFlagIsNull) != 0 {
		return nil, fmt.Errorf("smb2: the server made this a guest or anonymous session (flags 0x%x): wrong user or password?", ss2.SessionFlags)
	}
	keys := deriveKeys(c.Dialect, c.Cipher, auth.exportedSessionKey, preauth)
	st := &sessionState{id: sid, keys: keys}
	// [MS-SMB2] 3.2.5.3.1: a signed final response is verified; 3.1.1 signs it always.
	if r2.hdr.Flags&FlagSigned != 0 {
		if err := verify(c.Dialect, keys.signing, r2.raw); err != nil {
			return nil, fmt.Errorf("smb2: SESSION_SETUP: %w", err)
		}
	} else if c.Dialect == Dialect311 {
		return nil, errors.New("smb2: SESSION_SETUP: the final 3.1.1 response is not signed")
	}
	st.sign = c.opts.RequireSigning || c.ServerSecurity&SigningRequired != 0
	st.encrypt = c.opts.RequireEncryption || ss2.SessionFlags&SessionFlagEncryptData != 0
	if c.Dialect.Is3() && c.Cipher != CipherNone {
		if st.enc, err = aead(c.Cipher, keys.encryption); err != nil {
			return nil, err
		}
		if st.dec, err = aead(c.Cipher, keys.decryption); err != nil {
			return nil, err
		}
		rand.Read(st.noncePrefix[:])
	} else if st.encrypt {
		return nil, fmt.Errorf("smb2: the server asks for encryption, but dialect %v has no cipher", c.Dialect)
	}
	c.mu.Lock()
	c.sess = st
	c.mu.Unlock()
	return &Session{conn: c, ID: sid, Flags: ss2.SessionFlags, Signed: st.sign, Encrypted: st.encrypt}, nil
}

// filetime converts t to Windows FILETIME (100 ns since 1601).
func filetime(t time.Time) uint64 {
	return uint64(t.UnixNano()/100) + 116444736000000000
}

func (s *Session) params(tree uint32) sendParams {
	return sendParams{sessionID: s.ID, treeID: tree}
}

// Logoff ends the session.
func (s *Session) Logoff(ctx context.Context) error {
	r, _, err := s.conn.roundTrip(ctx, LogoffRequest, s.params(0))
	if err != nil {
		return err
	}
	return statusErr(r, CmdLogoff)
}

// TreeConnect connects to share (a name such as "data"; the server name in
// the UNC path is the connection's host).
func (s *Session) TreeConnect(ctx context.Context, share string) (*Tree, error) {
	host, _, err := net.SplitHostPort(s.conn.addr)
	if err != nil {
		host = s.conn.addr
	}
	path := `\\` + host + `\` + share
	p := s.params(0)
	p.sign = s.conn.Dialect == Dialect311 // [MS-SMB2] 3.2.4.2: 3.1.1 tree connects are signed
	r, _, err := s.conn.roundTrip(ctx, &TreeConnectRequest{Path: path}, p)
	if err != nil {
		return nil, err
	}
	if err := statusErr(r, CmdTreeConnect); err != nil {
		return nil, err
	}
	tr, err := UnmarshalTreeConnectResponse(r.body)
	if err != nil {
		return nil, err
	}
	t := &Tree{s: s, ID: r.hdr.TreeID, Share: share, ShareFlags: tr.ShareFlags, MaximalAccess: tr.MaximalAccess}
	t.encrypt = tr.ShareFlags&ShareFlagEncryptData != 0
	if t.encrypt && !s.Encrypted && (s.conn.Cipher == CipherNone || !s.conn.Dialect.Is3()) {
		return nil, fmt.Errorf("smb2: share %s requires encryption, which dialect %v cannot do", share, s.conn.Dialect)
	}
	s.conn.ackTree.Store(t.ID)
	return t, nil
}
