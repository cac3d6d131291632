package smb2

import (
	"context"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a connection. The zero value offers dialects 2.1 to
// 3.1.1, both ciphers, and signs and encrypts only when the server asks.
type Options struct {
	// Dialects offered, in any order (default 2.1, 3.0, 3.0.2, 3.1.1).
	Dialects []Dialect
	// Ciphers offered for 3.1.1, most preferred first (default GCM, CCM).
	Ciphers []Cipher
	// RequireSigning signs every request after session setup and refuses
	// unsigned responses, even when the server does not require signing.
	RequireSigning bool
	// RequireEncryption encrypts every request after session setup (SMB 3
	// only; session setup fails on a 2.x dialect or without a cipher).
	RequireEncryption bool
	// OnBreak receives the server's oplock and lease break notifications,
	// one at a time in arrival order, on a goroutine of its own (so it may
	// acknowledge with Tree.AckBreak). When nil, breaks are acknowledged
	// automatically with the state the server asks for.
	OnBreak func(*Break)
	// MaxIOSize caps reads, writes and directory listings (default 1 MiB;
	// the server's negotiated maximums cap it further). Messages larger than
	// this plus the headers are refused.
	MaxIOSize uint32
}

const defaultMaxIO = 1 << 20

// ErrClosed is returned by calls on a closed connection.
var ErrClosed = errors.New("smb2: connection closed")

// Conn is one SMB2 connection: it negotiates, sends requests and matches
// their responses (message ids, credits, interim STATUS_PENDING answers),
// signs, encrypts and verifies, and hands break notifications to OnBreak.
// It carries at most one session. Its methods are safe for concurrent use.
type Conn struct {
	nc   net.Conn
	opts Options
	addr string

	// Set by negotiate, read-only afterwards.
	Dialect         Dialect
	ServerGUID      [16]byte
	ServerSecurity  uint16
	ServerCaps      uint32
	Cipher          Cipher
	MaxReadSize     uint32
	MaxWriteSize    uint32
	MaxTransactSize uint32
	negToken        []byte
	preauth         []byte // the connection's pre-auth integrity hash (3.1.1)
	largeMTU        bool

	maxFrame atomic.Uint32
	ackTree  atomic.Uint32 // the tree automatic break acknowledgements are sent on

	writeMu sync.Mutex

	mu        sync.Mutex
	nextMsgID uint64
	credits   int
	creditsCh chan struct{} // closed when credits grow; then replaced
	pending   map[uint64]*call
	err       error // why the connection ended
	sess      *sessionState
	breakQ    []*Break
	breakCh   chan struct{}
	nonce     uint64

	done chan struct{}
}

// sessionState is what the reader needs to check and open messages of the
// connection's session.
type sessionState struct {
	id          uint64
	keys        sessionKeys
	sign        bool // sign every request and demand signed responses
	encrypt     bool // encrypt every request
	enc, dec    cipher.AEAD
	noncePrefix [8]byte
}

type call struct {
	cmd     Command
	ch      chan *response
	asyncID uint64
	async   bool
	trace   *Trace
}

type response struct {
	hdr       Header
	body      []byte
	raw       []byte // the whole SMB2 message as received (decrypted)
	encrypted bool
	err       error
}

// Trace hooks into the life of one request, in the manner of
// net/http/httptrace: attach it to the call's context with WithTrace.
type Trace struct {
	// Sent is called once the request is written, with its message id.
	Sent func(messageID uint64)
	// Pending is called when the server answers STATUS_PENDING: the request
	// went asynchronous and its final answer comes later.
	Pending func(asyncID uint64)
}

type traceKey struct{}

// WithTrace returns a context that makes the calls using it report to t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

func traceOf(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// Dial connects to addr (host:port) over TCP and negotiates.
func Dial(ctx context.Context, addr string, opts Options) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("smb2: dial %s: %w", addr, err)
	}
	c, err := NewConn(ctx, nc, opts)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// NewConn negotiates over an established stream (the Direct TCP transport:
// each message is prefixed with its 4-byte length). The Conn owns nc.
func NewConn(ctx context.Context, nc net.Conn, opts Options) (*Conn, error) {
	if len(opts.Dialects) == 0 {
		opts.Dialects = []Dialect{Dialect210, Dialect300, Dialect302, Dialect311}
	}
	if len(opts.Ciphers) == 0 {
		opts.Ciphers = []Cipher{CipherAES128GCM, CipherAES128CCM}
	}
	if opts.MaxIOSize == 0 {
		opts.MaxIOSize = defaultMaxIO
	}
	c := &Conn{
		nc:        nc,
		opts:      opts,
		addr:      nc.RemoteAddr().String(),
		credits:   1,
		creditsCh: make(chan struct{}),
		pending:   map[uint64]*call{},
		breakCh:   make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	c.maxFrame.Store(1 << 16)
	go c.readLoop()
	go c.dispatchBreaks()
	if err := c.negotiate(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// RemoteAddr is the server's address.
func (c *Conn) RemoteAddr() string { return c.addr }

// Close closes the connection; pending calls fail with ErrClosed.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return c.nc.Close()
}

// Done is closed when the connection has ended; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	for id, cl := range c.pending {
		cl.ch <- &response{err: err}
		delete(c.pending, id)
	}
	close(c.done)
}

func (c *Conn) negotiate(ctx context.Context) error {
	req := &NegotiateRequest{
		SecurityMode: SigningEnabled,
		Dialects:     c.opts.Dialects,
	}
	if c.opts.RequireSigning {
		req.SecurityMode |= SigningRequired
	}
	rand.Read(req.ClientGUID[:])
	has311, has3 := false, false
	for _, d := range c.opts.Dialects {
		has311 = has311 || d == Dialect311
		has3 = has3 || d.Is3()
	}
	req.Capabilities = CapLeasing | CapLargeMTU
	if has3 {
		req.Capabilities |= CapEncryption
	}
	if has311 {
		salt := make([]byte, 32)
		rand.Read(salt)
		req.Contexts = []NegotiateContext{PreauthContext(salt, HashSHA512), EncryptionContext(c.opts.Ciphers...)}
	}
	resp, reqRaw, err := c.roundTrip(ctx, req, sendParams{})
	if err != nil {
		return err
	}
	if resp.hdr.Status != StatusSuccess {
		return &Error{Command: CmdNegotiate, Status: resp.hdr.Status}
	}
	nr, err := UnmarshalNegotiateResponse(resp.body)
	if err != nil {
		return err
	}
	offered := false
	for _, d := range c.opts.Dialects {
		offered = offered || d == nr.Dialect
	}
	if !offered {
		return fmt.Errorf("smb2: server chose dialect %v, which was not offered", nr.Dialect)
	}
	c.Dialect, c.ServerGUID, c.ServerSecurity, c.ServerCaps = nr.Dialect, nr.ServerGUID, nr.SecurityMode, nr.Capabilities
	c.MaxReadSize = min(nr.MaxReadSize, c.opts.MaxIOSize)
	c.MaxWriteSize = min(nr.MaxWriteSize, c.opts.MaxIOSize)
	c.MaxTransactSize = min(nr.MaxTransactSize, c.opts.MaxIOSize)
	c.largeMTU = nr.Capabilities&CapLargeMTU != 0
	if !c.largeMTU {
		c.MaxReadSize, c.MaxWriteSize, c.MaxTransactSize = min(c.MaxReadSize, 65536), min(c.MaxWriteSize, 65536), min(c.MaxTransactSize, 65536)
	}
	c.negToken = nr.SecurityBuffer
	if nr.Dialect == Dialect311 {
		sawHash := false
		for _, ctx := range nr.Contexts {
			switch ctx.Type {
			case ctxPreauthIntegrity:
				hs, _, err := ctx.Preauth()
				if err != nil {
					return err
				}
				if len(hs) != 1 || hs[0] != HashSHA512 {
					return fmt.Errorf("smb2: server chose pre-auth hashes %v, want SHA-512", hs)
				}
				sawHash = true
			case ctxEncryption:
				cs, err := ctx.Ciphers()
				if err != nil {
					return err
				}
				if len(cs) == 1 {
					c.Cipher = cs[0]
				}
			}
		}
		if !sawHash {
			return errors.New("smb2: 3.1.1 negotiate response without a pre-auth integrity context")
		}
		h := sha512.New()
		h.Write(make([]byte, 64))
		h.Write(reqRaw)
		h1 := h.Sum(nil)
		h = sha512.New()
		h.Write(h1)
		h.Write(resp.raw)
		c.preauth = h.Sum(nil)
	} else if nr.Dialect.Is3() && nr.Capabilities&CapEncryption != 0 {
		c.Cipher = CipherAES128CCM
	}
	frame := max(c.MaxReadSize, c.MaxWriteSize, c.MaxTransactSize) + 1024
	c.maxFrame.Store(frame)
	return nil
}

// sendParams says how one request is addressed and protected.
type sendParams struct {
	sessionID uint64
	treeID    uint32
	sign      bool // sign with the session's key
	encrypt   bool // encrypt with the session's key
}

// payloadSizer is implemented by requests that move data (READ, WRITE,
// QUERY_*): their size sets the credit charge.
type payloadSizer interface{ payloadSize() int }

// Request is an SMB2 request body.
type Request interface {
	Command() Command
	AppendBody(b []byte) []byte
}

func (c *Conn) creditCharge(req Request) int {
	if !c.largeMTU {
		return 1
	}
	if p, ok := req.(payloadSizer); ok && p.payloadSize() > 0 {
		return (p.payloadSize()-1)/65536 + 1
	}
	return 1
}

// roundTrip sends req and waits for its final response (after any interim
// STATUS_PENDING). It returns the raw request bytes too (for pre-auth
// hashing). A response with an error status is returned, not turned into
// an error: callers decide which statuses are answers.
func (c *Conn) roundTrip(ctx context.Context, req Request, p sendParams) (*response, []byte, error) {
	charge := c.creditCharge(req)
	cl := &call{cmd: req.Command(), ch: make(chan *response, 1), trace: traceOf(ctx)}

	// Take credits and message ids.
	c.mu.Lock()
	for c.err == nil && c.credits < charge {
		wait := c.creditsCh
		c.mu.Unlock()
		select {
		case <-wait:
		case <-c.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		c.mu.Lock()
	}
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, nil, err
	}
	msgID := c.nextMsgID
	c.nextMsgID += uint64(charge)
	c.credits -= charge
	c.pending[msgID] = cl
	sess := c.sess
	c.mu.Unlock()

	h := Header{
		CreditCharge: uint16(charge),
		Command:      req.Command(),
		Credits:      uint16(max(charge, 64)),
		MessageID:    msgID,
		TreeID:       p.treeID,
		SessionID:    p.sessionID,
	}
	if req.Command() == CmdNegotiate {
		h.Credits = 1
	}
	msg := h.Append(make([]byte, 0, 256))
	msg = req.AppendBody(msg)
	raw := msg
	wire, err := c.protect(sess, p, msg)
	if err == nil {
		err = c.writeFrame(wire)
	}
	if err != nil {
		c.mu.Lock()
		delete(c.pending, msgID)
		c.mu.Unlock()
		return nil, nil, err
	}
	if cl.trace != nil && cl.trace.Sent != nil {
		cl.trace.Sent(msgID)
	}
	select {
	case r := <-cl.ch:
		if r.err != nil {
			return nil, nil, r.err
		}
		return r, raw, nil
	case <-ctx.Done():
		c.abandon(msgID, cl, p)
		return nil, nil, fmt.Errorf("smb2: %s abandoned (the server may still carry it out): %w", req.Command(), ctx.Err())
	}
}

// abandon forgets a call whose caller stopped waiting; for an async call
// it asks the server to cancel it. Credits the late response grants are
// still counted by the reader.
func (c *Conn) abandon(msgID uint64, cl *call, p sendParams) {
	c.mu.Lock()
	_, still := c.pending[msgID]
	delete(c.pending, msgID)
	async, asyncID := cl.async, cl.asyncID
	sess := c.sess
	c.mu.Unlock()
	if !still {
		return
	}
	h := Header{Command: CmdCancel, MessageID: msgID, SessionID: p.sessionID, TreeID: p.treeID}
	if async {
		h.Flags |= FlagAsyncCommand
		h.AsyncID = asyncID
	}
	msg := CancelRequest.AppendBody(h.Append(nil))
	if wire, err := c.protect(sess, p, msg); err == nil {
		_ = c.writeFrame(wire)
	}
}

// protect signs or encrypts msg as p asks, with the session's keys.
func (c *Conn) protect(s *sessionState, p sendParams, msg []byte) ([]byte, error) {
	if s == nil || s.id != p.sessionID {
		return msg, nil
	}
	if p.encrypt || s.encrypt {
		var nonce [16]byte
		c.mu.Lock()
		c.nonce++
		n := c.nonce
		c.mu.Unlock()
		binary.LittleEndian.PutUint64(nonce[:], n)
		copy(nonce[8:], s.noncePrefix[:s.enc.NonceSize()-8])
		return encrypt(s.enc, s.id, nonce, msg), nil
	}
	if p.sign || s.sign {
		sign(s.keys.dialect, s.keys.signing, msg)
	}
	return msg, nil
}

func (c *Conn) writeFrame(msg []byte) error {
	if len(msg) > 0xFFFFFF {
		return fmt.Errorf("smb2: message of %d bytes is too large", len(msg))
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	hdr := []byte{0, byte(len(msg) >> 16), byte(len(msg) >> 8), byte(len(msg))}
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Minute))
	if _, err := c.nc.Write(append(hdr, msg...)); err != nil {
		c.fail(fmt.Errorf("smb2: write: %w", err))
		return c.Err()
	}
	return nil
}

