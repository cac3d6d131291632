package checks

import (
	"io"

	"github.com/klauspost/compress/zstd"
)

// HistoryWriter compresses a history as it is written: one JSON Op per line,
// in a zstd stream (RFC 8878) that `zstd -dc` and ReadHistory read. Flush
// ends the current block, so that everything written before it can be read
// back even if the process dies or the disk fills up right after; Close ends
// the frame.
type HistoryWriter struct {
	enc *zstd.Encoder
}

// NewHistoryWriter compresses into w at zstd's fastest level (about a tenth
// of the JSON's size for a typical history; the recorder's cost per record
// stays well under a microsecond).
func NewHistoryWriter(w io.Writer) (*HistoryWriter, error) {
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, err
	}
	return &HistoryWriter{enc: enc}, nil
}

// Write compresses p (whole lines, as the recorder writes them).
func (h *HistoryWriter) Write(p []byte) (int, error) { return h.enc.Write(p) }

// Flush writes what was compressed so far as a complete block.
func (h *HistoryWriter) Flush() error { return h.enc.Flush() }

// Close ends the stream; the underlying writer stays open.
func (h *HistoryWriter) Close() error { return h.enc.Close() }
