package appendlog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/appendlog"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// rec is a record as blob.append-log writes it (no padding).
func rec(tag string, try int, pos int64) string { return fmt.Sprintf("%s#%d@%d\n", tag, try, pos) }

func i64(n int64) *int64 { return &n }

// app records one Append Block attempt at pos; off is the acknowledged
// offset (answered ok), or -1.
func app(h *checkstest.Hist, actor, try int, tag string, pos int64, o checks.Outcome, off int64) uint64 {
	op := checks.Op{Actor: actor, Kind: "blob.append", Key: "k0", Attempt: try, Outcome: o,
		In: checks.Input{Value: rec(tag, try, pos), AppendPos: i64(pos)}}
	switch o {
	case checks.OK:
		op.Out = checks.Output{Status: 201, AppendOffset: i64(off)}
	case checks.Conflict:
		op.Out = checks.Output{Status: 412, ErrorCode: "AppendPositionConditionNotMet"}
	case checks.Unknown:
		op.Out = checks.Output{Err: "timeout"}
	}
	return h.Add(op)
}

func final(h *checkstest.Hist, content string) uint64 {
	return h.Add(checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobReadLog, Key: "k0", Outcome: checks.OK,
		Out: checks.Output{Status: 200, Value: content}})
}

// A clean log: two appenders race for offset 0 (one wins, the other's 412
// sends it to read again), an append of unknown outcome that landed, one
// whose position was taken by another (never landed), a retry refused
// because its first attempt landed.
func TestCleanLog(t *testing.T) {
	h := checkstest.NewHist()
	a := rec("a0-1", 1, 0)
	app(h, 0, 1, "a0-1", 0, checks.OK, 0)
	app(h, 1, 1, "a1-1", 0, checks.Conflict, -1)
	n := int64(len(a))
	b := rec("a1-2", 1, n)
	app(h, 1, 1, "a1-2", n, checks.Unknown, -1)
	app(h, 1, 2, "a1-2", n, checks.Conflict, -1) // the retry: its first attempt had landed
	app(h, 0, 1, "a0-2", n, checks.Unknown, -1)  // lost to a1-2: never lands
	m := n + int64(len(b))
	app(h, 0, 1, "a0-3", m, checks.OK, m)
	final(h, a+b+rec("a0-3", 1, m))
	r := h.Check(t, appendlog.Name)
	checkstest.Want{Verdict: checks.Pass, Summary: "6 append attempts on 1 log, 3 landed"}.Assert(t, r)
	if r.Decided != 6 || r.Judgeable != 6 || r.Unknown == nil || r.Unknown.Applied != 1 || r.Unknown.NotApplied != 1 || r.Unknown.Open != 0 {
		t.Errorf("decided %d of %d, unknown %+v", r.Decided, r.Judgeable, r.Unknown)
	}
}

// Padded records are kept in the history as their dot runs' lengths, in
// the attempts and in the log: offsets still count every byte.
func TestPaddedRecords(t *testing.T) {
	h := checkstest.NewHist()
	pad := strings.Repeat(".", 1000)
	r0 := "a0-1#1@0" + pad + "\n"
	n := int64(len(r0))
	r1 := fmt.Sprintf("a0-2#1@%d", n) + pad + "\n"
	h.Add(checks.Op{Actor: 0, Kind: "blob.append", Key: "k0", Outcome: checks.OK, In: checks.Input{Value: checks.DotRuns(r0), AppendPos: i64(0)}, Out: checks.Output{Status: 201, AppendOffset: i64(0)}})
	h.Add(checks.Op{Actor: 0, Kind: "blob.append", Key: "k0", Outcome: checks.OK, In: checks.Input{Value: r1, AppendPos: i64(n)}, Out: checks.Output{Status: 201, AppendOffset: i64(n)}})
	final(h, checks.DotRuns(r0+r1))
	checkstest.Want{Verdict: checks.Pass}.Assert(t, h.Check(t, appendlog.Name))
}

// A log short enough to be kept byte for byte holds its padded records
// as they were sent: they are still found.
func TestShortPaddedLog(t *testing.T) {
	h := checkstest.NewHist()
	r0 := "a0-1#1@0" + strings.Repeat(".", 40) + "\n"
	h.Add(checks.Op{Actor: 0, Kind: "blob.append", Key: "k0", Outcome: checks.OK, In: checks.Input{Value: r0, AppendPos: i64(0)}, Out: checks.Output{Status: 201, AppendOffset: i64(0)}})
	final(h, r0)
	checkstest.Want{Verdict: checks.Pass, Summary: "1 landed"}.Assert(t, h.Check(t, appendlog.Name))
}

