package smb2

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rc4"
	"fmt"
	"strings"

	"golang.org/x/crypto/md4"
)

// NTLMSSP negotiate flags ([MS-NLMP] 2.2.2.5).
const (
	ntlmNegotiateUnicode          uint32 = 0x00000001
	ntlmRequestTarget             uint32 = 0x00000004
	ntlmNegotiateSign             uint32 = 0x00000010
	ntlmNegotiateSeal             uint32 = 0x00000020
	ntlmNegotiateNTLM             uint32 = 0x00000200
	ntlmNegotiateAlwaysSign       uint32 = 0x00008000
	ntlmNegotiateExtendedSecurity uint32 = 0x00080000
	ntlmNegotiateTargetInfo       uint32 = 0x00800000
	ntlmNegotiateVersion          uint32 = 0x02000000
	ntlmNegotiate128              uint32 = 0x20000000
	ntlmNegotiateKeyExch          uint32 = 0x40000000
	ntlmNegotiate56               uint32 = 0x80000000

	// ntlmClientFlags is what this client asks for: NTLMv2 with extended
	// session security, signing, 128-bit keys and key exchange.
	ntlmClientFlags = ntlmNegotiateUnicode | ntlmRequestTarget | ntlmNegotiateSign | ntlmNegotiateNTLM |
		ntlmNegotiateAlwaysSign | ntlmNegotiateExtendedSecurity | ntlmNegotiateTargetInfo |
		ntlmNegotiateVersion | ntlmNegotiate128 | ntlmNegotiateKeyExch | ntlmNegotiate56
)

// AV pair ids ([MS-NLMP] 2.2.2.1).
const (
	avEOL       uint16 = 0
	avFlags     uint16 = 6
	avTimestamp uint16 = 7
	avFlagMIC   uint32 = 0x2
)

var ntlmSignature = []byte("NTLMSSP\x00")

// ntlmVersion is the VERSION structure sent (6.1.7600, NTLM revision 15);
// servers only log it.
var ntlmVersion = []byte{6, 1, 0xB0, 0x1D, 0, 0, 0, 15}

// NTLMNegotiate builds the NTLMSSP NEGOTIATE_MESSAGE with the given flags.
func NTLMNegotiate(flags uint32) []byte {
	b := append([]byte(nil), ntlmSignature...)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, flags)
	b = append(b, make([]byte, 16)...) // empty DomainName and Workstation fields
	return append(b, ntlmVersion...)
}

// NTLMChallenge is a decoded NTLMSSP CHALLENGE_MESSAGE ([MS-NLMP] 2.2.1.2).
type NTLMChallenge struct {
	Flags           uint32
	ServerChallenge [8]byte
	TargetName      string
	TargetInfo      []byte // AV pairs, raw
}

// ParseNTLMChallenge decodes a CHALLENGE_MESSAGE.
func ParseNTLMChallenge(b []byte) (*NTLMChallenge, error) {
	if len(b) < 48 || !bytes.Equal(b[:8], ntlmSignature) || le.Uint32(b[8:]) != 2 {
		return nil, malformed("NTLM challenge (%d bytes)", len(b))
	}
	c := &NTLMChallenge{Flags: le.Uint32(b[20:])}
	copy(c.ServerChallenge[:], b[24:32])
	tn, ok := span(b, int(le.Uint32(b[16:])), int(le.Uint16(b[12:])))
	if !ok {
		return nil, malformed("NTLM challenge: TargetName outside the message")
	}
	c.TargetName = fromUTF16le(tn)
	ti, ok := span(b, int(le.Uint32(b[44:])), int(le.Uint16(b[40:])))
	if !ok {
		return nil, malformed("NTLM challenge: TargetInfo outside the message")
	}
	if _, err := parseAVPairs(ti); err != nil {
		return nil, err
	}
	c.TargetInfo = ti
	return c, nil
}

type avPair struct {
	id   uint16
	data []byte
}

