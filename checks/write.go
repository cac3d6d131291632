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
// stays well under a microsecond), with a 1 MiB window. The encoder keeps
// its default history buffer (2 MiB): with WithLowerEncoderMem it holds the
// window plus one block, and moves the whole 1 MiB window down before every
// 128 KiB block (8 bytes copied per byte compressed, a quarter of the
// compressor's time, and the cache flushed for the actors every few hundred
// records); the output is the same.
func NewHistoryWriter(w io.Writer) (*HistoryWriter, error) {
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20))
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
