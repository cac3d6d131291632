package checks

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSONLine appends the op as one line of a history file: exactly the
// bytes encoding/json writes for it (field order, omitempty, HTML-safe
// string escapes, sorted map keys) and a newline, without reflection or
// allocation. The recorder encodes every attempt with it; a test holds it
// byte for byte to encoding/json over ops with every field set at random.
// Should the history types gain a field this encoder does not know, it
// falls back to encoding/json, so the history never loses a field.
func (o *Op) AppendJSONLine(b []byte) []byte {
	if !encoderKnowsTypes {
		line, err := json.Marshal(o)
		if err != nil { // cannot happen: the history types marshal
			panic(err)
		}
		return append(append(b, line...), '\n')
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, o.Seq, 10)
	b = append(b, `,"actor":`...)
	b = strconv.AppendInt(b, int64(o.Actor), 10)
	b = append(b, `,"workload":`...)
	b = appendJSONString(b, o.Workload)
	b = append(b, `,"op":`...)
	b = appendJSONString(b, o.Kind)
	b = append(b, `,"key":`...)
	b = appendJSONString(b, o.Key)
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, int64(o.Attempt), 10)
	b = append(b, `,"intended_ns":`...)
	b = strconv.AppendInt(b, o.Intended, 10)
	b = append(b, `,"call_ns":`...)
	b = strconv.AppendInt(b, o.Call, 10)
	b = append(b, `,"return_ns":`...)
	b = strconv.AppendInt(b, o.Return, 10)
	b = append(b, `,"outcome":`...)
	if int(o.Outcome) < len(outcomeNames) {
		b = append(append(append(b, '"'), outcomeNames[o.Outcome]...), '"')
	} else {
		b = appendJSONString(b, o.Outcome.String())
	}
	b = append(b, `,"in":`...)
	b = o.In.appendJSON(b)
	b = append(b, `,"out":`...)
	b = o.Out.appendJSON(b)
	return append(b, "}\n"...)
}

func (in *Input) appendJSON(b []byte) []byte {
	f := fields{b: append(b, '{')}
	f.Str("if_match", in.IfMatch)
	f.Str("if_none_match", in.IfNoneMatch)
	f.Str("if_modified_since", in.IfModifiedSince)
	f.Str("if_unmodified_since", in.IfUnmodifiedSince)
	f.Str("lease_id", in.LeaseID)
	f.Str("proposed_lease_id", in.ProposedLeaseID)
	f.int("lease_duration", int64(in.LeaseDuration))
	f.ptr("break_period", in.BreakPeriod)
	f.Str("value", in.Value)
	f.ptr64("append_pos", in.AppendPos)
	f.ptr64("max_size", in.MaxSize)
	f.strs("props", in.Props)
	f.strs("rows", in.Rows)
	f.Str("batch_fails", in.BatchFails)
	f.Str("message_id", in.MessageID)
	f.Str("pop_receipt", in.PopReceipt)
	f.ptr("visibility", in.Visibility)
	f.int("num_messages", int64(in.NumMessages))
	f.Str("filter", in.Filter)
	f.strs("select", in.Select)
	f.int("bytes", in.Bytes)
	f.int("access", int64(in.Access))
	f.int("share", int64(in.Share))
	f.int("disposition", int64(in.Disposition))
	f.int("flags", int64(in.Flags))
	f.int("offset", in.Offset)
	f.int("length", in.Length)
	return append(f.b, '}')
}

