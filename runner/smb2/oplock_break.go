package smb2

// Lease break flags ([MS-SMB2] 2.2.23.2).
const LeaseBreakAckRequired uint32 = 0x01

// Break is an unsolicited oplock or lease break notification from the
// server ([MS-SMB2] 2.2.23). Exactly one of Oplock and Lease is set.
type Break struct {
	Oplock *OplockBreak
	Lease  *LeaseBreak
}

// OplockBreak is an oplock break notification (and, as a request, its
// acknowledgement).
type OplockBreak struct {
	OplockLevel uint8
	FileID      FileID
}

// LeaseBreak is a lease break notification.
type LeaseBreak struct {
	NewEpoch       uint16
	Flags          uint32
	Key            [16]byte
	CurrentState   LeaseState
	NewState       LeaseState
	BreakReason    uint32
	AccessMaskHint uint32
	ShareMaskHint  uint32
}

// AckRequired reports whether the server waits for an acknowledgement.
func (b *LeaseBreak) AckRequired() bool { return b.Flags&LeaseBreakAckRequired != 0 }

// UnmarshalBreak decodes a break notification body: 24 bytes for an oplock
// break, 44 for a lease break.
func UnmarshalBreak(body []byte) (*Break, error) {
	if len(body) < 2 {
		return nil, errShort
	}
	switch le.Uint16(body) {
	case 24:
		if len(body) < 24 {
			return nil, errShort
		}
		return &Break{Oplock: &OplockBreak{OplockLevel: body[2], FileID: readFileID(body[8:])}}, nil
	case 44:
		if len(body) < 44 {
			return nil, errShort
		}
		lb := &LeaseBreak{
			NewEpoch:       le.Uint16(body[2:]),
			Flags:          le.Uint32(body[4:]),
			CurrentState:   LeaseState(le.Uint32(body[24:])),
			NewState:       LeaseState(le.Uint32(body[28:])),
			BreakReason:    le.Uint32(body[32:]),
			AccessMaskHint: le.Uint32(body[36:]),
			ShareMaskHint:  le.Uint32(body[40:]),
		}
		copy(lb.Key[:], body[8:24])
		return &Break{Lease: lb}, nil
	}
	return nil, malformed("OPLOCK_BREAK: StructureSize %d", le.Uint16(body))
}

// OplockBreakAck acknowledges an oplock break ([MS-SMB2] 2.2.24.1).
type OplockBreakAck OplockBreak

func (*OplockBreakAck) Command() Command { return CmdOplockBreak }

func (r *OplockBreakAck) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 24)
	b = append(b, r.OplockLevel, 0)
	b = le.AppendUint32(b, 0)
	return r.FileID.append(b)
}

// LeaseBreakAck acknowledges a lease break ([MS-SMB2] 2.2.24.2).
type LeaseBreakAck struct {
	Key   [16]byte
	State LeaseState
}

func (*LeaseBreakAck) Command() Command { return CmdOplockBreak }

func (r *LeaseBreakAck) AppendBody(b []byte) []byte {
	b = le.AppendUint16(b, 36)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0) // Flags
	b = append(b, r.Key[:]...)
	b = le.AppendUint32(b, uint32(r.State))
	return le.AppendUint64(b, 0) // LeaseDuration
}

// UnmarshalLeaseBreakAckResponse decodes the server's answer to a lease
// break acknowledgement: the lease state now held.
func UnmarshalLeaseBreakAckResponse(body []byte) (key [16]byte, state LeaseState, err error) {
	if err := fixed("lease break acknowledgement response", body, 36, 36); err != nil {
		return key, 0, err
	}
	copy(key[:], body[8:24])
	return key, LeaseState(le.Uint32(body[24:])), nil
}
