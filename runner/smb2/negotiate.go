package smb2

import "fmt"

// Dialect is an SMB2 dialect revision.
type Dialect uint16

// Dialects this client speaks ([MS-SMB2] 2.2.3).
const (
	Dialect202 Dialect = 0x0202
	Dialect210 Dialect = 0x0210
	Dialect300 Dialect = 0x0300
	Dialect302 Dialect = 0x0302
	Dialect311 Dialect = 0x0311
)

func (d Dialect) String() string {
	switch d {
	case Dialect202:
		return "2.0.2"
	case Dialect210:
		return "2.1"
	case Dialect300:
		return "3.0"
	case Dialect302:
		return "3.0.2"
	case Dialect311:
		return "3.1.1"
	}
	return fmt.Sprintf("dialect(0x%04X)", uint16(d))
}

// Is3 reports whether d is of the SMB 3.x family.
func (d Dialect) Is3() bool { return d >= Dialect300 }

// Security modes and global capabilities ([MS-SMB2] 2.2.3).
const (
	SigningEnabled  uint16 = 0x0001
	SigningRequired uint16 = 0x0002

	CapDFS               uint32 = 0x00000001
	CapLeasing           uint32 = 0x00000002
	CapLargeMTU          uint32 = 0x00000004
	CapMultiChannel      uint32 = 0x00000008
	CapPersistentHandles uint32 = 0x00000010
	CapDirectoryLeasing  uint32 = 0x00000020
	CapEncryption        uint32 = 0x00000040
)

// Negotiate context types, hash algorithms and ciphers ([MS-SMB2] 2.2.3.1).
const (
	ctxPreauthIntegrity uint16 = 0x0001
	ctxEncryption       uint16 = 0x0002

	HashSHA512 uint16 = 0x0001
)

// Cipher is an SMB 3 encryption algorithm id.
type Cipher uint16

// Ciphers this client implements.
const (
	CipherNone      Cipher = 0x0000
	CipherAES128CCM Cipher = 0x0001
	CipherAES128GCM Cipher = 0x0002
)

func (c Cipher) String() string {
	switch c {
	case CipherNone:
		return "none"
	case CipherAES128CCM:
		return "AES-128-CCM"
	case CipherAES128GCM:
		return "AES-128-GCM"
	}
	return fmt.Sprintf("cipher(0x%04X)", uint16(c))
}

// NegotiateContext is one negotiate context of SMB 3.1.1: a type and its
// data (decoded by the Preauth and Ciphers helpers).
type NegotiateContext struct {
	Type uint16
	Data []byte
}

// PreauthContext builds an SMB2_PREAUTH_INTEGRITY_CAPABILITIES context.
func PreauthContext(salt []byte, hashes ...uint16) NegotiateContext {
	d := le.AppendUint16(nil, uint16(len(hashes)))
	d = le.AppendUint16(d, uint16(len(salt)))
	for _, h := range hashes {
		d = le.AppendUint16(d, h)
	}
	return NegotiateContext{Type: ctxPreauthIntegrity, Data: append(d, salt...)}
}

// EncryptionContext builds an SMB2_ENCRYPTION_CAPABILITIES context.
func EncryptionContext(ciphers ...Cipher) NegotiateContext {
	d := le.AppendUint16(nil, uint16(len(ciphers)))
	for _, c := range ciphers {
		d = le.AppendUint16(d, uint16(c))
	}
	return NegotiateContext{Type: ctxEncryption, Data: d}
}

// Preauth decodes a preauth integrity context: its hash ids and salt.
func (c NegotiateContext) Preauth() (hashes []uint16, salt []byte, err error) {
	if c.Type != ctxPreauthIntegrity || len(c.Data) < 4 {
		return nil, nil, malformed("preauth integrity context")
	}
	n, sl := int(le.Uint16(c.Data)), int(le.Uint16(c.Data[2:]))
	if len(c.Data) < 4+2*n+sl {
		return nil, nil, malformed("preauth integrity context: %d hashes and %d-byte salt in %d bytes", n, sl, len(c.Data))
	}
	for i := range n {
		hashes = append(hashes, le.Uint16(c.Data[4+2*i:]))
	}
	return hashes, c.Data[4+2*n : 4+2*n+sl], nil
}

// Ciphers decodes an encryption capabilities context.
func (c NegotiateContext) Ciphers() ([]Cipher, error) {
	if c.Type != ctxEncryption || len(c.Data) < 2 {
		return nil, malformed("encryption context")
	}
	n := int(le.Uint16(c.Data))
	if len(c.Data) < 2+2*n {
		return nil, malformed("encryption context: %d ciphers in %d bytes", n, len(c.Data))
	}
	out := make([]Cipher, n)
	for i := range out {
		out[i] = Cipher(le.Uint16(c.Data[2+2*i:]))
	}
	return out, nil
}

// appendContexts appends 8-byte-aligned negotiate contexts; the body began
// at b[start] and b must already be 8-aligned relative to the header start.
func appendContexts(b []byte, start int, ctxs []NegotiateContext) []byte {
	for i, c := range ctxs {
		b = le.AppendUint16(b, c.Type)
		b = le.AppendUint16(b, uint16(len(c.Data)))
		b = le.AppendUint32(b, 0)
		b = append(b, c.Data...)
		if i < len(ctxs)-1 {
			for (len(b)-start+HeaderSize)%8 != 0 {
				b = append(b, 0)
			}
		}
	}
	return b
}