func (out *Output) appendJSON(b []byte) []byte {
	f := fields{b: append(b, '{')}
	f.int("status", int64(out.Status))
	f.Str("error_code", out.ErrorCode)
	f.Str("etag", out.ETag)
	f.Str("request_id", out.RequestID)
	f.Str("value", out.Value)
	f.Str("last_modified", out.LastModified)
	f.ptr64("append_offset", out.AppendOffset)
	f.ptr("lease_time", out.LeaseTime)
	if len(out.Props) > 0 {
		f.name("props")
		keys := make([]string, 0, len(out.Props))
		for k := range out.Props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		f.b = append(f.b, '{')
		for i, k := range keys {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			f.b = appendJSONString(f.b, k)
			f.b = append(f.b, ':')
			f.b = appendJSONString(f.b, out.Props[k])
		}
		f.b = append(f.b, '}')
	}
	if len(out.Entities) > 0 {
		f.name("entities")
		f.b = append(f.b, '[')
		for i := range out.Entities {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			e := &out.Entities[i]
			g := fields{b: append(f.b, '{')}
			g.Str("pk", e.Partition)
			g.name("rk")
			g.b = appendJSONString(g.b, e.Row)
			g.Str("etag", e.ETag)
			g.Str("value", e.Value)
			f.b = append(g.b, '}')
		}
		f.b = append(f.b, ']')
	}
	f.int("scanned", int64(out.Scanned))
	if len(out.Messages) > 0 {
		f.name("messages")
		f.b = append(f.b, '[')
		for i := range out.Messages {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			m := &out.Messages[i]
			g := fields{b: append(f.b, '{')}
			g.name("id")
			g.b = appendJSONString(g.b, m.ID)
			g.Str("pop_receipt", m.PopReceipt)
			g.int("dequeue_count", m.DequeueCount)
			g.Str("next_visible", m.NextVisible)
			g.Str("text", m.Text)
			f.b = append(g.b, '}')
		}
		f.b = append(f.b, ']')
	}
	f.Str("message_id", out.MessageID)
	f.Str("pop_receipt", out.PopReceipt)
	f.Str("next_visible", out.NextVisible)
	f.int("bytes", out.Bytes)
	f.Str("err", out.Err)
	f.Str("fault", out.Fault)
	if out.Done {
		f.name("done")
		f.b = append(f.b, "true"...)
	}
	return append(f.b, '}')
}

// fields appends the members of one JSON object, commas between them;
// str, int, ptr and strs leave out empty values (omitempty).
type fields struct {
	b    []byte
	more bool
}

func (f *fields) name(n string) {
	if f.more {
		f.b = append(f.b, ',')
	}
	f.more = true
	f.b = append(append(append(f.b, '"'), n...), `":`...)
}

func (f *fields) Str(n, v string) {
	if v != "" {
		f.name(n)
		f.b = appendJSONString(f.b, v)
	}
}

func (f *fields) int(n string, v int64) {
	if v != 0 {
		f.name(n)
		f.b = strconv.AppendInt(f.b, v, 10)
	}
}

func (f *fields) ptr(n string, v *int) {
	if v != nil {
		f.name(n)
		f.b = strconv.AppendInt(f.b, int64(*v), 10)
	}
}

func (f *fields) ptr64(n string, v *int64) {
	if v != nil {
		f.name(n)
		f.b = strconv.AppendInt(f.b, *v, 10)
	}
}

func (f *fields) strs(n string, v []string) {
	if len(v) == 0 {
		return
	}
	f.name(n)
	f.b = append(f.b, '[')
	for i, s := range v {
		if i > 0 {
			f.b = append(f.b, ',')
		}
		f.b = appendJSONString(f.b, s)
	}
	f.b = append(f.b, ']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as encoding/json does with HTML escaping on
// (its default): <, > and & as \u003c, \u003e, \u0026; invalid UTF-8 as
// \ufffd; U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// encodedFields is how many fields AppendJSONLine writes for each history
// type; encoderKnowsTypes is false when a type has gained one since.
var encodedFields = map[reflect.Type]int{
	reflect.TypeFor[Op]():      12,
	reflect.TypeFor[Input]():   27,
	reflect.TypeFor[Output]():  19,
	reflect.TypeFor[Entity]():  4,
	reflect.TypeFor[Message](): 5,
}

var encoderKnowsTypes = func() bool {
	for t, n := range encodedFields {
		if t.NumField() != n {
			return false
		}
	}
	return true
}()
