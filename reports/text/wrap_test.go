package text

import (
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// breakLineQuadratic is breakLine as it was before it was made linear
// (each break decoded the whole rest of the line again): the oracle the
// linear one must agree with, line for line.
func breakLineQuadratic(line string, keep int, hang string) []string {
	var out []string
	for reports.Width(line) > reports.TextWidth {
		r := []rune(line)
		cut := -1
		for i := min(reports.TextWidth, len(r)-1); i > keep; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		if cut < 0 {
			for i := reports.TextWidth; i < len(r); i++ {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
		}
		if cut < 0 {
			break
		}
		head := strings.TrimRight(string(r[:cut]), " ")
		tail := strings.TrimLeft(string(r[cut:]), " ")
		if tail == "" {
			line = head
			break
		}
		out = append(out, head)
		line, keep = hang+tail, len(hang)
	}
	return append(out, line)
}

// TestBreakLineAgreesWithTheQuadraticOne breaks random lines (short and
// long words, runs of spaces, leading and trailing spaces, multi-byte
// runes, invalid UTF-8, words longer than a line) with random indents and
// hangs, and wants exactly the lines the former breakLine gave.
func TestBreakLineAgreesWithTheQuadraticOne(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	pieces := []string{"a", "key", "counter-4438", "(too large for porcupine,", "é", "日本語", "\xff", " ", "  ", "   ",
		strings.Repeat("x", 79), strings.Repeat("y", 81), strings.Repeat("z", 200), strings.Repeat("ü", 90)}
	hangs := []string{"", " ", "    ", strings.Repeat(" ", 39), strings.Repeat(" ", 60)}
	for n := range 3000 {
		var b strings.Builder
		indent := r.IntN(50)
		b.WriteString(strings.Repeat(" ", indent))
		for range r.IntN(80) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		line, hang := b.String(), hangs[r.IntN(len(hangs))]
		keep := min(indent, r.IntN(60))
		got, want := breakLine(line, keep, hang), breakLineQuadratic(line, keep, hang)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Fatalf("case %d: breakLine(%q, %d, %q)\n got %q\nwant %q", n, line, keep, hang, got, want)
		}
	}
}

// TestLongSummaryWrapsInLinearWork renders a check whose summary names
// 2,000 undecided keys (240 kB; before it named ten at most, linearizable
// named every undecided key, 10,000 on a cut history) and counts the bytes
// the report allocated: a few times the summary's size. The former
// breakLine decoded the rest of the summary again for every line it broke
// off: here 4 GB allocated, on 10,000 keys 109 GB and three minutes of CPU
// (a cut 6.5M-operation history spent most of `stormcheck check` there).
func TestLongSummaryWrapsInLinearWork(t *testing.T) {
	var keys []string
	for i := range 2_000 {
		keys = append(keys, "counter-"+strings.Repeat("9", i%5)+" (too large for porcupine, and version-chain could not decide it: no final read of 1 key: 350 ops, 32 actors)")
	}
	summary := "2000 keys, undecided: " + strings.Join(keys, "; ")
	s := &reports.Summary{Scenario: "cut", Checks: []checks.Result{{Check: "linearizable", Workload: "counter", Verdict: checks.Undecided,
		Summary: summary, Judgeable: 1}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var out countingWriter
	if err := WriteText(&out, s); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	if out.n < int64(len(summary)) {
		t.Fatalf("the report holds %d bytes, less than the %d-byte summary", out.n, len(summary))
	}
	if limit := 40 * uint64(len(summary)); allocated > limit {
		t.Errorf("rendering a %d-byte summary allocated %d bytes (%.0f times its size; at most 40 wanted): the wrap is not linear",
			len(summary), allocated, float64(allocated)/float64(len(summary)))
	}
	t.Logf("summary %d bytes, report %d bytes, allocated %d bytes (%.1f times the summary)",
		len(summary), out.n, allocated, float64(allocated)/float64(len(summary)))
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)
