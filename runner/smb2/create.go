package smb2

import "fmt"

// Access masks ([MS-SMB2] 2.2.13.1.1).
const (
	FileReadData        uint32 = 0x00000001
	FileWriteData       uint32 = 0x00000002
	FileAppendData      uint32 = 0x00000004
	FileReadEA          uint32 = 0x00000008
	FileWriteEA         uint32 = 0x00000010
	FileExecute         uint32 = 0x00000020
	FileDeleteChild     uint32 = 0x00000040
	FileReadAttributes  uint32 = 0x00000080
	FileWriteAttributes uint32 = 0x00000100
	Delete              uint32 = 0x00010000
	ReadControl         uint32 = 0x00020000
	WriteDAC            uint32 = 0x00040000
	WriteOwner          uint32 = 0x00080000
	Synchronize         uint32 = 0x00100000
	MaximumAllowed      uint32 = 0x02000000
	GenericAll          uint32 = 0x10000000
	GenericExecute      uint32 = 0x20000000
	GenericWrite        uint32 = 0x40000000
	GenericRead         uint32 = 0x80000000
)

// Share access ([MS-SMB2] 2.2.13).
const (
	ShareRead   uint32 = 0x00000001
	ShareWrite  uint32 = 0x00000002
	ShareDelete uint32 = 0x00000004
	ShareNone   uint32 = 0
	ShareAll           = ShareRead | ShareWrite | ShareDelete
)

// CreateDisposition says what CREATE does when the file exists or not.
type CreateDisposition uint32

// Create dispositions ([MS-SMB2] 2.2.13).
const (
	FileSupersede   CreateDisposition = 0
	FileOpen        CreateDisposition = 1
	FileCreate      CreateDisposition = 2
	FileOpenIf      CreateDisposition = 3
	FileOverwrite   CreateDisposition = 4
	FileOverwriteIf CreateDisposition = 5
)

// Create options ([MS-SMB2] 2.2.13).
const (
	FileDirectoryFile    uint32 = 0x00000001
	FileWriteThrough     uint32 = 0x00000002
	FileSequentialOnly   uint32 = 0x00000004
	FileNonDirectoryFile uint32 = 0x00000040
	FileRandomAccess     uint32 = 0x00000800
	FileDeleteOnClose    uint32 = 0x00001000
	FileOpenReparsePoint uint32 = 0x00200000
)

// File attributes ([MS-FSCC] 2.6).
const (
	FileAttributeReadonly  uint32 = 0x00000001
	FileAttributeHidden    uint32 = 0x00000002
	FileAttributeDirectory uint32 = 0x00000010
	FileAttributeArchive   uint32 = 0x00000020
	FileAttributeNormal    uint32 = 0x00000080
)

// Oplock levels ([MS-SMB2] 2.2.13).
const (
	OplockNone      uint8 = 0x00
	OplockII        uint8 = 0x01
	OplockExclusive uint8 = 0x08
	OplockBatch     uint8 = 0x09
	OplockLease     uint8 = 0xFF
)

// Impersonation levels.
const ImpersonationImpersonation uint32 = 2

// Create actions in a CREATE response.
const (
	FileSuperseded  uint32 = 0
	FileOpened      uint32 = 1
	FileCreated     uint32 = 2
	FileOverwritten uint32 = 3
)

// LeaseState is a set of lease caching bits.
type LeaseState uint32

// Lease states ([MS-SMB2] 2.2.13.2.8).
const (
	LeaseNone   LeaseState = 0
	LeaseRead   LeaseState = 0x01
	LeaseHandle LeaseState = 0x02
	LeaseWrite  LeaseState = 0x04
)

func (s LeaseState) String() string {
	if s == 0 {
		return "none"
	}
	out := ""
	for _, x := range []struct {
		bit LeaseState
		c   string
	}{{LeaseRead, "R"}, {LeaseWrite, "W"}, {LeaseHandle, "H"}} {
		if s&x.bit != 0 {
			out += x.c
		}
	}
	if rest := s &^ (LeaseRead | LeaseWrite | LeaseHandle); rest != 0 {
		out += fmt.Sprintf("+0x%x", uint32(rest))
	}
	return out
}

// Lease is a lease request or grant (the RqLs create context). Version 2
// carries ParentLeaseKey and Epoch; version 1 is used on dialect 2.1.
type Lease struct {
	Version        int // 1 or 2
	Key            [16]byte
	State          LeaseState
	Flags          uint32
	ParentLeaseKey [16]byte
	Epoch          uint16
}

