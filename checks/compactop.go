package checks

import (
	"encoding/hex"
)

// cop is an operation on one key as a checker keeps it until Finish:
// numbers, and small integers for its strings. Strings few operations share
// (kinds, error codes, dates) come from the checker's strTable; ETags,
// values and lease ids from the key's own table, so that they go when the
// key is judged; a request id is kept as a ReqID when it can be. An operation with any
// other field (a blob checker seldom sees one) is kept whole beside. About
// 130 bytes, against an Op's 624 and its strings.
type Cop struct {
	Seq                  uint64
	intended, call, ret  int64
	actor, attempt       int32
	kind, workload       int32 // shared strings
	errCode, lastMod     int32 // shared strings
	errText              int32 // shared string (client-side errors repeat)
	IfMatch, ifNone      int32 // key strings
	lease, etag          int32 // key strings
	InVal, OutVal        int32 // key values (without their padding)
	status               uint16
	Outcome              Outcome
	req                  ReqID // the request id, when it is a UUID or a number; else it is in strs of the key
	reqStr               int32 // key string, when the request id is neither
	whole                int32 // index of the whole operation in copKey.whole, or -1
	inBytes, outBytes    int64
	ifModSince, ifUnmSin int32 // shared strings
}

// mayHaveApplied is mayHaveApplied of the operation c was made from.
func (c *Cop) MayHaveApplied(shared *StrTable) bool {
	switch c.Outcome {
	case Unknown:
		return true
	case OK:
		return false
	}
	return c.status == 500 || shared.Str(c.errCode) == "OperationTimedOut"
}

// strTable interns strings as small integers; 0 is "".
type StrTable struct {
	ids  map[string]int32
	strs []string
}

func (t *StrTable) id(s string) int32 {
	if s == "" {
		return 0
	}
	if t.ids == nil {
		t.ids, t.strs = map[string]int32{}, []string{""}
	}
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := int32(len(t.strs))
	t.ids[s] = id
	t.strs = append(t.strs, s)
	return id
}

func (t *StrTable) Str(id int32) string {
	if id == 0 {
		return ""
	}
	return t.strs[id]
}

// copKey is one key's strings and the few operations kept whole.
type CopKey struct {
	Strs  StrTable        // ETags, conditions, lease ids (many operations share one)
	vals  Chunked[string] // values, one per kept operation that has one: id-1
	whole []Op
}

// val keeps a value (without its padding) and returns its id; 0 is "".
func (k *CopKey) val(s string) int32 {
	if s == "" {
		return 0
	}
	return k.vals.Add(ShortValue(s)) + 1
}

// value is the value of id.
func (k *CopKey) Value(id int32) string {
	if id == 0 {
		return ""
	}
	return *k.vals.At(id - 1)
}

// keep compacts op (values without their padding, as compactOp does).
func (k *CopKey) Keep(shared *StrTable, op *Op) Cop {
	c := Cop{Seq: op.Seq, intended: op.Intended, call: op.Call, ret: op.Return, actor: int32(op.Actor), attempt: int32(op.Attempt),
		kind: shared.id(op.Kind), workload: shared.id(op.Workload), errCode: shared.id(op.Out.ErrorCode),
		lastMod: shared.id(op.Out.LastModified), errText: shared.id(op.Out.Err),
		ifModSince: shared.id(op.In.IfModifiedSince), ifUnmSin: shared.id(op.In.IfUnmodifiedSince),
		IfMatch: k.Strs.id(op.In.IfMatch), ifNone: k.Strs.id(op.In.IfNoneMatch), lease: k.Strs.id(op.In.LeaseID),
		etag: k.Strs.id(op.Out.ETag), InVal: k.val(op.In.Value), OutVal: k.val(op.Out.Value),
		status: uint16(op.Out.Status), Outcome: op.Outcome, inBytes: op.In.Bytes, outBytes: op.Out.Bytes, whole: -1}
	if !c.req.Keep(op.Out.RequestID) {
		c.reqStr = k.Strs.id(op.Out.RequestID)
	}
	if hasOtherFields(op) {
		c.whole = int32(len(k.whole))
		k.whole = append(k.whole, CompactOp(op, op.Workload, op.Kind, op.Key))
	}
	return c
}

// op rebuilds the operation c was made from (values without padding).
func (k *CopKey) Op(shared *StrTable, key string, c *Cop) Op {
	if c.whole >= 0 {
		return k.whole[c.whole]
	}
	o := Op{Seq: c.Seq, Actor: int(c.actor), Workload: shared.Str(c.workload), Kind: shared.Str(c.kind), Key: key,
		Attempt: int(c.attempt), Intended: c.intended, Call: c.call, Return: c.ret, Outcome: c.Outcome}
	o.In = Input{IfMatch: k.Strs.Str(c.IfMatch), IfNoneMatch: k.Strs.Str(c.ifNone), LeaseID: k.Strs.Str(c.lease),
		IfModifiedSince: shared.Str(c.ifModSince), IfUnmodifiedSince: shared.Str(c.ifUnmSin),
		Value: k.Value(c.InVal), Bytes: c.inBytes}
	o.Out = Output{Status: int(c.status), ErrorCode: shared.Str(c.errCode), ETag: k.Strs.Str(c.etag),
		Value: k.Value(c.OutVal), LastModified: shared.Str(c.lastMod), Err: shared.Str(c.errText), Bytes: c.outBytes}
	if c.reqStr != 0 {
		o.Out.RequestID = k.Strs.Str(c.reqStr)
	} else {
		o.Out.RequestID = c.req.String()
	}
	return o
}

// hasOtherFields reports whether op carries a field cop does not keep.
func hasOtherFields(op *Op) bool {
	in, out := &op.In, &op.Out
	return in.ProposedLeaseID != "" || in.LeaseDuration != 0 || in.BreakPeriod != nil || len(in.Props) > 0 ||
		len(in.Rows) > 0 || in.BatchFails != "" || in.MessageID != "" || in.PopReceipt != "" || in.Visibility != nil ||
		in.NumMessages != 0 || in.Filter != "" || len(in.Select) > 0 ||
		out.LeaseTime != nil || len(out.Props) > 0 || len(out.Entities) > 0 || out.Scanned != 0 || len(out.Messages) > 0 ||
		out.MessageID != "" || out.PopReceipt != "" || out.NextVisible != ""
}

// parseUUID reads a lower-case, hyphenated UUID (as Azure and Azurite
// write request ids); anything else is not one, so that formatUUID gives
// back exactly what was read.
func ParseUUID(s string, b *[16]byte) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	var h [32]byte
	n := 0
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		ch := s[i]
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f') {
			return false
		}
		h[n] = ch
		n++
	}
	_, err := hex.Decode(b[:], h[:])
	return err == nil
}

func FormatUUID(b *[16]byte) string {
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}
