package checks

import "strconv"

// ReqID is a request id as a checker keeps it, without a string of its
// own: a UUID (as Azure and Azurite send) as its 16 bytes, a decimal number
// (as some endpoints send) as its value, or none. Keep says whether it
// could; String gives back exactly the id it kept.
type ReqID struct {
	b    [16]byte
	form uint8 // reqNone, reqUUID or reqDecimal
}

const (
	reqNone uint8 = iota
	reqUUID
	reqDecimal
)

// Keep keeps s if it is empty, a UUID as ParseUUID reads it, or a decimal
// number of 1 to 19 digits without a leading zero (so that String writes it
// back the same); else it keeps nothing and returns false.
func (r *ReqID) Keep(s string) bool {
	switch {
	case s == "":
		*r = ReqID{}
		return true
	case ParseUUID(s, &r.b):
		r.form = reqUUID
		return true
	}
	*r = ReqID{}
	if len(s) > 19 || s[0] == '0' && len(s) > 1 {
		return false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + uint64(c-'0')
	}
	r.form = reqDecimal
	for i := range 8 {
		r.b[i] = byte(n >> (8 * i))
	}
	return true
}

// String is the request id kept ("" for none).
func (r *ReqID) String() string {
	switch r.form {
	case reqUUID:
		return FormatUUID(&r.b)
	case reqDecimal:
		var n uint64
		for i := range 8 {
			n |= uint64(r.b[i]) << (8 * i)
		}
		return strconv.FormatUint(n, 10)
	}
	return ""
}
