package smb2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

var le = binary.LittleEndian

// errShort is wrapped by every unmarshal that runs out of bytes.
var errShort = errors.New("smb2: message too short")

// malformed is the error of a message that cannot be decoded.
func malformed(what string, args ...any) error {
	return fmt.Errorf("smb2: malformed %s", fmt.Sprintf(what, args...))
}

// span returns b[off:off+n] when it lies inside b.
func span(b []byte, off, n int) ([]byte, bool) {
	if off < 0 || n < 0 || off > len(b) || n > len(b)-off {
		return nil, false
	}
	return b[off : off+n], true
}

// utf16le encodes s as UTF-16LE without a terminator.
func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		le.PutUint16(b[2*i:], c)
	}
	return b
}

// fromUTF16le decodes UTF-16LE (an odd trailing byte is ignored).
func fromUTF16le(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = le.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// pad8 appends zero bytes until len(b) is a multiple of 8.
func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// FileID identifies an open on the server.
type FileID struct {
	Persistent, Volatile uint64
}

func (f FileID) append(b []byte) []byte {
	b = le.AppendUint64(b, f.Persistent)
	return le.AppendUint64(b, f.Volatile)
}

func readFileID(b []byte) FileID {
	return FileID{Persistent: le.Uint64(b), Volatile: le.Uint64(b[8:])}
}

// fixed checks that body has at least n bytes and that its StructureSize is
// want, and names the message when not.
func fixed(name string, body []byte, want uint16, n int) error {
	if len(body) < n {
		return fmt.Errorf("%w: %s has %d bytes, needs %d", errShort, name, len(body), n)
	}
	if got := le.Uint16(body); got != want {
		return malformed("%s: StructureSize %d, want %d", name, got, want)
	}
	return nil
}

// bufferAt returns the bytes of a buffer given by an offset counted from
// the start of the SMB2 header (as every SMB2 offset is) and a length, out
// of body (which starts HeaderSize bytes after the header).
func bufferAt(name string, body []byte, off, n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	b, ok := span(body, off-HeaderSize, n)
	if !ok {
		return nil, malformed("%s: buffer at %d+%d outside the %d-byte message", name, off, n, HeaderSize+len(body))
	}
	return b, nil
}
