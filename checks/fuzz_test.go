package checks

import (
	"bytes"
	"errors"
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
