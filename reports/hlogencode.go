package reports

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// intervalEncoder writes interval lines of an HdrHistogram log exactly as
// hdrhistogram-go's HistogramLogWriter.OutputIntervalHistogram does (same
// text, same V2 compressed payload, byte for byte), but with one zlib
// writer reused for every interval: the library makes a new one per
// interval (zlib.BestCompression, over a megabyte allocated and zeroed
// each time), which was most of what a run allocated beyond the SDK's own
// per-call garbage, and made the collector run that much more often.
// TestIntervalEncoderMatchesLibrary holds it to the library's bytes.
type intervalEncoder struct {
	zw         *zlib.Writer
	raw, zbuf  bytes.Buffer
	out, line  []byte
	bin        []byte
	countsByte []byte
}

// write appends h's interval line to w (the log's base time is 0, and the
// histograms carry no tag, as the log writer is used here).
func (e *intervalEncoder) write(w io.Writer, h *hdrhistogram.Histogram) error {
	payload, err := e.encodeV2(h)
	if err != nil {
		return err
	}
	start := float64(h.StartTimeMs()) / 1000.0
	end := float64(h.EndTimeMs()) / 1000.0
	maxValue := float64(h.Max()) / hdrhistogram.MsToNsRatio
	e.line = fmt.Appendf(e.line[:0], "%f,%f,%f,%s\n", start, end-start, maxValue, payload)
	_, err = w.Write(e.line)
	return err
}

// encodeV2 is h.EncodeV2(): base64 of the compressed-encoding cookie, the
// compressed length and the zlib (best compression) of the V2 encoding
// (a 40-byte header, then the counts up to the highest non-zero one as
// ZigZag LEB128 varints, a run of zeros as its negated length).
func (e *intervalEncoder) encodeV2(h *hdrhistogram.Histogram) ([]byte, error) {
	const (
		encodingCookie           = hdrhistogram.V2EncodingCookieBase | 0x10
		compressedEncodingCookie = hdrhistogram.V2CompressedEncodingCookieBase | 0x10
	)
	s := h.Export()
	limit := 1 // an empty histogram encodes its first count (0)
	for i := len(s.Counts) - 1; i >= 0; i-- {
		if s.Counts[i] != 0 {
			limit = i + 1
			break
		}
	}
	limit = min(limit, len(s.Counts))
	c := e.countsByte[:0]
	for i := 0; i < limit; {
		count := s.Counts[i]
		i++
		zeros := int64(0)
		if count == 0 {
			zeros = 1
			for i < limit && s.Counts[i] == 0 {
				zeros++
				i++
			}
		}
		if zeros > 1 {
			c = appendZigZag(c, -zeros)
		} else {
			c = appendZigZag(c, count)
		}
	}
	e.countsByte = c

	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	var hdr [40]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(encodingCookie))
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(c)))
	binary.BigEndian.PutUint32(hdr[8:], 0) // normalizing index offset (always 0 in this port)
	binary.BigEndian.PutUint32(hdr[12:], uint32(int32(s.SignificantFigures)))
	binary.BigEndian.PutUint64(hdr[16:], uint64(s.LowestTrackableValue))
	binary.BigEndian.PutUint64(hdr[24:], uint64(s.HighestTrackableValue))
	binary.BigEndian.PutUint64(hdr[32:], math.Float64bits(ratio))
	e.raw.Reset()
	e.raw.Write(hdr[:])
	e.raw.Write(c)

	e.zbuf.Reset()
	if e.zw == nil {
		zw, err := zlib.NewWriterLevel(&e.zbuf, zlib.BestCompression)
		if err != nil {
			return nil, err
		}
		e.zw = zw
	} else {
		e.zw.Reset(&e.zbuf)
	}
	if _, err := e.zw.Write(e.raw.Bytes()); err != nil {
		return nil, err
	}
	if err := e.zw.Close(); err != nil {
		return nil, err
	}
	bin := binary.BigEndian.AppendUint32(e.bin[:0], uint32(compressedEncodingCookie))
	bin = binary.BigEndian.AppendUint32(bin, uint32(e.zbuf.Len()))
	bin = append(bin, e.zbuf.Bytes()...)
	e.bin = bin
	n := base64.StdEncoding.EncodedLen(len(bin))
	if cap(e.out) < n {
		e.out = make([]byte, n)
	}
	e.out = e.out[:n]
	base64.StdEncoding.Encode(e.out, bin)
	return e.out, nil
}

// appendZigZag appends v as a ZigZag LEB128 varint of at most 9 bytes (the
// ninth byte carries 8 bits), as HdrHistogram's V2 encoding does.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}
