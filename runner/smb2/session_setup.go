package smb2

// Session flags in a SESSION_SETUP response ([MS-SMB2] 2.2.6).
const (
	SessionFlagIsGuest     uint16 = 0x0001
	SessionFlagIsNull      uint16 = 0x0002
	SessionFlagEncryptData uint16 = 0x0004
)

// SessionSetupRequest is SMB2 SESSION_SETUP ([MS-SMB2] 2.2.5).
type SessionSetupRequest struct {
	Flags             uint8
	SecurityMode      uint8
	Capabilities      uint32
	PreviousSessionID uint64
	SecurityBuffer    []byte
}

func (*SessionSetupRequest) Command() Command { return CmdSessionSetup }

func (r *SessionSetupRequest) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 25)
	b = append(b, r.Flags, r.SecurityMode)
	b = le.AppendUint32(b, r.Capabilities)
	b = le.AppendUint32(b, 0) // Channel
	b = le.AppendUint16(b, HeaderSize+24)
	b = le.AppendUint16(b, uint16(len(r.SecurityBuffer)))
	b = le.AppendUint64(b, r.PreviousSessionID)
	return append(b, r.SecurityBuffer...)
}

// SessionSetupResponse is the server's answer to SESSION_SETUP.
type SessionSetupResponse struct {
	SessionFlags   uint16
	SecurityBuffer []byte
}

// UnmarshalSessionSetupResponse decodes a SESSION_SETUP response body.
func UnmarshalSessionSetupResponse(body []byte) (*SessionSetupResponse, error) {
	if err := fixed("SESSION_SETUP response", body, 9, 8); err != nil {
		return nil, err
	}
	sb, err := bufferAt("SESSION_SETUP response", body, int(le.Uint16(body[4:])), int(le.Uint16(body[6:])))
	if err != nil {
		return nil, err
	}
	return &SessionSetupResponse{SessionFlags: le.Uint16(body[2:]), SecurityBuffer: sb}, nil
}

// emptyRequest is a request whose body is a StructureSize of 4 and two
// reserved bytes: LOGOFF, TREE_DISCONNECT, ECHO and CANCEL.
type emptyRequest Command

func (r emptyRequest) Command() Command { return Command(r) }

func (emptyRequest) AppendBody(b []byte) []byte {
	return le.AppendUint32(b, 4)
}

// The bodiless requests.
var (
	LogoffRequest         = emptyRequest(CmdLogoff)
	TreeDisconnectRequest = emptyRequest(CmdTreeDisconnect)
	EchoRequest           = emptyRequest(CmdEcho)
	CancelRequest         = emptyRequest(CmdCancel)
)

// TreeConnectRequest is SMB2 TREE_CONNECT ([MS-SMB2] 2.2.9).
type TreeConnectRequest struct {
	Flags uint16
	Path  string // \\server\share
}

func (*TreeConnectRequest) Command() Command { return CmdTreeConnect }

func (r *TreeConnectRequest) AppendBody(b []byte) []byte {
	p := utf16le(r.Path)
	b = le.AppendUint16(b, 9)
	b = le.AppendUint16(b, r.Flags)
	b = le.AppendUint16(b, HeaderSize+8)
	b = le.AppendUint16(b, uint16(len(p)))
	return append(b, p...)
}

// Share flags and types in a TREE_CONNECT response ([MS-SMB2] 2.2.10).
const (
	ShareTypeDisk        uint8  = 0x01
	ShareTypePipe        uint8  = 0x02
	ShareTypePrint       uint8  = 0x03
	ShareFlagEncryptData uint32 = 0x00008000
)

// TreeConnectResponse is the server's answer to TREE_CONNECT.
type TreeConnectResponse struct {
	ShareType     uint8
	ShareFlags    uint32
	Capabilities  uint32
	MaximalAccess uint32
}

// UnmarshalTreeConnectResponse decodes a TREE_CONNECT response body.
func UnmarshalTreeConnectResponse(body []byte) (*TreeConnectResponse, error) {
	if err := fixed("TREE_CONNECT response", body, 16, 16); err != nil {
		return nil, err
	}
	return &TreeConnectResponse{
		ShareType:     body[2],
		ShareFlags:    le.Uint32(body[4:]),
		Capabilities:  le.Uint32(body[8:]),
		MaximalAccess: le.Uint32(body[12:]),
	}, nil
}
