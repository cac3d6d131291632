package smb2

import "fmt"

// HeaderSize is the size of the SMB2 header.
const HeaderSize = 64

// protocolID is 0xFE 'S' 'M' 'B'; transformID marks an encrypted message.
var (
	protocolID  = [4]byte{0xFE, 'S', 'M', 'B'}
	transformID = [4]byte{0xFD, 'S', 'M', 'B'}
)

// Command is an SMB2 command code.
type Command uint16

// SMB2 commands ([MS-SMB2] 2.2.1).
const (
	CmdNegotiate      Command = 0x0000
	CmdSessionSetup   Command = 0x0001
	CmdLogoff         Command = 0x0002
	CmdTreeConnect    Command = 0x0003
	CmdTreeDisconnect Command = 0x0004
	CmdCreate         Command = 0x0005
	CmdClose          Command = 0x0006
	CmdFlush          Command = 0x0007
	CmdRead           Command = 0x0008
	CmdWrite          Command = 0x0009
	CmdLock           Command = 0x000A
	CmdIoctl          Command = 0x000B
	CmdCancel         Command = 0x000C
	CmdEcho           Command = 0x000D
	CmdQueryDirectory Command = 0x000E
	CmdChangeNotify   Command = 0x000F
	CmdQueryInfo      Command = 0x0010
	CmdSetInfo        Command = 0x0011
	CmdOplockBreak    Command = 0x0012
)

var commandNames = [...]string{"NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT",
	"CREATE", "CLOSE", "FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY",
	"CHANGE_NOTIFY", "QUERY_INFO", "SET_INFO", "OPLOCK_BREAK"}

func (c Command) String() string {
	if int(c) < len(commandNames) {
		return commandNames[c]
	}
	return fmt.Sprintf("COMMAND(0x%04X)", uint16(c))
}

// Header flags ([MS-SMB2] 2.2.1.2).
const (
	FlagServerToRedir uint32 = 0x00000001
	FlagAsyncCommand  uint32 = 0x00000002
	FlagRelated       uint32 = 0x00000004
	FlagSigned        uint32 = 0x00000008
)

// UnsolicitedMessageID is the MessageId of a server's oplock or lease break
// notification.
const UnsolicitedMessageID = 0xFFFFFFFFFFFFFFFF

// Header is the SMB2 packet header, sync or async form.
type Header struct {
	CreditCharge uint16
	// Status is the server's status in a response; in a request it holds
	// the ChannelSequence (3.x) and is 0 here.
	Status      Status
	Command     Command
	Credits     uint16 // CreditRequest in a request, CreditResponse in a response
	Flags       uint32
	NextCommand uint32
	MessageID   uint64
	AsyncID     uint64 // when Flags has FlagAsyncCommand
	ProcessID   uint32 // the sync form's Reserved field
	TreeID      uint32
	SessionID   uint64
	Signature   [16]byte
}

// Append appends the 64-byte header to b.
func (h *Header) Append(b []byte) []byte {
	b = append(b, protocolID[:]...)
	b = le.AppendUint16(b, HeaderSize)
	b = le.AppendUint16(b, h.CreditCharge)
	b = le.AppendUint32(b, uint32(h.Status))
	b = le.AppendUint16(b, uint16(h.Command))
	b = le.AppendUint16(b, h.Credits)
	b = le.AppendUint32(b, h.Flags)
	b = le.AppendUint32(b, h.NextCommand)
	b = le.AppendUint64(b, h.MessageID)
	if h.Flags&FlagAsyncCommand != 0 {
		b = le.AppendUint64(b, h.AsyncID)
	} else {
		b = le.AppendUint32(b, h.ProcessID)
		b = le.AppendUint32(b, h.TreeID)
	}
	b = le.AppendUint64(b, h.SessionID)
	return append(b, h.Signature[:]...)
}

// UnmarshalHeader decodes the header at the start of msg.
func UnmarshalHeader(msg []byte) (Header, error) {
	var h Header
	if len(msg) < HeaderSize {
		return h, fmt.Errorf("%w: %d bytes, an SMB2 header needs %d", errShort, len(msg), HeaderSize)
	}
	if [4]byte(msg[:4]) != protocolID {
		return h, malformed("header: protocol id % x", msg[:4])
	}
	if le.Uint16(msg[4:]) != HeaderSize {
		return h, malformed("header: StructureSize %d", le.Uint16(msg[4:]))
	}
	h.CreditCharge = le.Uint16(msg[6:])
	h.Status = Status(le.Uint32(msg[8:]))
	h.Command = Command(le.Uint16(msg[12:]))
	h.Credits = le.Uint16(msg[14:])
	h.Flags = le.Uint32(msg[16:])
	h.NextCommand = le.Uint32(msg[20:])
	h.MessageID = le.Uint64(msg[24:])
	if h.Flags&FlagAsyncCommand != 0 {
		h.AsyncID = le.Uint64(msg[32:])
	} else {
		h.ProcessID = le.Uint32(msg[32:])
		h.TreeID = le.Uint32(msg[36:])
	}
	h.SessionID = le.Uint64(msg[40:])
	copy(h.Signature[:], msg[48:64])
	return h, nil
}

// ErrorResponse is the body of a response whose status is an error
// ([MS-SMB2] 2.2.2).
type ErrorResponse struct {
	ErrorContextCount uint8
	Data              []byte
}

// UnmarshalErrorResponse decodes an error response body.
func UnmarshalErrorResponse(body []byte) (*ErrorResponse, error) {
	if err := fixed("ERROR", body, 9, 8); err != nil {
		return nil, err
	}
	r := &ErrorResponse{ErrorContextCount: body[2]}
	n := int(le.Uint32(body[4:]))
	if d, ok := span(body, 8, n); ok {
		r.Data = d
	}
	return r, nil
}