func parseAVPairs(b []byte) ([]avPair, error) {
	var out []avPair
	for off := 0; ; {
		h, ok := span(b, off, 4)
		if !ok {
			return nil, malformed("NTLM AV pairs: no MsvAvEOL")
		}
		id := le.Uint16(h)
		d, ok := span(b, off+4, int(le.Uint16(h[2:])))
		if !ok {
			return nil, malformed("NTLM AV pair %d outside the buffer", id)
		}
		if id == avEOL {
			return out, nil
		}
		out = append(out, avPair{id, d})
		off += 4 + len(d)
	}
}

func appendAVPair(b []byte, id uint16, d []byte) []byte {
	b = le.AppendUint16(b, id)
	b = le.AppendUint16(b, uint16(len(d)))
	return append(b, d...)
}

// ntowfv2 is NTOWFv2 ([MS-NLMP] 3.3.2): HMAC-MD5 keyed with the MD4 of the
// UTF-16 password over the UTF-16 of the upper-cased user and the domain.
func ntowfv2(user, password, domain string) []byte {
	h := md4.New()
	h.Write(utf16le(password))
	m := hmac.New(md5.New, h.Sum(nil))
	m.Write(utf16le(strings.ToUpper(user) + domain))
	return m.Sum(nil)
}

func hmacMD5(key []byte, parts ...[]byte) []byte {
	m := hmac.New(md5.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// ntlmV2Response computes the NTLMv2 response ([MS-NLMP] 3.3.2): the
// NtChallengeResponse (NTProofStr followed by temp), the LMv2 response and
// the session base key. targetInfo is the AV pair list put in temp.
func ntlmV2Response(respKey []byte, serverChallenge, clientChallenge [8]byte, timestamp uint64, targetInfo []byte) (nt, lm, sessionBaseKey []byte) {
	temp := []byte{1, 1, 0, 0, 0, 0, 0, 0}
	temp = le.AppendUint64(temp, timestamp)
	temp = append(temp, clientChallenge[:]...)
	temp = append(temp, 0, 0, 0, 0)
	temp = append(temp, targetInfo...)
	temp = append(temp, 0, 0, 0, 0)
	proof := hmacMD5(respKey, serverChallenge[:], temp)
	nt = append(proof, temp...)
	lm = append(hmacMD5(respKey, serverChallenge[:], clientChallenge[:]), clientChallenge[:]...)
	return nt, lm, hmacMD5(respKey, proof)
}

func rc4Once(key, data []byte) []byte {
	c, err := rc4.NewCipher(key)
	if err != nil {
		panic(err)
	}
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

// ntlmAuth holds what one NTLM exchange produced.
type ntlmAuth struct {
	negotiate, challenge, authenticate []byte
	exportedSessionKey                 []byte
	flags                              uint32
	micSent                            bool
}

// ntlmAuthenticate builds the AUTHENTICATE_MESSAGE ([MS-NLMP] 2.2.1.3,
// 3.1.5.1.2) for an NTLMv2 logon. random supplies the client challenge and
// the exported session key; now is the FILETIME used when the server sent
// none.
func ntlmAuthenticate(user, password, domain, workstation string, negotiate, challengeMsg []byte, clientChallenge [8]byte, exportedKey []byte, now uint64) (*ntlmAuth, error) {
	ch, err := ParseNTLMChallenge(challengeMsg)
	if err != nil {
		return nil, err
	}
	if ch.Flags&ntlmNegotiateExtendedSecurity == 0 {
		return nil, fmt.Errorf("smb2: the server's NTLM challenge does not offer extended session security (NTLMv2 needs it)")
	}
	pairs, _ := parseAVPairs(ch.TargetInfo)
	ts, haveTS := uint64(0), false
	for _, p := range pairs {
		if p.id == avTimestamp && len(p.data) == 8 {
			ts, haveTS = le.Uint64(p.data), true
		}
	}
	// The target info sent back: the server's pairs, plus MsvAvFlags saying
	// a MIC is present when the server sent a timestamp.
	var ti []byte
	for _, p := range pairs {
		if p.id == avFlags {
			continue
		}
		ti = appendAVPair(ti, p.id, p.data)
	}
	if haveTS {
		ti = appendAVPair(ti, avFlags, le.AppendUint32(nil, avFlagMIC))
	} else {
		ts = now
	}
	ti = appendAVPair(ti, avEOL, nil)

	respKey := ntowfv2(user, password, domain)
	nt, lm, baseKey := ntlmV2Response(respKey, ch.ServerChallenge, clientChallenge, ts, ti)
	if haveTS {
		lm = make([]byte, 24) // [MS-NLMP] 3.1.5.1.2: no LMv2 with a timestamp
	}
	flags := ntlmClientFlags & ch.Flags
	a := &ntlmAuth{negotiate: negotiate, challenge: challengeMsg, flags: flags, micSent: haveTS}
	var encKey []byte
	if flags&ntlmNegotiateKeyExch != 0 {
		a.exportedSessionKey = append([]byte(nil), exportedKey...)
		encKey = rc4Once(baseKey, exportedKey)
	} else {
		a.exportedSessionKey = baseKey
	}

	// The fixed part is 88 bytes: fields, flags, version and MIC.
	const fixedLen = 88
	payload := []struct{ b []byte }{
		{lm}, {nt}, {utf16le(domain)}, {utf16le(user)}, {utf16le(workstation)}, {encKey},
	}
	msg := make([]byte, fixedLen)
	copy(msg, ntlmSignature)
	le.PutUint32(msg[8:], 3)
	off := fixedLen
	fieldAt := []int{12, 20, 28, 36, 44, 52}
	for i, p := range payload {
		le.PutUint16(msg[fieldAt[i]:], uint16(len(p.b)))
		le.PutUint16(msg[fieldAt[i]+2:], uint16(len(p.b)))
		le.PutUint32(msg[fieldAt[i]+4:], uint32(off))
		off += len(p.b)
	}
	le.PutUint32(msg[60:], flags)
	copy(msg[64:72], ntlmVersion)
	for _, p := range payload {
		msg = append(msg, p.b...)
	}
	if haveTS {
		copy(msg[72:88], ntlmMIC(a.exportedSessionKey, negotiate, challengeMsg, msg))
	}
	a.authenticate = msg
	return a, nil
}

// ntlmMIC is the MIC of an AUTHENTICATE_MESSAGE ([MS-NLMP] 3.1.5.1.2):
// HMAC-MD5 under the exported session key over the three messages, with
// the MIC field of auth taken as zero.
func ntlmMIC(exportedKey, negotiate, challenge, auth []byte) []byte {
	a := append([]byte(nil), auth...)
	clear(a[72:88])
	return hmacMD5(exportedKey, negotiate, challenge, a)
}

// ntlmMechListMIC is the NTLMSSP message signature ([MS-NLMP] 3.4.4.2,
// extended session security, first message: sequence number 0) over data,
// as SPNEGO's mechListMIC uses it.
func ntlmMechListMIC(exportedKey []byte, flags uint32, data []byte) []byte {
	signKey := md5.Sum(append(append([]byte(nil), exportedKey...), "session key to client-to-server signing key magic constant\x00"...))
	sealKey := md5.Sum(append(append([]byte(nil), exportedKey...), "session key to client-to-server sealing key magic constant\x00"...))
	seq := []byte{0, 0, 0, 0}
	checksum := hmacMD5(signKey[:], seq, data)[:8]
	if flags&ntlmNegotiateKeyExch != 0 {
		checksum = rc4Once(sealKey[:], checksum)
	}
	out := le.AppendUint32(nil, 1)
	out = append(out, checksum...)
	return append(out, seq...)
}
