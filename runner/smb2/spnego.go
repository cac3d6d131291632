package smb2

import (
	"encoding/asn1"
	"fmt"
)

// SPNEGO ([RFC 4178], [MS-SPNG]) wraps the NTLM messages in SESSION_SETUP.
var (
	oidSPNEGO  = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 2}
	oidNTLMSSP = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 2, 2, 10}
)

// negTokenInit is NegTokenInit without reqFlags (RFC 4178 4.2.1).
type negTokenInit struct {
	MechTypes []asn1.ObjectIdentifier `asn1:"explicit,tag:0"`
	MechToken []byte                  `asn1:"explicit,optional,tag:2"`
}

// negTokenResp is NegTokenResp (RFC 4178 4.2.2).
type negTokenResp struct {
	NegState      asn1.Enumerated       `asn1:"explicit,optional,default:-1,tag:0"`
	SupportedMech asn1.ObjectIdentifier `asn1:"explicit,optional,tag:1"`
	ResponseToken []byte                `asn1:"explicit,optional,tag:2"`
	MechListMIC   []byte                `asn1:"explicit,optional,tag:3"`
}

// negState values.
const (
	negAcceptCompleted  = 0
	negAcceptIncomplete = 1
	negReject           = 2
)

// spnegoMechTypes is the DER MechTypeList this client offers (only NTLM);
// the mechListMIC is computed over exactly these bytes.
func spnegoMechTypes() []byte {
	b, _ := asn1.Marshal([]asn1.ObjectIdentifier{oidNTLMSSP})
	return b
}

// spnegoInit wraps the first NTLM message in a GSS-API InitialContextToken
// holding a NegTokenInit ([RFC 2743] 3.1, [RFC 4178] 4.2.1).
func spnegoInit(mechToken []byte) ([]byte, error) {
	inner, err := asn1.Marshal(negTokenInit{MechTypes: []asn1.ObjectIdentifier{oidNTLMSSP}, MechToken: mechToken})
	if err != nil {
		return nil, err
	}
	choice, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: inner})
	if err != nil {
		return nil, err
	}
	oid, _ := asn1.Marshal(oidSPNEGO)
	return asn1.Marshal(asn1.RawValue{Class: asn1.ClassApplication, Tag: 0, IsCompound: true, Bytes: append(oid, choice...)})
}

// spnegoResp wraps a later NTLM message (and the mechListMIC) in a
// NegTokenResp.
func spnegoResp(token, mechListMIC []byte) ([]byte, error) {
	inner, err := asn1.Marshal(negTokenResp{NegState: -1, ResponseToken: token, MechListMIC: mechListMIC})
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 1, IsCompound: true, Bytes: inner})
}

// parseSPNEGOResp decodes the server's NegTokenResp.
func parseSPNEGOResp(b []byte) (*negTokenResp, error) {
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(b, &raw)
	if err != nil {
		return nil, fmt.Errorf("smb2: SPNEGO response: %w", err)
	}
	if len(rest) > 0 || raw.Class != asn1.ClassContextSpecific || raw.Tag != 1 {
		return nil, malformed("SPNEGO response: not a NegTokenResp (class %d tag %d)", raw.Class, raw.Tag)
	}
	r := &negTokenResp{NegState: -1}
	if _, err := asn1.Unmarshal(raw.Bytes, r); err != nil {
		return nil, fmt.Errorf("smb2: SPNEGO NegTokenResp: %w", err)
	}
	return r, nil
}

// spnegoOffersNTLM reports whether the server's NegTokenInit2 (in the
// NEGOTIATE response) lists NTLMSSP; an empty token means "any".
func spnegoOffersNTLM(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	var outer asn1.RawValue
	if _, err := asn1.Unmarshal(b, &outer); err != nil || outer.Class != asn1.ClassApplication {
		return false
	}
	var oid asn1.ObjectIdentifier
	rest, err := asn1.Unmarshal(outer.Bytes, &oid)
	if err != nil || !oid.Equal(oidSPNEGO) {
		return false
	}
	var choice asn1.RawValue
	if _, err := asn1.Unmarshal(rest, &choice); err != nil || choice.Tag != 0 {
		return false
	}
	var seq asn1.RawValue
	if _, err := asn1.Unmarshal(choice.Bytes, &seq); err != nil {
		return false
	}
	for rest := seq.Bytes; len(rest) > 0; {
		var el asn1.RawValue
		if rest, err = asn1.Unmarshal(rest, &el); err != nil {
			return false
		}
		if el.Class != asn1.ClassContextSpecific || el.Tag != 0 {
			continue
		}
		var mechs []asn1.ObjectIdentifier
		if _, err := asn1.Unmarshal(el.Bytes, &mechs); err != nil {
			return false
		}
		for _, m := range mechs {
			if m.Equal(oidNTLMSSP) {
				return true
			}
		}
	}
	return false
}
