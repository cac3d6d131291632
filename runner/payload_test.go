package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/queue"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/workload"
)

func TestRecordedValue(t *testing.T) {
	mib := checks.CounterValue{N: 12, Tag: "a3-4"}.Format(1 << 20)
	garbage := strings.Repeat("xyz", 400)
	for _, c := range []struct{ in, want string }{
		{"12 a3-4", "12 a3-4"},
		{"12 a3-4 ........", "12 a3-4 ........"}, // short values stay whole
		{mib, "12 a3-4 [1048568 dots]"},
		{queue.MessageText("a1-2", 4096) + "#p1", "a1-2 [4091 dots]#p1"},
		{strings.Repeat(".", 300) + "x" + strings.Repeat(".", 5), "[300 dots]x....."},
		{garbage, garbage[:64] + "[… 1200 bytes, sha256:"},
	} {
		got := workload.RecordedValue(c.in)
		if !strings.HasPrefix(got, c.want) || (!strings.HasSuffix(c.want, "sha256:") && got != c.want) {
			t.Errorf("recordedValue(%.30q...) = %q, want %q", c.in, got, c.want)
		}
	}
	// What the checkers read from a value survives.
	if v, err := checks.ParseCounterValue(workload.RecordedValue(mib)); err != nil || v.N != 12 || v.Tag != "a3-4" {
		t.Errorf("counter value after recording: %+v, %v", v, err)
	}
	// Values that differ anywhere still differ: a shorter read, a byte
	// changed inside the padding, garbage of the same length.
	other := []string{mib[:len(mib)-1], mib[:600] + "x" + mib[601:], strings.Repeat("xyz", 399) + "xyw"}
	for _, o := range other {
		if workload.RecordedValue(o) == workload.RecordedValue(mib) || workload.RecordedValue(o) == workload.RecordedValue(garbage) {
			t.Errorf("%.30q... records like another value: %q", o, workload.RecordedValue(o))
		}
	}
	// A queue message's original text (before '#') is the put's text.
	put := queue.MessageText("a1-2", 4096)
	got := workload.RecordedValue(put + "#p2")
	if orig, _, _ := strings.Cut(got, "#"); orig != workload.RecordedValue(put) {
		t.Errorf("update %q, put %q", got, workload.RecordedValue(put))
	}
}

// TestRecordedPayloadsKeepTheCheckersDeciding feeds histories with 1 MiB
// payloads to the no-lost-updates and version-chain checkers after recording: a clean one, a
// lost update, and a final read whose payload came back one byte short (its
// head is right: only the recorded length tells it from the write). The
// history is small, and every verdict is what the full values give.
func TestRecordedPayloadsKeepTheCheckersDeciding(t *testing.T) {
	val := func(n int64, tag string) string { return checks.CounterValue{N: n, Tag: tag}.Format(1 << 20) }
	op := func(seq uint64, actor int, kind, in, out, etag string) checks.Op {
		at := int64(seq) * 10
		return checks.Op{Seq: seq, Actor: actor, Workload: "w", Kind: kind, Key: "k0", Attempt: 1, Intended: at, Call: at, Return: at + 5,
			Outcome: checks.OK, In: checks.Input{Value: in}, Out: checks.Output{Value: out, Status: 200, ETag: etag}}
	}
	history := func(last checks.Op, second checks.Op) []checks.Op {
		return []checks.Op{
			op(1, checks.ActorSetup, "blob.put", val(0, "setup-1"), "", "e0"),
			op(2, 0, "blob.put", val(1, "a0-1"), "", "e1"),
			second,
			last,
		}
	}
	good := op(3, 1, "blob.put", val(2, "a1-1"), "", "e2")
	final := op(4, checks.ActorFinal, "blob.get", "", val(2, "a1-1"), "e2")
	short := op(4, checks.ActorFinal, "blob.get", "", val(2, "a1-1")[:1<<20-1], "e2")
	for _, c := range []struct {
		name string
		ops  []checks.Op
		want checks.Verdict // no-lost-updates' verdict
	}{
		{"clean", history(final, good), checks.Pass},
		{"lost update", history(op(4, checks.ActorFinal, "blob.get", "", val(1, "a1-1"), "e2"), op(3, 1, "blob.put", val(1, "a1-1"), "", "e2")), checks.Fail},
		{"payload one byte short", history(short, good), ""},
	} {
		for _, name := range []string{"no-lost-updates", "version-chain"} {
			full, _ := checks.New(name)
			rec, err := checks.New(name)
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			for i := range c.ops {
				r := workload.RecordedPayloads(&c.ops[i])
				size += len(r.AppendJSONLine(nil))
				rec.Observe(r)
				full.Observe(&c.ops[i])
			}
			if size > 4096 {
				t.Errorf("%s: %d bytes of history for 4 ops with 1 MiB payloads", c.name, size)
			}
			fr, rr := full.Finish(), rec.Finish()
			if fr.Verdict != rr.Verdict {
				t.Errorf("%s, %s: %s over the recorded history (%s), %s over the full values (%s)", c.name, name, rr.Verdict, rr.Summary, fr.Verdict, fr.Summary)
			}
			if name == "no-lost-updates" && c.want != "" && rr.Verdict != c.want {
				t.Errorf("%s: %s (%s), want %s", c.name, rr.Verdict, rr.Summary, c.want)
			}
		}
	}
}

// TestBigPayloadsStayOutOfTheHistory runs 1 MiB payloads against a real
// Azurite: every record stays small (it used to carry the megabyte, 308 MB
// of history in 3 s), the bytes on the wire are still counted, and the
// checks still decide.
func TestBigPayloadsStayOutOfTheHistory(t *testing.T) {
	sc := runtest.Parse(t, `
name: big
duration: 1m
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 2, iterations: 12, params: {payload_bytes: 1048576}}
  - {name: messages, kind: queue.work, actors: 2, iterations: 12, params: {producers: 1, payload_bytes: 40000, visibility: 1s}}
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var puts, biggest int
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		biggest = max(biggest, len(op.AppendJSONLine(nil)))
		if op.Kind == "blob.put" && op.Outcome == checks.OK {
			puts++
			if op.In.Bytes < 1<<20 || !strings.HasSuffix(op.In.Value, " dots]") {
				t.Errorf("put recorded as %q with %d bytes sent", op.In.Value, op.In.Bytes)
			}
		}
	})
	if puts == 0 {
		t.Fatal("no acknowledged put")
	}
	if biggest > 2048 {
		t.Errorf("a history record of %d bytes", biggest)
	}
	for _, r := range sum.Checks {
		if r.Verdict == checks.Fail {
			t.Errorf("%s %s: %s", r.Workload, r.Check, r.Summary)
		}
	}
}