// parseContexts decodes n negotiate contexts from b (b starts 8-aligned).
func parseContexts(b []byte, n int) ([]NegotiateContext, error) {
	var out []NegotiateContext
	off := 0
	for i := range n {
		off = (off + 7) &^ 7
		hdr, ok := span(b, off, 8)
		if !ok {
			return nil, malformed("negotiate context %d: header outside the message", i)
		}
		l := int(le.Uint16(hdr[2:]))
		d, ok := span(b, off+8, l)
		if !ok {
			return nil, malformed("negotiate context %d: %d data bytes outside the message", i, l)
		}
		out = append(out, NegotiateContext{Type: le.Uint16(hdr), Data: d})
		off += 8 + l
	}
	return out, nil
}

// NegotiateRequest is SMB2 NEGOTIATE ([MS-SMB2] 2.2.3).
type NegotiateRequest struct {
	SecurityMode uint16
	Capabilities uint32
	ClientGUID   [16]byte
	Dialects     []Dialect
	Contexts     []NegotiateContext // sent only when Dialects has 3.1.1
}

func (*NegotiateRequest) Command() Command { return CmdNegotiate }

func (r *NegotiateRequest) AppendBody(b []byte) []byte {
	start := len(b)
	b = le.AppendUint16(b, 36)
	b = le.AppendUint16(b, uint16(len(r.Dialects)))
	b = le.AppendUint16(b, r.SecurityMode)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, r.Capabilities)
	b = append(b, r.ClientGUID[:]...)
	ctxOffAt := len(b)
	b = le.AppendUint32(b, 0) // NegotiateContextOffset, or ClientStartTime
	b = le.AppendUint16(b, uint16(len(r.Contexts)))
	b = le.AppendUint16(b, 0)
	for _, d := range r.Dialects {
		b = le.AppendUint16(b, uint16(d))
	}
	if len(r.Contexts) > 0 {
		for (len(b)-start+HeaderSize)%8 != 0 {
			b = append(b, 0)
		}
		le.PutUint32(b[ctxOffAt:], uint32(len(b)-start+HeaderSize))
		b = appendContexts(b, start, r.Contexts)
	}
	return b
}

// UnmarshalNegotiateRequest decodes a NEGOTIATE request body (for tests and
// stream stages).
func UnmarshalNegotiateRequest(body []byte) (*NegotiateRequest, error) {
	if err := fixed("NEGOTIATE request", body, 36, 36); err != nil {
		return nil, err
	}
	r := &NegotiateRequest{SecurityMode: le.Uint16(body[4:]), Capabilities: le.Uint32(body[8:])}
	copy(r.ClientGUID[:], body[12:28])
	n := int(le.Uint16(body[2:]))
	ds, ok := span(body, 36, 2*n)
	if !ok {
		return nil, malformed("NEGOTIATE request: %d dialects", n)
	}
	for i := range n {
		r.Dialects = append(r.Dialects, Dialect(le.Uint16(ds[2*i:])))
	}
	if nc := int(le.Uint16(body[32:])); nc > 0 {
		off := int(le.Uint32(body[28:])) - HeaderSize
		if off < 0 || off > len(body) {
			return nil, malformed("NEGOTIATE request: context offset %d", off+HeaderSize)
		}
		cs, err := parseContexts(body[off:], nc)
		if err != nil {
			return nil, err
		}
		r.Contexts = cs
	}
	return r, nil
}

// NegotiateResponse is the server's answer to NEGOTIATE.
type NegotiateResponse struct {
	SecurityMode    uint16
	Dialect         Dialect
	ServerGUID      [16]byte
	Capabilities    uint32
	MaxTransactSize uint32
	MaxReadSize     uint32
	MaxWriteSize    uint32
	SystemTime      uint64
	ServerStartTime uint64
	SecurityBuffer  []byte
	Contexts        []NegotiateContext
}

// UnmarshalNegotiateResponse decodes a NEGOTIATE response body.
func UnmarshalNegotiateResponse(body []byte) (*NegotiateResponse, error) {
	if err := fixed("NEGOTIATE response", body, 65, 64); err != nil {
		return nil, err
	}
	r := &NegotiateResponse{
		SecurityMode:    le.Uint16(body[2:]),
		Dialect:         Dialect(le.Uint16(body[4:])),
		Capabilities:    le.Uint32(body[24:]),
		MaxTransactSize: le.Uint32(body[28:]),
		MaxReadSize:     le.Uint32(body[32:]),
		MaxWriteSize:    le.Uint32(body[36:]),
		SystemTime:      le.Uint64(body[40:]),
		ServerStartTime: le.Uint64(body[48:]),
	}
	copy(r.ServerGUID[:], body[8:24])
	sb, err := bufferAt("NEGOTIATE response", body, int(le.Uint16(body[56:])), int(le.Uint16(body[58:])))
	if err != nil {
		return nil, err
	}
	r.SecurityBuffer = sb
	if r.Dialect == Dialect311 {
		nc := int(le.Uint16(body[6:]))
		off := int(le.Uint32(body[60:])) - HeaderSize
		if nc > 0 {
			if off < 0 || off > len(body) {
				return nil, malformed("NEGOTIATE response: context offset %d", off+HeaderSize)
			}
			cs, err := parseContexts(body[off:], nc)
			if err != nil {
				return nil, err
			}
			r.Contexts = cs
		}
	}
	return r, nil
}