// Each broken promise is reported, with the operations that show it.
func TestViolations(t *testing.T) {
	a := rec("a0-1", 1, 0)
	n := int64(len(a))
	cases := []struct {
		name string
		hist func(h *checkstest.Hist) []uint64
		msg  string
	}{
		{"duplicate", func(h *checkstest.Hist) []uint64 {
			s := app(h, 0, 1, "a0-1", 0, checks.OK, 0)
			return []uint64{s, final(h, a+a)}
		}, "duplicate append: the record of #1 is in k0 twice, at offsets 0 and " + fmt.Sprint(n)},
		{"gap", func(h *checkstest.Hist) []uint64 {
			app(h, 0, 1, "a0-1", 0, checks.OK, 0)
			app(h, 1, 1, "a1-1", n+3, checks.OK, n+3)
			return []uint64{final(h, a+"\x00\x00\x00"+rec("a1-1", 1, n+3))}
		}, fmt.Sprintf("gap: offsets %d..%d of k0 hold zero bytes no append wrote", n, n+3)},
		{"missing ack", func(h *checkstest.Hist) []uint64 {
			app(h, 0, 1, "a0-1", 0, checks.OK, 0)
			s := app(h, 1, 1, "a1-1", n, checks.OK, n)
			return []uint64{s, final(h, a)}
		}, fmt.Sprintf("acknowledged append missing: #2 was acknowledged at offset %d, its record is not in k0 (%d bytes)", n, n)},
		{"log gone", func(h *checkstest.Hist) []uint64 {
			s := app(h, 0, 1, "a0-1", 0, checks.OK, 0)
			f := h.Add(checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobReadLog, Key: "k0", Outcome: checks.Error,
				Out: checks.Output{Status: 404, ErrorCode: "ContainerNotFound"}})
			return []uint64{s, f}
		}, "acknowledged append missing: #1 was acknowledged at offset 0, its record is not in k0 (the final read found no blob: ContainerNotFound)"},
		{"offset mismatch", func(h *checkstest.Hist) []uint64 {
			h.Add(checks.Op{Actor: 0, Kind: "blob.append", Key: "k0", Outcome: checks.OK, In: checks.Input{Value: a}, Out: checks.Output{Status: 201, AppendOffset: i64(40)}})
			return []uint64{1, final(h, a)}
		}, "offset mismatch: #1 was acknowledged at offset 40, its record is in k0 at offset 0"},
		{"unknown landing twice", func(h *checkstest.Hist) []uint64 {
			s := app(h, 0, 1, "a0-1", 0, checks.Unknown, -1)
			return []uint64{s, final(h, a+a)}
		}, "duplicate append: the record of #1 is in k0 twice"},
		{"retry landing twice", func(h *checkstest.Hist) []uint64 {
			s1 := app(h, 0, 1, "a0-1", 0, checks.Unknown, -1)
			s2 := app(h, 0, 2, "a0-1", 0, checks.OK, n) // the condition was not held
			return []uint64{s1, s2, final(h, a+rec("a0-1", 2, 0))}
		}, fmt.Sprintf("retried append landed twice: attempts 1 (#1) and 2 (#2) of one append are both in k0, at offsets 0 and %d", n)},
		{"position ignored", func(h *checkstest.Hist) []uint64 {
			app(h, 0, 1, "a0-1", 0, checks.OK, 0)
			s := app(h, 1, 1, "a1-1", 0, checks.OK, n) // sent for 0, appended at the end
			return []uint64{s, final(h, a+rec("a1-1", 1, 0))}
		}, fmt.Sprintf("append position ignored: #2 was sent with appendpos 0, its record is in k0 at offset %d", n)},
		{"refused landed", func(h *checkstest.Hist) []uint64 {
			s := app(h, 0, 1, "a0-1", 0, checks.Conflict, -1)
			return []uint64{s, final(h, a)}
		}, "refused append landed: #1 was answered conflict 412 AppendPositionConditionNotMet, yet its record is in k0 at offset 0"},
		{"foreign bytes", func(h *checkstest.Hist) []uint64 {
			app(h, 0, 1, "a0-1", 0, checks.OK, 0)
			return []uint64{final(h, a+"stranger\n")}
		}, fmt.Sprintf("foreign bytes: offsets %d..%d of k0 hold bytes no append sent", n, n+9)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := checkstest.NewHist()
			seqs := c.hist(h)
			checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio(c.msg, seqs...)}}.Assert(t, h.Check(t, appendlog.Name))
		})
	}
}

// Without a final read of the log nothing is decided, and the verdict is
// never a pass.
func TestNoFinalRead(t *testing.T) {
	h := checkstest.NewHist()
	app(h, 0, 1, "a0-1", 0, checks.OK, 0)
	r := h.Check(t, appendlog.Name)
	checkstest.Want{Verdict: checks.Undecided, Summary: "no final read of 1 log"}.Assert(t, r)
	if r.Decided != 0 || r.Judgeable != 1 {
		t.Errorf("decided %d of %d", r.Decided, r.Judgeable)
	}
}
