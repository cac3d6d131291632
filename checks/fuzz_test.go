package checks

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/internal/fuzzguard"
)

// FuzzReadHistory checks that the history reader never panics on any bytes
// (plain or zstd), delivers only whole records, and when it says the
// history was truncated counts exactly the records it delivered; within
// fuzzguard's bounds on one input's time and memory (scripts/fuzz.sh).
func FuzzReadHistory(f *testing.F) {
	var plain bytes.Buffer
	for i := range 20 {
		line, err := testOp(i).MarshalJSONLine()
		if err != nil {
			f.Fatal(err)
		}
		plain.Write(line)
	}
	var packed bytes.Buffer
	w, err := NewHistoryWriter(&packed)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 20 {
		line, _ := testOp(i).MarshalJSONLine()
		_, _ = w.Write(line)
		if i%7 == 6 {
			_ = w.Flush()
		}
	}
	_ = w.Close()
	for _, seed := range [][]byte{
		plain.Bytes(),
		plain.Bytes()[:plain.Len()-9], // a last line cut short
		packed.Bytes(),
		packed.Bytes()[:packed.Len()/2], // a frame cut short
		[]byte("{\"seq\":1}\n\n{\"seq\":2}\r\n"),
		[]byte("not json\n"),
		{0x28, 0xb5, 0x2f, 0xfd},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		delivered := 0
		var err error
		fuzzguard.Run(t, func() {
			err = ReadHistory(bytes.NewReader(data), func(op *Op) error {
				if op == nil {
					t.Fatal("nil op delivered")
				}
				delivered++
				return nil
			})
		})
		var trunc *TruncatedError
		if errors.As(err, &trunc) && trunc.Records != delivered {
			t.Fatalf("truncated after %d records, but %d were delivered", trunc.Records, delivered)
		}
	})
}

// TestHistoryReaderBoundsTheZstdWindow: a ten-byte frame header asking for
// a 128 MiB window is refused before the window is allocated (the reader
// allocated 129 MiB for it, and 512 MiB for the largest the library allows).
func TestHistoryReaderBoundsTheZstdWindow(t *testing.T) {
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88} // frame header: window 2^27
	h := uint32(1 | 4<<3)                               // one raw block, the last, of 4 bytes
	frame = append(frame, byte(h), byte(h>>8), byte(h>>16))
	frame = append(frame, "{}\n\n"...)
	var err error
	fuzzguard.Run(t, func() {
		err = ReadHistory(bytes.NewReader(frame), func(*Op) error { return nil })
	})
	if err == nil || !strings.Contains(err.Error(), "compressed with a window over 8 MiB") {
		t.Fatalf("got %v", err)
	}
	// A window the writer could have used is read.
	frame[5] = 0x50 // 2^20
	n := 0
	if err := ReadHistory(bytes.NewReader(frame), func(*Op) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("1 MiB window: %d records, %v", n, err)
	}
}
