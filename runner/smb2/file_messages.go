package smb2

// CloseRequest is SMB2 CLOSE ([MS-SMB2] 2.2.15).
type CloseRequest struct {
	Flags  uint16
	FileID FileID
}

func (*CloseRequest) Command() Command { return CmdClose }

func (r *CloseRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 24)
	b = le.AppendUint16(b, r.Flags)
	b = le.AppendUint32(b, 0)
	return r.FileID.append(b)
}

// FlushRequest is SMB2 FLUSH ([MS-SMB2] 2.2.17).
type FlushRequest struct{ FileID FileID }

func (*FlushRequest) Command() Command { return CmdFlush }

func (r *FlushRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 24)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0)
	return r.FileID.append(b)
}

// ReadRequest is SMB2 READ ([MS-SMB2] 2.2.19).
type ReadRequest struct {
	Length       uint32
	Offset       uint64
	FileID       FileID
	MinimumCount uint32
}

func (*ReadRequest) Command() Command { return CmdRead }

func (r *ReadRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 49)
	b = append(b, 0x50, 0) // Padding (where the data goes in the response), Flags
	b = le.AppendUint32(b, r.Length)
	b = le.AppendUint64(b, r.Offset)
	b = r.FileID.append(b)
	b = le.AppendUint32(b, r.MinimumCount)
	b = le.AppendUint32(b, 0) // Channel
	b = le.AppendUint32(b, 0) // RemainingBytes
	b = le.AppendUint32(b, 0) // ReadChannelInfoOffset, Length
	return append(b, 0)
}

func (r *ReadRequest) payloadSize() int { return int(r.Length) }

// ReadResponse is the server's answer to READ.
type ReadResponse struct {
	Data          []byte
	DataRemaining uint32
}

// UnmarshalReadResponse decodes a READ response body.
func UnmarshalReadResponse(body []byte) (*ReadResponse, error) {
	if err := fixed("READ response", body, 17, 16); err != nil {
		return nil, err
	}
	d, err := bufferAt("READ response", body, int(body[2]), int(le.Uint32(body[4:])))
	if err != nil {
		return nil, err
	}
	return &ReadResponse{Data: d, DataRemaining: le.Uint32(body[8:])}, nil
}

// WriteRequest is SMB2 WRITE ([MS-SMB2] 2.2.21).
type WriteRequest struct {
	Offset uint64
	FileID FileID
	Flags  uint32
	Data   []byte
}

func (*WriteRequest) Command() Command { return CmdWrite }

func (r *WriteRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 49)
	b = le.AppendUint16(b, HeaderSize+48)
	b = le.AppendUint32(b, uint32(len(r.Data)))
	b = le.AppendUint64(b, r.Offset)
	b = r.FileID.append(b)
	b = le.AppendUint32(b, 0) // Channel
	b = le.AppendUint32(b, 0) // RemainingBytes
	b = le.AppendUint32(b, 0) // WriteChannelInfoOffset, Length
	b = le.AppendUint32(b, r.Flags)
	if len(r.Data) == 0 {
		return append(b, 0)
	}
	return append(b, r.Data...)
}

func (r *WriteRequest) payloadSize() int { return len(r.Data) }

// WriteResponse is the server's answer to WRITE.
type WriteResponse struct{ Count uint32 }

// UnmarshalWriteResponse decodes a WRITE response body.
func UnmarshalWriteResponse(body []byte) (*WriteResponse, error) {
	if err := fixed("WRITE response", body, 17, 16); err != nil {
		return nil, err
	}
	return &WriteResponse{Count: le.Uint32(body[4:])}, nil
}

// Lock flags ([MS-SMB2] 2.2.26.1).
const (
	LockShared          uint32 = 0x00000001
	LockExclusive       uint32 = 0x00000002
	LockUnlock          uint32 = 0x00000004
	LockFailImmediately uint32 = 0x00000010
)

// LockElement is one byte range to lock or unlock.
type LockElement struct {
	Offset, Length uint64
	Flags          uint32
}

// LockRequest is SMB2 LOCK ([MS-SMB2] 2.2.26).
type LockRequest struct {
	LockSequence uint32 // LockSequenceNumber (4 bits) and LockSequenceIndex (28 bits)
	FileID       FileID
	Locks        []LockElement
}