// CreateContext is one create context: a name ("RqLs", "DHnQ", ...) and data.
type CreateContext struct {
	Name string
	Data []byte
}

// Create context names.
const (
	ContextRequestLease = "RqLs"
)

// LeaseContext builds the RqLs create context for l.
func LeaseContext(l Lease) CreateContext {
	d := append([]byte(nil), l.Key[:]...)
	d = le.AppendUint32(d, uint32(l.State))
	d = le.AppendUint32(d, l.Flags)
	d = le.AppendUint64(d, 0) // LeaseDuration
	if l.Version >= 2 {
		d = append(d, l.ParentLeaseKey[:]...)
		d = le.AppendUint16(d, l.Epoch)
		d = le.AppendUint16(d, 0)
	}
	return CreateContext{Name: ContextRequestLease, Data: d}
}

// ParseLease decodes a lease context (v1 at 32 bytes, v2 at 52).
func ParseLease(data []byte) (Lease, error) {
	var l Lease
	switch {
	case len(data) >= 52:
		l.Version = 2
		copy(l.ParentLeaseKey[:], data[32:48])
		l.Epoch = le.Uint16(data[48:])
	case len(data) >= 32:
		l.Version = 1
	default:
		return l, malformed("lease context of %d bytes", len(data))
	}
	copy(l.Key[:], data[:16])
	l.State = LeaseState(le.Uint32(data[16:]))
	l.Flags = le.Uint32(data[20:])
	return l, nil
}

// appendCreateContexts appends the chained contexts; the body began at
// b[start]. Each context starts 8-aligned.
func appendCreateContexts(b []byte, start int, ctxs []CreateContext) []byte {
	for i, c := range ctxs {
		for (len(b)-start+HeaderSize)%8 != 0 {
			b = append(b, 0)
		}
		at := len(b)
		name := []byte(c.Name)
		dataOff := 0
		if len(c.Data) > 0 {
			dataOff = (16 + len(name) + 7) &^ 7
		}
		b = le.AppendUint32(b, 0) // Next, patched below
		b = le.AppendUint16(b, 16)
		b = le.AppendUint16(b, uint16(len(name)))
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, uint16(dataOff))
		b = le.AppendUint32(b, uint32(len(c.Data)))
		b = append(b, name...)
		if len(c.Data) > 0 {
			for len(b)-at < dataOff {
				b = append(b, 0)
			}
			b = append(b, c.Data...)
		}
		if i < len(ctxs)-1 {
			for (len(b)-start+HeaderSize)%8 != 0 {
				b = append(b, 0)
			}
			le.PutUint32(b[at:], uint32(len(b)-at))
		}
	}
	return b
}

// parseCreateContexts decodes a chain of create contexts.
func parseCreateContexts(b []byte) ([]CreateContext, error) {
	var out []CreateContext
	off := 0
	for i := 0; ; i++ {
		if i > 64 {
			return nil, malformed("create contexts: more than 64")
		}
		h, ok := span(b, off, 16)
		if !ok {
			return nil, malformed("create context %d: header outside the buffer", i)
		}
		next := int(le.Uint32(h))
		name, ok1 := span(b, off+int(le.Uint16(h[4:])), int(le.Uint16(h[6:])))
		var data []byte
		ok2 := true
		if dl := int(le.Uint32(h[12:])); dl > 0 {
			data, ok2 = span(b, off+int(le.Uint16(h[10:])), dl)
		}
		if !ok1 || !ok2 {
			return nil, malformed("create context %d: name or data outside the buffer", i)
		}
		out = append(out, CreateContext{Name: string(name), Data: data})
		if next == 0 {
			return out, nil
		}
		if next < 16 {
			return nil, malformed("create context %d: Next %d", i, next)
		}
		off += next
	}
}

// CreateRequest is SMB2 CREATE ([MS-SMB2] 2.2.13).
type CreateRequest struct {
	OplockLevel        uint8
	ImpersonationLevel uint32
	DesiredAccess      uint32
	FileAttributes     uint32
	ShareAccess        uint32
	Disposition        CreateDisposition
	CreateOptions      uint32
	Name               string // relative to the share, without a leading backslash
	Contexts           []CreateContext
}

func (*CreateRequest) Command() Command { return CmdCreate }