// readFrame reads one Direct TCP frame of at most limit bytes.
func readFrame(r io.Reader, limit uint32) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	if hdr[0] != 0 {
		return nil, malformed("transport header: first byte 0x%02x", hdr[0])
	}
	n := uint32(hdr[1])<<16 | uint32(hdr[2])<<8 | uint32(hdr[3])
	if n > limit {
		return nil, fmt.Errorf("smb2: the server sent a %d-byte message; the limit is %d", n, limit)
	}
	if n < 4 {
		return nil, malformed("message of %d bytes", n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func (c *Conn) readLoop() {
	for {
		msg, err := readFrame(c.nc, c.maxFrame.Load())
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = fmt.Errorf("%w: %v", ErrClosed, err)
			}
			c.fail(err)
			return
		}
		if err := c.handle(msg); err != nil {
			c.fail(err)
			c.nc.Close()
			return
		}
	}
}

// handle processes one received frame. An error ends the connection.
func (c *Conn) handle(msg []byte) error {
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	encrypted := false
	if len(msg) >= 4 && [4]byte(msg[:4]) == transformID {
		th, err := UnmarshalTransformHeader(msg)
		if err != nil {
			return err
		}
		if sess == nil || sess.dec == nil || th.SessionID != sess.id {
			return fmt.Errorf("smb2: encrypted message for unknown session 0x%x", th.SessionID)
		}
		if msg, err = decrypt(sess.dec, msg); err != nil {
			return fmt.Errorf("smb2: decrypting a message: %w", err)
		}
		encrypted = true
	}
	for {
		h, err := UnmarshalHeader(msg)
		if err != nil {
			return err
		}
		one := msg
		if h.NextCommand != 0 {
			if int(h.NextCommand) < HeaderSize || int(h.NextCommand) > len(msg) {
				return malformed("header: NextCommand %d in a %d-byte message", h.NextCommand, len(msg))
			}
			one = msg[:h.NextCommand]
		}
		c.deliver(sess, h, one, encrypted)
		if h.NextCommand == 0 {
			return nil
		}
		msg = msg[h.NextCommand:]
	}
}

