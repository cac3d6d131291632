package checks

import (
	"encoding/json"
	"unicode/utf8"
)

// opDecoder reads one history line into an Op without reflection: the
// reader's fast path. It knows the lines AppendJSONLine writes (any field
// order, any whitespace) and gives up on anything else: an escape in a
// string, a null, a number that is not a plain integer, a field it does not
// know, a table's or queue's nested answers (props, entities, messages).
// DecodeLine then reads the line with encoding/json, so every line decodes
// exactly as encoding/json decodes it; a test holds the two equal over ops
// with every field set at random, and a fuzz target over any bytes.
//
// It keeps one copy of each short workload, op, key and outcome name it
// has seen (up to internLimit of them): a history repeats a few of them
// millions of times, and the checkers hold them.
type opDecoder struct {
	b       []byte
	i       int
	scratch []byte // unescaped strings
	intern  map[string]string
}

const (
	internLimit  = 1 << 16
	internLonger = 64 // strings longer than this are not interned
)

// DecodeLine decodes one history line (without its newline) into op, which
// must be zero.
func (d *opDecoder) DecodeLine(b []byte, op *Op) error {
	if d.decode(b, op) {
		return nil
	}
	*op = Op{}
	return json.Unmarshal(b, op)
}

func (d *opDecoder) decode(b []byte, op *Op) bool {
	d.b, d.i = b, 0
	ok := d.object(func(name []byte) bool {
		switch string(name) {
		case "seq":
			v, ok := d.uint()
			op.Seq = v
			return ok
		case "actor":
			return d.intInto(&op.Actor)
		case "workload":
			return d.internStr(&op.Workload)
		case "op":
			return d.internStr(&op.Kind)
		case "key":
			return d.internStr(&op.Key)
		case "attempt":
			return d.intInto(&op.Attempt)
		case "intended_ns":
			return d.int64Into(&op.Intended)
		case "call_ns":
			return d.int64Into(&op.Call)
		case "return_ns":
			return d.int64Into(&op.Return)
		case "outcome":
			s, ok := d.rawStr()
			return ok && op.Outcome.UnmarshalText(s) == nil
		case "in":
			return d.input(&op.In)
		case "out":
			return d.output(&op.Out)
		}
		return false
	})
	d.ws()
	return ok && d.i == len(d.b)
}

func (d *opDecoder) input(in *Input) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "if_match":
			return d.str(&in.IfMatch)
		case "if_none_match":
			return d.str(&in.IfNoneMatch)
		case "if_modified_since":
			return d.str(&in.IfModifiedSince)
		case "if_unmodified_since":
			return d.str(&in.IfUnmodifiedSince)
		case "lease_id":
			return d.str(&in.LeaseID)
		case "proposed_lease_id":
			return d.str(&in.ProposedLeaseID)
		case "lease_duration":
			return d.intInto(&in.LeaseDuration)
		case "break_period":
			return d.ptrInto(&in.BreakPeriod)
		case "value":
			return d.str(&in.Value)
		case "props":
			return d.strs(&in.Props)
		case "rows":
			return d.strs(&in.Rows)
		case "batch_fails":
			return d.str(&in.BatchFails)
		case "message_id":
			return d.str(&in.MessageID)
		case "pop_receipt":
			return d.str(&in.PopReceipt)
		case "visibility":
			return d.ptrInto(&in.Visibility)
		case "num_messages":
			return d.intInto(&in.NumMessages)
		case "filter":
			return d.str(&in.Filter)
		case "select":
			return d.strs(&in.Select)
		case "bytes":
			return d.int64Into(&in.Bytes)
		case "access":
			return d.intInto(&in.Access)
		case "share":
			return d.intInto(&in.Share)
		}
		return false
	})
}

func (d *opDecoder) output(out *Output) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "status":
			return d.intInto(&out.Status)
		case "error_code":
			return d.internStr(&out.ErrorCode)
		case "etag":
			return d.str(&out.ETag)
		case "request_id":
			return d.str(&out.RequestID)
		case "value":
			return d.str(&out.Value)
		case "last_modified":
			return d.str(&out.LastModified)
		case "lease_time":
			return d.ptrInto(&out.LeaseTime)
		case "scanned":
			return d.intInto(&out.Scanned)
		case "message_id":
			return d.str(&out.MessageID)
		case "pop_receipt":
			return d.str(&out.PopReceipt)
		case "next_visible":
			return d.str(&out.NextVisible)
		case "bytes":
			return d.int64Into(&out.Bytes)
		case "err":
			return d.str(&out.Err)
		case "fault":
			return d.internStr(&out.Fault)
		case "done":
			return d.boolInto(&out.Done)
		}
		return false // props, entities, messages: encoding/json reads them
	})
}

