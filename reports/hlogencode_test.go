package reports

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The interval encoder must write what hdrhistogram-go's log writer writes,
// byte for byte: empty histograms, one value, the histogram's bounds, long
// runs of zeros, counts that need every varint width, and many random
// ones, all through one reused encoder.
func TestIntervalEncoderMatchesLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	var cases []func(h *hdrhistogram.Histogram)
	cases = append(cases,
		func(h *hdrhistogram.Histogram) {}, // empty
		func(h *hdrhistogram.Histogram) { h.RecordValue(1) },
		func(h *hdrhistogram.Histogram) { h.RecordValue(HistLowest) },
		func(h *hdrhistogram.Histogram) { h.RecordValue(HistHighest) },
		func(h *hdrhistogram.Histogram) { h.RecordValues(700, math.MaxInt64/4) }, // a count of 9 varint bytes
		func(h *hdrhistogram.Histogram) {
			for i := int64(0); i < 12; i++ {
				h.RecordValues(3+i*997, 1<<(5*i)) // every width on the way
			}
		},
	)
	for i := 0; i < 40; i++ {
		n := r.IntN(5000)
		scale := int64(1) << r.IntN(30)
		cases = append(cases, func(h *hdrhistogram.Histogram) {
			for j := 0; j < n; j++ {
				h.RecordValue(min(1+r.Int64N(scale), HistHighest))
			}
		})
	}
	var enc intervalEncoder
	for i, fill := range cases {
		h := NewHistogram()
		fill(h)
		sec := int64(r.IntN(100000))
		h.SetStartTimeMs(sec * 1000)
		h.SetEndTimeMs((sec + 1) * 1000)
		var want, got bytes.Buffer
		if err := hdrhistogram.NewHistogramLogWriter(&want).OutputIntervalHistogram(h); err != nil {
			t.Fatal(err)
		}
		if err := enc.write(&got, h); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("case %d (%d values, max %d): line differs from the library's\n got %q\nwant %q",
				i, h.TotalCount(), h.Max(), got.String(), want.String())
		}
		back, err := hdrhistogram.Decode(bytes.TrimSpace(bytes.Split(got.Bytes(), []byte(","))[3]))
		if err != nil || !back.Equals(h) {
			t.Fatalf("case %d: the payload does not decode to the histogram (%v)", i, err)
		}
	}
}

// BenchmarkIntervalEncoder compares writing one interval line with the
// library's log writer (a new zlib writer per line) and with the reused
// encoder, side by side.
//
//	go test -run '^$' -bench IntervalEncoder -benchmem ./reports/
func BenchmarkIntervalEncoder(b *testing.B) {
	h := NewHistogram()
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		h.RecordValue(200 + r.Int64N(5000))
	}
	var out bytes.Buffer
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		lw := hdrhistogram.NewHistogramLogWriter(&out)
		for i := 0; i < b.N; i++ {
			out.Reset()
			if err := lw.OutputIntervalHistogram(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		var enc intervalEncoder
		for i := 0; i < b.N; i++ {
			out.Reset()
			if err := enc.write(&out, h); err != nil {
				b.Fatal(err)
			}
		}
	})
}