func (*LockRequest) Command() Command { return CmdLock }

func (r *LockRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 48)
	b = le.AppendUint16(b, uint16(len(r.Locks)))
	b = le.AppendUint32(b, r.LockSequence)
	b = r.FileID.append(b)
	for _, l := range r.Locks {
		b = le.AppendUint64(b, l.Offset)
		b = le.AppendUint64(b, l.Length)
		b = le.AppendUint32(b, l.Flags)
		b = le.AppendUint32(b, 0)
	}
	return b
}

// UnmarshalLockRequest decodes a LOCK request body (for stream stages and
// tests).
func UnmarshalLockRequest(body []byte) (*LockRequest, error) {
	if err := fixed("LOCK request", body, 48, 24); err != nil {
		return nil, err
	}
	n := int(le.Uint16(body[2:]))
	ls, ok := span(body, 24, 24*n)
	if !ok || n == 0 {
		return nil, malformed("LOCK request: %d locks in %d bytes", n, len(body))
	}
	r := &LockRequest{LockSequence: le.Uint32(body[4:]), FileID: readFileID(body[8:])}
	for i := range n {
		e := ls[24*i:]
		r.Locks = append(r.Locks, LockElement{Offset: le.Uint64(e), Length: le.Uint64(e[8:]), Flags: le.Uint32(e[16:])})
	}
	return r, nil
}

// UnmarshalLockResponse checks a LOCK response body (it carries nothing).
func UnmarshalLockResponse(body []byte) error {
	return fixed("LOCK response", body, 4, 4)
}

// Info types and the file information classes this client uses
// ([MS-SMB2] 2.2.39, [MS-FSCC] 2.4).
const (
	InfoFile       uint8 = 0x01
	InfoFilesystem uint8 = 0x02

	FileDirectoryInformationClass   uint8 = 1
	FileBasicInformationClass       uint8 = 4
	FileStandardInformationClass    uint8 = 5
	FileDispositionInformationClass uint8 = 13
	FileEndOfFileInformationClass   uint8 = 20
)

// SetInfoRequest is SMB2 SET_INFO ([MS-SMB2] 2.2.39).
type SetInfoRequest struct {
	InfoType       uint8
	InfoClass      uint8
	AdditionalInfo uint32
	FileID         FileID
	Buffer         []byte
}

func (*SetInfoRequest) Command() Command { return CmdSetInfo }

func (r *SetInfoRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 33)
	b = append(b, r.InfoType, r.InfoClass)
	b = le.AppendUint32(b, uint32(len(r.Buffer)))
	b = le.AppendUint16(b, HeaderSize+32)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, r.AdditionalInfo)
	b = r.FileID.append(b)
	return append(b, r.Buffer...)
}

// UnmarshalSetInfoResponse checks a SET_INFO response body.
func UnmarshalSetInfoResponse(body []byte) error {
	return fixed("SET_INFO response", body, 2, 2)
}

// QueryInfoRequest is SMB2 QUERY_INFO ([MS-SMB2] 2.2.37).
type QueryInfoRequest struct {
	InfoType           uint8
	InfoClass          uint8
	OutputBufferLength uint32
	AdditionalInfo     uint32
	Flags              uint32
	FileID             FileID
}

func (*QueryInfoRequest) Command() Command { return CmdQueryInfo }

func (r *QueryInfoRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 41)
	b = append(b, r.InfoType, r.InfoClass)
	b = le.AppendUint32(b, r.OutputBufferLength)
	b = le.AppendUint16(b, 0) // InputBufferOffset
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0) // InputBufferLength
	b = le.AppendUint32(b, r.AdditionalInfo)
	b = le.AppendUint32(b, r.Flags)
	b = r.FileID.append(b)
	return append(b, 0)
}

func (r *QueryInfoRequest) payloadSize() int { return int(r.OutputBufferLength) }

// UnmarshalQueryInfoResponse decodes a QUERY_INFO response body: the
// output buffer.
func UnmarshalQueryInfoResponse(body []byte) ([]byte, error) {
	if err := fixed("QUERY_INFO response", body, 9, 8); err != nil {
		return nil, err
	}
	return bufferAt("QUERY_INFO response", body, int(le.Uint16(body[2:])), int(le.Uint32(body[4:])))
}

