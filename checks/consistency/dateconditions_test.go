package consistency

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

func httpDate(sec int) string {
	return time.Date(2026, 11, 22, 5, 0, sec, 0, time.UTC).Format(http.TimeFormat)
}

// dcHist builds container histories: w writes with a Last-Modified second,
// c is a conditional setmeta or delete.
type dcHist struct{ ops []checks.Op }

func (h *dcHist) Add(op checks.Op) *dcHist {
	op.Seq = uint64(len(h.ops) + 1)
	op.Workload, op.Key, op.Attempt = "w", "c0", 1
	h.ops = append(h.ops, op)
	return h
}

func (h *dcHist) write(kind string, lmSec int, call, ret int64) *dcHist {
	return h.Add(checks.Op{Kind: kind, Call: call, Return: ret, Outcome: checks.OK, Out: checks.Output{Status: 200, LastModified: httpDate(lmSec)}})
}

func (h *dcHist) unknownWrite(call int64) *dcHist {
	return h.Add(checks.Op{Kind: "container.setmeta", Call: call, Return: call + 1000, Outcome: checks.Unknown, Out: checks.Output{Err: "timeout"}})
}

func (h *dcHist) cond(kind, header string, sec int, o checks.Outcome, call, ret int64) *dcHist {
	op := checks.Op{Kind: kind, Call: call, Return: ret, Outcome: o}
	if header == "ius" {
		op.In.IfUnmodifiedSince = httpDate(sec)
	} else {
		op.In.IfModifiedSince = httpDate(sec)
	}
	if o == checks.OK {
		op.Out = checks.Output{Status: 200, LastModified: httpDate(sec + 100)}
		if kind == "container.delete" {
			op.Out = checks.Output{Status: 202}
		}
	} else {
		op.Out = checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
	}
	return h.Add(op)
}

func TestDateConditions(t *testing.T) {
	cases := []struct {
		name string
		h    *dcHist
		want checks.Verdict
		msg  string
	}{
		{"ius ok: not modified since", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.setmeta", "ius", 10, checks.OK, 20, 30), checks.Pass, ""},
		{"ius refused: modified after T", (&dcHist{}).write("container.create", 10, 0, 10).write("container.setmeta", 12, 11, 15).cond("container.setmeta", "ius", 11, checks.Conflict, 20, 30), checks.Pass, ""},
		{"ius ok although modified after T", (&dcHist{}).write("container.create", 10, 0, 10).write("container.setmeta", 12, 11, 15).cond("container.setmeta", "ius", 11, checks.OK, 20, 30), checks.Fail, "succeeded although a write had already set Last-Modified"},
		{"ius refused although unmodified", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.delete", "ius", 10, checks.Conflict, 20, 30), checks.Fail, "was refused although Last-Modified was"},
		{"ius refused, overlapping write explains it", (&dcHist{}).write("container.create", 10, 0, 10).write("container.setmeta", 12, 19, 25).cond("container.setmeta", "ius", 10, checks.Conflict, 20, 30), checks.Pass, ""},
		{"ius refused, unknown write explains it", (&dcHist{}).write("container.create", 10, 0, 10).unknownWrite(12).cond("container.setmeta", "ius", 10, checks.Conflict, 20, 30), checks.Pass, ""},
		{"ims ok: modified since", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.setmeta", "ims", 9, checks.OK, 20, 30), checks.Pass, ""},
		{"ims refused although modified", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.setmeta", "ims", 9, checks.Conflict, 20, 30), checks.Fail, "If-Modified-Since"},
		{"ims ok although unmodified", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.setmeta", "ims", 10, checks.OK, 20, 30), checks.Fail, "succeeded although Last-Modified was"},
		{"ims ok, unknown write may explain it", (&dcHist{}).write("container.create", 10, 0, 10).unknownWrite(5).cond("container.setmeta", "ims", 10, checks.OK, 20, 30), checks.Pass, ""},
		{"delete in the past refused", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.delete", "ius", 1, checks.Conflict, 20, 30), checks.Pass, ""},
		{"delete in the past accepted", (&dcHist{}).write("container.create", 10, 0, 10).cond("container.delete", "ius", 1, checks.OK, 20, 30), checks.Fail, "If-Unmodified-Since"},
		{"same second is not after", (&dcHist{}).write("container.create", 10, 0, 10).write("container.setmeta", 10, 11, 12).cond("container.setmeta", "ius", 10, checks.OK, 20, 30), checks.Pass, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, _ := checks.New("date-conditions")
			r := checks.Run(c.h.ops, ch)[0]
			if r.Verdict != c.want {
				t.Fatalf("%s: %s, want %s %+v", c.name, r.Verdict, c.want, r.Violations)
			}
			if c.msg != "" && (len(r.Violations) == 0 || !strings.Contains(r.Violations[0].Message, c.msg) || len(r.Violations[0].Ops) != 2) {
				t.Errorf("violation %+v lacks %q or its two ops", r.Violations, c.msg)
			}
		})
	}
}

func TestDateConditionsOnBlobs(t *testing.T) {
	base := func() *dcHist { return (&dcHist{}).write("blob.put", 10, 0, 10).write("blob.put", 12, 11, 15) }
	get := func(h *dcHist, ims int, status int) *dcHist {
		return h.Add(checks.Op{Kind: "blob.get", Call: 20, Return: 30, Outcome: checks.OK, In: checks.Input{IfModifiedSince: httpDate(ims)}, Out: checks.Output{Status: status}})
	}
	cases := []struct {
		name string
		h    *dcHist
		want checks.Verdict
	}{
		{"304 although modified after T", get(base(), 11, 304), checks.Fail},
		{"200: modified after T", get(base(), 11, 200), checks.Pass},
		{"304: not modified since T", get(base(), 12, 304), checks.Pass},
		{"200 although unmodified since T", get(base(), 12, 200), checks.Fail},
		// A write with If-Match and If-Unmodified-Since refused: the If-Match
		// may be why, so the date is not judged: nothing else was, so the
		// check decided nothing (undecided, never a pass).
		{"refusal with another condition", base().Add(checks.Op{Kind: "blob.put", Call: 20, Return: 30, Outcome: checks.Conflict,
			In: checks.Input{IfMatch: "e1", IfUnmodifiedSince: httpDate(12)}, Out: checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}}), checks.Undecided},
		// ...but its success means the date held too.
		{"success with another condition", base().Add(checks.Op{Kind: "blob.put", Call: 20, Return: 30, Outcome: checks.OK,
			In: checks.Input{IfMatch: "e1", IfUnmodifiedSince: httpDate(11)}, Out: checks.Output{Status: 201, LastModified: httpDate(13)}}), checks.Fail},
	}
	for _, c := range cases {
		ch, _ := checks.New("date-conditions")
		if r := checks.Run(c.h.ops, ch)[0]; r.Verdict != c.want {
			t.Errorf("%s: %s, want %s %+v", c.name, r.Verdict, c.want, r.Violations)
		}
	}
}
