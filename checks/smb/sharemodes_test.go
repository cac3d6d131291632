package smb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// hist writes an SMB history by hand: times in microseconds.
type hist struct {
	ops []checks.Op
}

func (h *hist) add(actor int, kind, key string, o checks.Outcome, call, ret int64, in checks.Input, out checks.Output) {
	h.ops = append(h.ops, checks.Op{Seq: uint64(len(h.ops) + 1), Actor: actor, Workload: "w", Kind: kind, Key: key, Attempt: 1,
		Intended: call * 1000, Call: call * 1000, Return: ret * 1000, Outcome: o, In: in, Out: out})
}

func (h *hist) open(actor int, key string, access, share int, o checks.Outcome, call, ret int64) {
	out := checks.Output{}
	if o == checks.Conflict {
		out.ErrorCode = "STATUS_SHARING_VIOLATION"
	}
	h.add(actor, opOpen, key, o, call, ret, checks.Input{Access: access, Share: share}, out)
}

func (h *hist) close(actor int, key string, call, ret int64) {
	h.add(actor, opClose, key, checks.OK, call, ret, checks.Input{}, checks.Output{})
}

func (h *hist) read(actor int, key string, v int64, call, ret int64) {
	h.add(actor, opRead, key, checks.OK, call, ret, checks.Input{}, checks.Output{Value: fmt.Sprintf("%020d", v)})
}

func (h *hist) write(actor int, key string, v int64, o checks.Outcome, call, ret int64) {
	h.add(actor, opWrite, key, o, call, ret, checks.Input{Value: fmt.Sprintf("%020d", v)}, checks.Output{})
}

// increment is one exclusive holder's read-modify-write: open, read from,
// write from+1 (outcome w), close.
func (h *hist) increment(actor int, key string, from int64, w checks.Outcome, at int64) {
	h.open(actor, key, rw, 0, checks.OK, at, at+10)
	h.read(actor, key, from, at+10, at+20)
	h.write(actor, key, from+1, w, at+20, at+30)
	h.close(actor, key, at+30, at+40)
}

// setup and final bracket a counter's history.
func (h *hist) setup(key string) { h.write(checks.ActorSetup, key, 0, checks.OK, 0, 1) }
func (h *hist) final(key string, v int64, at int64) {
	h.open(checks.ActorFinal, key, fileReadData, shareRead|shareWrite|shareDelete, checks.OK, at, at+1)
	h.read(checks.ActorFinal, key, v, at+1, at+2)
	h.close(checks.ActorFinal, key, at+2, at+3)
}

const rw = fileReadData | fileWriteData

// runCheck feeds h to the check named name.
func runCheck(name string, h *hist) checks.Result {
	c, err := checks.New(name)
	if err != nil {
		panic(err)
	}
	for i := range h.ops {
		c.Observe(&h.ops[i])
	}
	return c.Finish()
}

func run(h *hist) checks.Result { return runCheck(ShareModesName, h) }

func TestConflictFollowsMSFSA(t *testing.T) {
	for _, tc := range []struct {
		a, sa, b, sb int
		want         bool
	}{
		{rw, 0, fileReadData, shareRead | shareWrite | shareDelete, true}, // share none refuses everyone
		{fileReadData, shareRead, fileReadData, shareRead, false},
		{fileReadData, shareRead, fileWriteData, shareRead, true},               // the reader did not share write
		{fileWriteData, shareRead, fileReadData, shareRead, true},               // symmetric
		{fileReadData, shareRead | shareWrite, fileWriteData, shareRead, false}, // each shares what the other uses
		{fileReadData | accessDelete, shareRead, fileReadData, shareRead, true}, // the second withheld delete
		{fileReadData, shareRead | shareDelete, accessDelete, shareRead | shareDelete, false},
		{0x80, 0, rw, 0, false},                                                  // attributes only: no share check
		{fileExecute, shareWrite, fileReadData, shareWrite, true},                // execute counts as read
		{fileAppendData, shareRead | shareWrite, fileWriteData, shareRead, true}, // append counts as write
	} {
		if got := Conflict(tc.a, tc.sa, tc.b, tc.sb); got != tc.want {
			t.Errorf("Conflict(%#x,%#x, %#x,%#x) = %v, want %v", tc.a, tc.sa, tc.b, tc.sb, got, tc.want)
		}
	}
}

