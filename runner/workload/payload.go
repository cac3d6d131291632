package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"github.com/stormcheck/stormcheck/checks"
)

// What the history keeps of a payload. A written value is its identifying
// head ("12 a3-4": count and writer's tag) then payload_bytes of padding
// dots; with payload_bytes: 1 MiB the history used to hold every dot of
// every write and read (308 MB in 3 s with 2 actors). It now holds:
//
//   - a run of padding dots as its length: "12 a3-4 [1048569 dots]" — exact,
//     so a read that came back shorter, longer or with another byte inside
//     its padding still differs from the write it claims to read;
//   - any other value longer than maxRecordedValue as its first 64 bytes,
//     its length and a SHA-256 digest: "<64 bytes>[… 4096 bytes,
//     sha256:0f3a…]" — equal values stay equal, different ones differ.
//
// Values the checkers compare (a write's value, a read's, a queue message's
// text up to its '#') are recorded the same way on both sides, so every
// comparison and every parse (checks.ParseCounterValue) gives what the
// full values would. The bytes on the wire stay in In.Bytes and Out.Bytes.
const (
	maxRecordedValue = 256
	keptHead         = 64
)

// A log read (checks.KindBlobReadLog: the final read of an append blob)
// keeps every byte but its runs of dots: the append-log check splits it
// into the records appended.
//
// recordedPayloads returns op as the history keeps it: op itself when no
// value is long, else a copy with its long values cut as above.
func RecordedPayloads(op *checks.Op) *checks.Op {
	if op.Kind == checks.KindBlobReadLog && long(op.Out.Value) {
		c := *op
		c.Out.Value = checks.DotRuns(op.Out.Value)
		return &c
	}
	if !long(op.In.Value) && !long(op.Out.Value) && !anyLongText(op.Out.Messages) {
		return op
	}
	c := *op
	c.In.Value = RecordedValue(op.In.Value)
	c.Out.Value = RecordedValue(op.Out.Value)
	if anyLongText(op.Out.Messages) {
		c.Out.Messages = append([]checks.Message(nil), op.Out.Messages...)
		for i := range c.Out.Messages {
			c.Out.Messages[i].Text = RecordedValue(c.Out.Messages[i].Text)
		}
	}
	return &c
}

func long(s string) bool { return len(s) > maxRecordedValue }

func anyLongText(ms []checks.Message) bool {
	for _, m := range ms {
		if long(m.Text) {
			return true
		}
	}
	return false
}

// recordedValue is one value as the history keeps it.
func RecordedValue(s string) string {
	if !long(s) {
		return s
	}
	out := checks.DotRuns(s)
	if !long(out) {
		return out
	}
	sum := sha256.Sum256([]byte(s))
	n := keptHead
	for n > 0 && !utf8.RuneStart(out[n]) { // not inside a UTF-8 character
		n--
	}
	return out[:n] + "[… " + strconv.Itoa(len(s)) + " bytes, sha256:" + hex.EncodeToString(sum[:8]) + "]"
}