// ws skips JSON whitespace.
func (d *opDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *opDecoder) peek(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads {"name": value, ...}, handing each name to member, which
// reads the value.
func (d *opDecoder) object(member func(name []byte) bool) bool {
	if !d.peek('{') {
		return false
	}
	if d.peek('}') {
		return true
	}
	for {
		name, ok := d.rawStr()
		if !ok || !d.peek(':') || !member(name) {
			return false
		}
		if d.peek('}') {
			return true
		}
		if !d.peek(',') {
			return false
		}
	}
}

// rawStr reads a string in valid UTF-8 without control characters, its
// escapes undone (a \u escape of half a surrogate pair is left to
// encoding/json). The bytes are the line's own or the decoder's scratch
// buffer: valid until the next call.
func (d *opDecoder) rawStr() ([]byte, bool) {
	if !d.peek('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for ; d.i < len(d.b); d.i++ {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// escaped reads the rest of a string that has an escape at d.i, from
// start, into the scratch buffer.
func (d *opDecoder) escaped(start int) ([]byte, bool) {
	out := append(d.scratch[:0], d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			d.scratch = out
			return out, utf8.Valid(out)
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return nil, false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if d.i+4 > len(d.b) {
				return nil, false
			}
			var r rune
			for _, h := range d.b[d.i : d.i+4] {
				switch {
				case h >= '0' && h <= '9':
					h -= '0'
				case h >= 'a' && h <= 'f':
					h -= 'a' - 10
				case h >= 'A' && h <= 'F':
					h -= 'A' - 10
				default:
					return nil, false
				}
				r = r<<4 | rune(h)
			}
			if r >= 0xd800 && r < 0xe000 {
				return nil, false // a surrogate: encoding/json pairs it, or not
			}
			out = utf8.AppendRune(out, r)
			d.i += 4
		default:
			return nil, false
		}
	}
	return nil, false
}

func (d *opDecoder) str(into *string) bool {
	s, ok := d.rawStr()
	*into = string(s)
	return ok
}

// internStr reads a string, keeping one copy of each short one.
func (d *opDecoder) internStr(into *string) bool {
	s, ok := d.rawStr()
	if !ok {
		return false
	}
	if len(s) > internLonger {
		*into = string(s)
		return true
	}
	if v, found := d.intern[string(s)]; found {
		*into = v
		return true
	}
	v := string(s)
	if d.intern == nil {
		d.intern = map[string]string{}
	}
	if len(d.intern) < internLimit {
		d.intern[v] = v
	}
	*into = v
	return true
}

func (d *opDecoder) strs(into *[]string) bool {
	if !d.peek('[') {
		return false
	}
	v := []string{} // encoding/json sets an empty array to an empty slice, not nil
	if !d.peek(']') {
		for {
			var s string
			if !d.str(&s) {
				return false
			}
			v = append(v, s)
			if d.peek(']') {
				break
			}
			if !d.peek(',') {
				return false
			}
		}
	}
	*into = v
	return true
}

// uint reads a plain unsigned integer (no sign, fraction or exponent,
// no leading zero, no overflow).
func (d *opDecoder) uint() (uint64, bool) {
	d.ws()
	start := d.i
	var v uint64
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		c := uint64(d.b[d.i] - '0')
		if v > (1<<64-1-c)/10 {
			return 0, false
		}
		v = v*10 + c
		d.i++
	}
	n := d.i - start
	if n == 0 || n > 1 && d.b[start] == '0' || d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		return 0, false
	}
	return v, true
}

// int64 reads a plain integer that fits an int64.
func (d *opDecoder) int64() (int64, bool) {
	neg := d.peek('-')
	if neg && d.i < len(d.b) && (d.b[d.i] < '0' || d.b[d.i] > '9') {
		return 0, false // "- 1" is not a number
	}
	u, ok := d.uint()
	switch {
	case !ok:
		return 0, false
	case neg && u <= 1<<63:
		return -int64(u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

func (d *opDecoder) int64Into(into *int64) bool {
	v, ok := d.int64()
	*into = v
	return ok
}

func (d *opDecoder) intInto(into *int) bool {
	v, ok := d.int64()
	*into = int(v) // int is 64 bits where stormcheck builds
	return ok && int64(int(v)) == v
}

func (d *opDecoder) ptrInto(into **int) bool {
	var v int
	if !d.intInto(&v) {
		return false
	}
	if *into == nil {
		*into = new(int)
	}
	**into = v
	return true
}

func (d *opDecoder) boolInto(into *bool) bool {
	d.ws()
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*into, d.i = true, d.i+4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*into, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

// route reads only a line's workload and key into op (the rest is left
// zero and unread), for a caller that only routes records by key; false
// when the line has not both as plain members of an object before any
// member it cannot skip.
func (d *opDecoder) route(b []byte, op *Op) bool {
	d.b, d.i = b, 0
	if !d.peek('{') {
		return false
	}
	var haveW, haveK bool
	for !(haveW && haveK) {
		name, ok := d.rawStr()
		if !ok || !d.peek(':') {
			return false
		}
		switch string(name) {
		case "workload":
			ok, haveW = d.internStr(&op.Workload), true
		case "key":
			ok, haveK = d.internStr(&op.Key), true
		default:
			ok = d.skip()
		}
		if !ok || !d.peek(',') {
			return false
		}
	}
	return true
}

// skip passes over one value: a string, an object or array (nested), or a
// number or literal, without checking it further.
func (d *opDecoder) skip() bool {
	d.ws()
	if d.i >= len(d.b) {
		return false
	}
	switch d.b[d.i] {
	case '"':
		return d.skipStr()
	case '{', '[':
		depth := 0
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					d.i++
					return true
				}
			case '"':
				if !d.skipStr() {
					return false
				}
				continue
			}
			d.i++
		}
		return false
	}
	start := d.i
	for d.i < len(d.b) && d.b[d.i] != ',' && d.b[d.i] != '}' && d.b[d.i] != ']' && d.b[d.i] > ' ' {
		d.i++
	}
	return d.i > start
}

// skipStr passes over a string at d.i.
func (d *opDecoder) skipStr() bool {
	for d.i++; d.i < len(d.b); d.i++ {
		switch d.b[d.i] {
		case '\\':
			d.i++
		case '"':
			d.i++
			return true
		}
	}
	return false
}