func TestShareModes(t *testing.T) {
	const f = "f1"
	for _, tc := range []struct {
		name    string
		build   func(h *hist)
		verdict checks.Verdict
		want    string // in the summary or a violation's message
	}{
		{"exclusive holders one after another", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.OK, 100)
			h.open(2, f, rw, 0, checks.Conflict, 110, 115) // while 1 held it
			h.increment(2, f, 1, checks.OK, 200)
			h.final(f, 2, 1000)
		}, checks.Pass, "3 granted"},
		{"compatible readers overlap", func(h *hist) {
			h.setup(f)
			h.open(1, f, fileReadData, shareRead, checks.OK, 100, 110)
			h.open(2, f, fileReadData, shareRead|shareWrite, checks.OK, 105, 120)
			h.close(1, f, 200, 210)
			h.close(2, f, 200, 210)
			h.final(f, 0, 1000)
		}, checks.Pass, "no conflicting opens held at once"},
		{"two conflicting grants overlap", func(h *hist) {
			h.setup(f)
			h.open(1, f, rw, 0, checks.OK, 100, 110)
			h.open(2, f, fileReadData, shareRead|shareWrite|shareDelete, checks.OK, 120, 130)
			h.close(2, f, 140, 150)
			h.close(1, f, 160, 170)
			h.final(f, 0, 1000)
		}, checks.Fail, "conflict were held at the same time"},
		{"an unclosed holder is held until its last write", func(h *hist) {
			h.setup(f)
			h.open(1, f, rw, 0, checks.OK, 100, 110)
			h.write(1, f, 1, checks.OK, 300, 310) // no close recorded
			h.open(2, f, fileWriteData, shareRead, checks.OK, 200, 210)
			h.final(f, 1, 1000)
		}, checks.Fail, "conflict were held at the same time"},
		{"a grant answered after the holder's close was sent is not a violation", func(h *hist) {
			h.setup(f)
			h.open(1, f, rw, 0, checks.OK, 100, 110)
			h.open(2, f, rw, 0, checks.OK, 105, 160) // sent while 1 held it, granted after 1 closed
			h.close(1, f, 150, 155)
			h.close(2, f, 170, 175)
			h.final(f, 0, 1000)
		}, checks.Pass, ""},
		{"an open of unknown outcome may have been granted: no violation from it", func(h *hist) {
			h.setup(f)
			h.open(1, f, rw, 0, checks.OK, 100, 110)
			h.open(2, f, rw, 0, checks.Unknown, 120, 5000)
			h.close(1, f, 200, 210)
			h.final(f, 0, 6000)
		}, checks.Pass, ""},
		{"a lost update: two holders wrote the same value", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.OK, 100)
			h.increment(2, f, 0, checks.OK, 200) // read 0 after 1 wrote 1
			h.final(f, 1, 1000)
		}, checks.Fail, "lost update"},
		{"a lost update seen only in the final value", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.OK, 100)
			h.increment(2, f, 1, checks.OK, 200)
			h.final(f, 1, 1000)
		}, checks.Fail, "must end within 2..2"},
		{"a write of unknown outcome may or may not have applied", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.Unknown, 100)
			h.increment(2, f, 0, checks.OK, 200)
			h.final(f, 1, 1000)
		}, checks.Pass, ""},
		{"a write of unknown outcome that applied", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.Unknown, 100)
			h.increment(2, f, 1, checks.OK, 200)
			h.final(f, 2, 1000)
		}, checks.Pass, ""},
		{"more increments than were made", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.OK, 100)
			h.final(f, 3, 1000)
		}, checks.Fail, "more increments than were made"},
		{"no final read: undecided, never a pass", func(h *hist) {
			h.setup(f)
			h.increment(1, f, 0, checks.OK, 100)
		}, checks.Undecided, "no set-up write or final read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hist{}
			tc.build(h)
			r := run(h)
			text := r.Summary
			for _, v := range r.Violations {
				text += " | " + v.Message
				if len(v.Ops) == 0 {
					t.Errorf("violation without ops: %s", v.Message)
				}
			}
			if r.Verdict != tc.verdict || !strings.Contains(text, tc.want) {
				t.Fatalf("got %s: %s; want %s with %q", r.Verdict, text, tc.verdict, tc.want)
			}
		})
	}
}
