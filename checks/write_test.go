package checks_test

import (
	"bufio"
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/internal/synthhist"
)

// The history writer dropped zstd's lower-memory mode for speed: the
// compressed bytes must be those the lower-memory encoder wrote (same
// window, same level), block flushes included, so histories written
// before and after compare byte for byte.
func TestHistoryWriterBytesUnchanged(t *testing.T) {
	var plain bytes.Buffer
	if _, err := synthhist.Write(&plain, synthhist.Default(20000)); err != nil {
		t.Fatal(err)
	}
	lines := plain.Bytes() // JSON lines
	if len(lines) < 4<<20 {
		t.Fatalf("only %d bytes of history: too few to move the 1 MiB window", len(lines))
	}
	// The recorder writes through a 256 KiB buffer and ends a block every
	// second; here every 3 MiB.
	write := func(w io.Writer, flush func() error) {
		bw := bufio.NewWriterSize(w, 256<<10)
		for i, l := range bytes.SplitAfter(lines, []byte("\n")) {
			bw.Write(l)
			if i%10000 == 9999 {
				bw.Flush()
				if err := flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		bw.Flush()
	}
	var got bytes.Buffer
	hw, err := checks.NewHistoryWriter(&got)
	if err != nil {
		t.Fatal(err)
	}
	write(hw, hw.Flush)
	if err := hw.Close(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	old, err := zstd.NewWriter(&want, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(checks.HistoryWindow), zstd.WithLowerEncoderMem(true))
	if err != nil {
		t.Fatal(err)
	}
	write(old, old.Flush)
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("compressed history differs from the lower-memory encoder's: %d bytes, want %d", got.Len(), want.Len())
	}
	back, err := io.ReadAll(mustDecode(t, got.Bytes()))
	if err != nil || !bytes.Equal(back, lines) {
		t.Fatalf("history does not read back (%v)", err)
	}
}

func mustDecode(t *testing.T, b []byte) io.Reader {
	t.Helper()
	d, err := zstd.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}