// StandardInfo is FileStandardInformation ([MS-FSCC] 2.4.41).
type StandardInfo struct {
	AllocationSize uint64
	EndOfFile      uint64
	NumberOfLinks  uint32
	DeletePending  bool
	Directory      bool
}

// ParseStandardInfo decodes FileStandardInformation.
func ParseStandardInfo(b []byte) (StandardInfo, error) {
	if len(b) < 22 {
		return StandardInfo{}, malformed("FileStandardInformation of %d bytes", len(b))
	}
	return StandardInfo{
		AllocationSize: le.Uint64(b),
		EndOfFile:      le.Uint64(b[8:]),
		NumberOfLinks:  le.Uint32(b[16:]),
		DeletePending:  b[20] != 0,
		Directory:      b[21] != 0,
	}, nil
}

// Query directory flags ([MS-SMB2] 2.2.33).
const (
	RestartScans      uint8 = 0x01
	ReturnSingleEntry uint8 = 0x02
	IndexSpecified    uint8 = 0x04
	Reopen            uint8 = 0x10
)

// QueryDirectoryRequest is SMB2 QUERY_DIRECTORY ([MS-SMB2] 2.2.33).
type QueryDirectoryRequest struct {
	InfoClass          uint8
	Flags              uint8
	FileIndex          uint32
	FileID             FileID
	Pattern            string
	OutputBufferLength uint32
}

func (*QueryDirectoryRequest) Command() Command { return CmdQueryDirectory }

func (r *QueryDirectoryRequest) AppendBody(b []byte) []byte {
	p := utf16le(r.Pattern)
	b = le.AppendUint16(b, 33)
	b = append(b, r.InfoClass, r.Flags)
	b = le.AppendUint32(b, r.FileIndex)
	b = r.FileID.append(b)
	b = le.AppendUint16(b, HeaderSize+32)
	b = le.AppendUint16(b, uint16(len(p)))
	b = le.AppendUint32(b, r.OutputBufferLength)
	if len(p) == 0 {
		return append(b, 0)
	}
	return append(b, p...)
}

func (r *QueryDirectoryRequest) payloadSize() int { return int(r.OutputBufferLength) }

// UnmarshalQueryDirectoryResponse decodes a QUERY_DIRECTORY response body:
// the output buffer.
func UnmarshalQueryDirectoryResponse(body []byte) ([]byte, error) {
	if err := fixed("QUERY_DIRECTORY response", body, 9, 8); err != nil {
		return nil, err
	}
	return bufferAt("QUERY_DIRECTORY response", body, int(le.Uint16(body[2:])), int(le.Uint32(body[4:])))
}

// DirEntry is one FileDirectoryInformation entry ([MS-FSCC] 2.4.10).
type DirEntry struct {
	Name           string
	EndOfFile      uint64
	AllocationSize uint64
	Attributes     uint32
	LastWriteTime  uint64
}

// IsDir reports whether the entry is a directory.
func (e DirEntry) IsDir() bool { return e.Attributes&FileAttributeDirectory != 0 }

// ParseDirectoryInformation decodes a buffer of FileDirectoryInformation
// entries.
func ParseDirectoryInformation(b []byte) ([]DirEntry, error) {
	var out []DirEntry
	off := 0
	for {
		e, ok := span(b, off, 64)
		if !ok {
			return nil, malformed("FileDirectoryInformation entry at %d of %d bytes", off, len(b))
		}
		name, ok := span(b, off+64, int(le.Uint32(e[60:])))
		if !ok {
			return nil, malformed("FileDirectoryInformation name at %d", off)
		}
		out = append(out, DirEntry{
			Name:           fromUTF16le(name),
			LastWriteTime:  le.Uint64(e[24:]),
			EndOfFile:      le.Uint64(e[40:]),
			AllocationSize: le.Uint64(e[48:]),
			Attributes:     le.Uint32(e[56:]),
		})
		next := int(le.Uint32(e))
		if next == 0 {
			return out, nil
		}
		if next < 64 {
			return nil, malformed("FileDirectoryInformation NextEntryOffset %d", next)
		}
		off += next
	}
}
