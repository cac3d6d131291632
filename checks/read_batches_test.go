package checks

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// sameAsReadHistory checks that reading data a batch at a time (the
// decompressor running ahead on goroutines of its own) delivers exactly
// the records ReadHistory delivers, and ends with the same error.
func sameAsReadHistory(t *testing.T, name string, data []byte) {
	t.Helper()
	var want []Op
	wantErr := ReadHistory(bytes.NewReader(data), func(op *Op) error { want = append(want, *op); return nil })
	var got []Op
	gotErr := ReadHistoryBatches(bytes.NewReader(data), func(ops []Op, line func(int) []byte) error {
		for i := range ops {
			if i == 0 && len(line(i)) == 0 {
				return fmt.Errorf("batch with an empty first line")
			}
			got = append(got, ops[i])
		}
		return nil
	})
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || IsTruncated(gotErr) != IsTruncated(wantErr) {
		t.Fatalf("%s: batches end with %v, ReadHistory with %v", name, gotErr, wantErr)
	}
	if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: batches delivered %d records, ReadHistory %d", name, len(got), len(want))
	}
}

// A compressed history read a batch at a time, whole, cut anywhere or
// damaged anywhere, gives what ReadHistory gives: the same records and the
// same truncation or error.
func TestReadHistoryBatchesIsReadHistory(t *testing.T) {
	b, flushed := writeCompressed(t, 5000, 1000)
	sameAsReadHistory(t, "whole", b)
	for _, cut := range []int{flushed[1], flushed[1] + 7, flushed[2] - 3, len(b) - 2, 10, 3} {
		sameAsReadHistory(t, fmt.Sprintf("cut at %d", cut), b[:cut])
	}
	for _, at := range []int{20, flushed[0] + 40, flushed[2] + 100, len(b) / 2, len(b) - 30} {
		damaged := bytes.Clone(b)
		damaged[at] ^= 0x5a
		sameAsReadHistory(t, fmt.Sprintf("damaged at %d", at), damaged)
	}
}

func FuzzReadHistoryBatches(f *testing.F) {
	b, flushed := writeCompressed(&testing.T{}, 300, 100)
	f.Add(b)
	f.Add(b[:flushed[1]+5])
	f.Add([]byte("{\"seq\":1}\n{\"seq\":\"x\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsReadHistory(t, "input", data)
	})
}

// A caller that stops early gets its own error back, and the reading (the
// decompression ahead included) ends.
func TestReadHistoryBatchesStopsEarly(t *testing.T) {
	b, _ := writeCompressed(t, 20_000, 1000)
	stop := fmt.Errorf("enough")
	batches := 0
	err := ReadHistoryBatches(bytes.NewReader(b), func(ops []Op, _ func(int) []byte) error {
		batches++
		return stop
	})
	if err != stop || batches != 1 {
		t.Errorf("stopped after %d batches with %v, want 1 and the caller's error", batches, err)
	}
}