func (c *Conn) deliver(sess *sessionState, h Header, raw []byte, encrypted bool) {
	body := raw[HeaderSize:]
	c.mu.Lock()
	if h.Credits > 0 && c.err == nil {
		c.credits += int(h.Credits)
		close(c.creditsCh)
		c.creditsCh = make(chan struct{})
	}
	if h.MessageID == UnsolicitedMessageID {
		if h.Command == CmdOplockBreak {
			if b, err := UnmarshalBreak(body); err == nil {
				c.breakQ = append(c.breakQ, b)
				select {
				case c.breakCh <- struct{}{}:
				default:
				}
			}
		}
		c.mu.Unlock()
		return
	}
	cl := c.pending[h.MessageID]
	if cl == nil {
		c.mu.Unlock()
		return // the answer to an abandoned call
	}
	if h.Status == StatusPending && h.Flags&FlagAsyncCommand != 0 {
		cl.async, cl.asyncID = true, h.AsyncID
		c.mu.Unlock()
		if cl.trace != nil && cl.trace.Pending != nil {
			cl.trace.Pending(h.AsyncID)
		}
		return
	}
	delete(c.pending, h.MessageID)
	c.mu.Unlock()

	r := &response{hdr: h, body: body, raw: raw, encrypted: encrypted}
	if sess != nil && h.SessionID == sess.id && !encrypted && h.Command != CmdSessionSetup {
		switch {
		case h.Flags&FlagSigned != 0:
			if err := verify(sess.keys.dialect, sess.keys.signing, raw); err != nil {
				r.err = fmt.Errorf("%w (%s, message %d)", err, h.Command, h.MessageID)
			}
		case sess.encrypt:
			r.err = fmt.Errorf("smb2: unencrypted %s response on an encrypted session", h.Command)
		case sess.sign:
			r.err = fmt.Errorf("smb2: unsigned %s response (%s) on a signed session", h.Command, h.Status)
		}
	}
	cl.ch <- r
}

