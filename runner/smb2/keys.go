package smb2

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
)

// kdf is the SP800-108 key derivation in counter mode with HMAC-SHA256, as
// SMB 3 uses it ([MS-SMB2] 3.1.4.2): one iteration, r = 32, L = 128.
func kdf(key, label, context []byte) []byte {
	m := hmac.New(sha256.New, key)
	var i [4]byte
	binary.BigEndian.PutUint32(i[:], 1)
	m.Write(i[:])
	m.Write(label)
	m.Write([]byte{0})
	m.Write(context)
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], 128)
	m.Write(l[:])
	return m.Sum(nil)[:16]
}

// sessionKeys are the keys of one SMB2 session, from the client's side.
type sessionKeys struct {
	dialect    Dialect
	signing    []byte // the session key itself for 2.x
	encryption []byte // client to server
	decryption []byte // server to client
	cipher     Cipher
}

// deriveKeys computes the signing, encryption and decryption keys of a
// session ([MS-SMB2] 3.2.5.3.1). sessionKey is the first 16 bytes of the
// GSS session key; preauth is the session's pre-auth integrity hash (3.1.1).
func deriveKeys(d Dialect, c Cipher, sessionKey, preauth []byte) sessionKeys {
	k := make([]byte, 16)
	copy(k, sessionKey)
	ks := sessionKeys{dialect: d, cipher: c}
	switch {
	case d == Dialect311:
		ks.signing = kdf(k, []byte("SMBSigningKey\x00"), preauth)
		ks.encryption = kdf(k, []byte("SMBC2SCipherKey\x00"), preauth)
		ks.decryption = kdf(k, []byte("SMBS2CCipherKey\x00"), preauth)
	case d.Is3():
		ks.signing = kdf(k, []byte("SMB2AESCMAC\x00"), []byte("SmbSign\x00"))
		ks.encryption = kdf(k, []byte("SMB2AESCCM\x00"), []byte("ServerIn \x00"))
		ks.decryption = kdf(k, []byte("SMB2AESCCM\x00"), []byte("ServerOut\x00"))
	default:
		ks.signing = k
	}
	return ks
}

// signature computes the signature of msg (a whole SMB2 message whose
// Signature field is taken as zero): HMAC-SHA256 for 2.x, AES-CMAC for 3.x.
func signature(d Dialect, key, msg []byte) [16]byte {
	var saved [16]byte
	copy(saved[:], msg[48:64])
	clear(msg[48:64])
	defer copy(msg[48:64], saved[:])
	var out [16]byte
	if d.Is3() {
		out = aesCMAC(key, msg)
	} else {
		m := hmac.New(sha256.New, key)
		m.Write(msg)
		copy(out[:], m.Sum(nil))
	}
	return out
}

// sign sets the signed flag and the signature of msg.
func sign(d Dialect, key, msg []byte) {
	le.PutUint32(msg[16:], le.Uint32(msg[16:])|FlagSigned)
	s := signature(d, key, msg)
	copy(msg[48:64], s[:])
}

var errBadSignature = errors.New("smb2: response signature does not verify")

// verify checks the signature of a received message.
func verify(d Dialect, key, msg []byte) error {
	s := signature(d, key, msg)
	if subtle.ConstantTimeCompare(s[:], msg[48:64]) != 1 {
		return errBadSignature
	}
	return nil
}

// TransformHeaderSize is the size of the SMB2 TRANSFORM_HEADER.
const TransformHeaderSize = 52

// TransformHeader precedes an encrypted SMB2 message ([MS-SMB2] 2.2.41).
type TransformHeader struct {
	Signature           [16]byte
	Nonce               [16]byte
	OriginalMessageSize uint32
	Flags               uint16 // Flags (3.1.1) / EncryptionAlgorithm (3.0): 1 = encrypted
	SessionID           uint64
}

// Append appends the 52-byte transform header to b.
func (t *TransformHeader) Append(b []byte) []byte {
	b = append(b, transformID[:]...)
	b = append(b, t.Signature[:]...)
	b = append(b, t.Nonce[:]...)
	b = le.AppendUint32(b, t.OriginalMessageSize)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, t.Flags)
	return le.AppendUint64(b, t.SessionID)
}

// UnmarshalTransformHeader decodes the transform header at the start of msg.
func UnmarshalTransformHeader(msg []byte) (TransformHeader, error) {
	var t TransformHeader
	if len(msg) < TransformHeaderSize {
		return t, errShort
	}
	if [4]byte(msg[:4]) != transformID {
		return t, malformed("transform header: protocol id % x", msg[:4])
	}
	copy(t.Signature[:], msg[4:20])
	copy(t.Nonce[:], msg[20:36])
	t.OriginalMessageSize = le.Uint32(msg[36:])
	t.Flags = le.Uint16(msg[42:])
	t.SessionID = le.Uint64(msg[44:])
	return t, nil
}

// aead returns the AEAD for cipher c under key, and its nonce size.
func aead(c Cipher, key []byte) (cipher.AEAD, error) {
	blk, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	switch c {
	case CipherAES128GCM:
		return cipher.NewGCM(blk)
	case CipherAES128CCM:
		return newCCM(blk, 11)
	}
	return nil, errors.New("smb2: no cipher negotiated")
}

// encrypt wraps msg in a transform header: the header without its
// ProtocolId and Signature is the additional data, the tag is the
// signature ([MS-SMB2] 3.1.4.3). nonce holds the 16-byte Nonce field (only
// its first 11 or 12 bytes are the AEAD nonce).
func encrypt(a cipher.AEAD, sessionID uint64, nonce [16]byte, msg []byte) []byte {
	th := TransformHeader{Nonce: nonce, OriginalMessageSize: uint32(len(msg)), Flags: 1, SessionID: sessionID}
	out := th.Append(make([]byte, 0, TransformHeaderSize+len(msg)+a.Overhead()))
	sealed := a.Seal(out[TransformHeaderSize:], nonce[:a.NonceSize()], msg, out[20:TransformHeaderSize])
	out = out[:TransformHeaderSize+len(msg)]
	copy(out[4:20], sealed[len(msg):])
	return out
}

// decrypt opens a message wrapped in a transform header.
func decrypt(a cipher.AEAD, msg []byte) ([]byte, error) {
	th, err := UnmarshalTransformHeader(msg)
	if err != nil {
		return nil, err
	}
	body := msg[TransformHeaderSize:]
	if int(th.OriginalMessageSize) != len(body) {
		return nil, malformed("transform header: OriginalMessageSize %d for %d bytes", th.OriginalMessageSize, len(body))
	}
	ct := make([]byte, 0, len(body)+16)
	ct = append(append(ct, body...), th.Signature[:]...)
	return a.Open(ct[:0], th.Nonce[:a.NonceSize()], ct, msg[20:TransformHeaderSize])
}