func (r *CreateRequest) AppendBody(b []byte) []byte {
	start := len(b)
	name := utf16le(r.Name)
	b = le.AppendUint16(b, 57)
	b = append(b, 0, r.OplockLevel)
	b = le.AppendUint32(b, r.ImpersonationLevel)
	b = le.AppendUint64(b, 0) // SmbCreateFlags
	b = le.AppendUint64(b, 0) // Reserved
	b = le.AppendUint32(b, r.DesiredAccess)
	b = le.AppendUint32(b, r.FileAttributes)
	b = le.AppendUint32(b, r.ShareAccess)
	b = le.AppendUint32(b, uint32(r.Disposition))
	b = le.AppendUint32(b, r.CreateOptions)
	b = le.AppendUint16(b, HeaderSize+56)
	b = le.AppendUint16(b, uint16(len(name)))
	ctxAt := len(b)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0)
	b = append(b, name...)
	if len(name) == 0 {
		b = append(b, 0) // the buffer is never empty
	}
	if len(r.Contexts) > 0 {
		for (len(b)-start+HeaderSize)%8 != 0 {
			b = append(b, 0)
		}
		off := len(b) - start + HeaderSize
		b = appendCreateContexts(b, start, r.Contexts)
		le.PutUint32(b[ctxAt:], uint32(off))
		le.PutUint32(b[ctxAt+4:], uint32(len(b)-start+HeaderSize-off))
	}
	return b
}

// UnmarshalCreateRequest decodes a CREATE request body (for stream stages
// and tests).
func UnmarshalCreateRequest(body []byte) (*CreateRequest, error) {
	if err := fixed("CREATE request", body, 57, 56); err != nil {
		return nil, err
	}
	r := &CreateRequest{
		OplockLevel:        body[3],
		ImpersonationLevel: le.Uint32(body[4:]),
		DesiredAccess:      le.Uint32(body[24:]),
		FileAttributes:     le.Uint32(body[28:]),
		ShareAccess:        le.Uint32(body[32:]),
		Disposition:        CreateDisposition(le.Uint32(body[36:])),
		CreateOptions:      le.Uint32(body[40:]),
	}
	name, err := bufferAt("CREATE request", body, int(le.Uint16(body[44:])), int(le.Uint16(body[46:])))
	if err != nil {
		return nil, err
	}
	r.Name = fromUTF16le(name)
	if cb, err := bufferAt("CREATE request", body, int(le.Uint32(body[48:])), int(le.Uint32(body[52:]))); err != nil {
		return nil, err
	} else if cb != nil {
		if r.Contexts, err = parseCreateContexts(cb); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// CreateResponse is the server's answer to CREATE.
type CreateResponse struct {
	OplockLevel    uint8
	Flags          uint8
	CreateAction   uint32
	CreationTime   uint64
	LastAccessTime uint64
	LastWriteTime  uint64
	ChangeTime     uint64
	AllocationSize uint64
	EndOfFile      uint64
	FileAttributes uint32
	FileID         FileID
	Contexts       []CreateContext
}

// Lease returns the granted lease, if the response carries one.
func (r *CreateResponse) Lease() (Lease, bool) {
	for _, c := range r.Contexts {
		if c.Name == ContextRequestLease {
			if l, err := ParseLease(c.Data); err == nil {
				return l, true
			}
		}
	}
	return Lease{}, false
}

// UnmarshalCreateResponse decodes a CREATE response body.
func UnmarshalCreateResponse(body []byte) (*CreateResponse, error) {
	if err := fixed("CREATE response", body, 89, 88); err != nil {
		return nil, err
	}
	r := &CreateResponse{
		OplockLevel:    body[2],
		Flags:          body[3],
		CreateAction:   le.Uint32(body[4:]),
		CreationTime:   le.Uint64(body[8:]),
		LastAccessTime: le.Uint64(body[16:]),
		LastWriteTime:  le.Uint64(body[24:]),
		ChangeTime:     le.Uint64(body[32:]),
		AllocationSize: le.Uint64(body[40:]),
		EndOfFile:      le.Uint64(body[48:]),
		FileAttributes: le.Uint32(body[56:]),
		FileID:         readFileID(body[64:]),
	}
	cb, err := bufferAt("CREATE response", body, int(le.Uint32(body[80:])), int(le.Uint32(body[84:])))
	if err != nil {
		return nil, err
	}
	if cb != nil {
		if r.Contexts, err = parseCreateContexts(cb); err != nil {
			return nil, err
		}
	}
	return r, nil
}