// dispatchBreaks hands queued break notifications to OnBreak one at a time.
func (c *Conn) dispatchBreaks() {
	for {
		select {
		case <-c.breakCh:
		case <-c.done:
			return
		}
		for {
			c.mu.Lock()
			if len(c.breakQ) == 0 {
				c.mu.Unlock()
				break
			}
			b := c.breakQ[0]
			c.breakQ = c.breakQ[1:]
			c.mu.Unlock()
			if c.opts.OnBreak != nil {
				c.opts.OnBreak(b)
			} else {
				c.autoAck(b)
			}
		}
	}
}

// autoAck acknowledges a break with the state the server asks for.
func (c *Conn) autoAck(b *Break) {
	c.mu.Lock()
	s := c.sess
	c.mu.Unlock()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var req Request
	switch {
	case b.Lease != nil && b.Lease.AckRequired():
		req = &LeaseBreakAck{Key: b.Lease.Key, State: b.Lease.NewState}
	case b.Oplock != nil:
		ack := OplockBreakAck(*b.Oplock)
		req = &ack
	default:
		return
	}
	_, _, _ = c.roundTrip(ctx, req, sendParams{sessionID: s.id, treeID: c.ackTree.Load()})
}

// Echo sends ECHO and waits for the answer.
func (c *Conn) Echo(ctx context.Context) error {
	c.mu.Lock()
	var p sendParams
	if c.sess != nil {
		p.sessionID = c.sess.id
	}
	c.mu.Unlock()
	r, _, err := c.roundTrip(ctx, EchoRequest, p)
	if err != nil {
		return err
	}
	return statusErr(r, CmdEcho)
}

// statusErr turns a response's error status into an *Error.
func statusErr(r *response, cmd Command, ok ...Status) error {
	if r.hdr.Status == StatusSuccess {
		return nil
	}
	for _, s := range ok {
		if r.hdr.Status == s {
			return nil
		}
	}
	return &Error{Command: cmd, Status: r.hdr.Status}
}
