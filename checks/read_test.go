package checks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

func readOps(t *testing.T, b []byte) ([]Op, error) {
	t.Helper()
	var ops []Op
	err := ReadHistory(bytes.NewReader(b), func(op *Op) error { ops = append(ops, *op); return nil })
	return ops, err
}

func testOp(i int) *Op {
	return &Op{Seq: uint64(i + 1), Actor: i % 7, Workload: "w", Kind: "blob.put", Key: fmt.Sprintf("k%d", i%13), Attempt: 1,
		Call: int64(i) * 1000, Return: int64(i)*1000 + 500, In: Input{IfMatch: fmt.Sprintf(`"0x%X"`, i), Value: fmt.Sprintf("%d a%d-%d", i, i%7, i)},
		Out: Output{Status: 201, ETag: fmt.Sprintf(`"0x%X"`, i+1), RequestID: fmt.Sprintf("req-%08d", i)}}
}

// writeCompressed writes n ops, flushing after every flushEvery records,
// and returns the stream and the offsets where each flush ended.
func writeCompressed(t *testing.T, n, flushEvery int) ([]byte, []int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewHistoryWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var flushed []int
	for i := range n {
		line, _ := testOp(i).MarshalJSONLine()
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
		if (i+1)%flushEvery == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			flushed = append(flushed, buf.Len())
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), flushed
}

func TestReadHistoryCompressedRoundTrip(t *testing.T) {
	b, _ := writeCompressed(t, 5000, 1000)
	var plain bytes.Buffer
	for i := range 5000 {
		line, _ := testOp(i).MarshalJSONLine()
		plain.Write(line)
	}
	if len(b)*4 > plain.Len() {
		t.Errorf("compressed %d bytes, plain %d: want at least 4 times smaller", len(b), plain.Len())
	}
	for name, data := range map[string][]byte{"zstd": b, "plain": plain.Bytes()} {
		ops, err := readOps(t, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ops) != 5000 || ops[4999].Seq != 5000 || ops[1234].In.Value != testOp(1234).In.Value {
			t.Errorf("%s: read %d ops, want 5000 identical to those written", name, len(ops))
		}
	}
}

// A stream cut anywhere (a killed run, a full disk) reads up to its last
// whole record and says it was truncated; a stream cut right after a flush
// loses nothing flushed.
func TestReadHistoryTruncated(t *testing.T) {
	b, flushed := writeCompressed(t, 5000, 1000)
	for _, cut := range []int{flushed[1], flushed[1] + 7, flushed[2] - 3, len(b) - 2} {
		ops, err := readOps(t, b[:cut])
		var tr *TruncatedError
		if !errors.As(err, &tr) {
			t.Fatalf("cut at %d of %d: err %v, want a TruncatedError", cut, len(b), err)
		}
		if tr.Records != len(ops) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("cut at %d: error says %d records, %d delivered: %v", cut, tr.Records, len(ops), err)
		}
		if cut >= flushed[1] && len(ops) < 2000 {
			t.Errorf("cut at %d (after the second flush): %d ops read, want at least the 2000 flushed", cut, len(ops))
		}
		for i, op := range ops {
			if op.Seq != uint64(i+1) {
				t.Fatalf("cut at %d: op %d has seq %d", cut, i, op.Seq)
			}
		}
	}
	// A plain history whose last line was cut.
	var plain bytes.Buffer
	for i := range 3 {
		line, _ := testOp(i).MarshalJSONLine()
		plain.Write(line)
	}
	ops, err := readOps(t, plain.Bytes()[:plain.Len()-10])
	if !IsTruncated(err) || len(ops) != 2 {
		t.Errorf("plain cut: %d ops, err %v; want 2 and a truncation", len(ops), err)
	}
	// A bad record is an error naming its line, not a truncation.
	_, err = readOps(t, []byte("{\"seq\":1}\n{\"seq\":\"x\"}\n"))
	if err == nil || IsTruncated(err) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad record: %v", err)
	}
}

// The documented one-liner reads the history with the zstd tool.
func TestHistoryReadableByZstdTool(t *testing.T) {
	zstdBin, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("zstd tool not installed")
	}
	b, _ := writeCompressed(t, 100, 30)
	p := filepath.Join(t.TempDir(), "history.jsonl.zst")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zstdBin, "-dc", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want, _ := testOp(99).MarshalJSONLine()
	if len(lines) != 100 || lines[99]+"\n" != string(want) {
		t.Errorf("zstd -dc printed %d lines, want 100 ending with the last op", len(lines))
	}
}

// TestReadHistoryGivesRecordsOfAStalledSource: a history that stops coming
// mid-way (a pipe whose writer holds it open, as a hung disk or a run still
// writing) gives ReadHistory's fn each record as soon as its line is read,
// and a fn that stops after the first returns at once: merge reads a
// shard's first record this way. (In the synctest bubble a reader waiting
// for a batch to fill would leave every goroutine blocked: a deadlock the
// test reports, not a hang.)
func TestReadHistoryGivesRecordsOfAStalledSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var lines []byte
		for i := range 10 {
			op := Op{Actor: i, Workload: "w", Kind: "blob.get", Key: "k", Attempt: 1, Call: 1, Return: 2, Seq: uint64(i + 1)}
			lines = op.AppendJSONLine(lines)
		}
		pr, pw := io.Pipe()
		go func() { _, _ = pw.Write(lines) }() // then nothing more: the writer holds the pipe
		stop := errors.New("first record read")
		var got []int
		err := ReadHistory(pr, func(op *Op) error {
			got = append(got, op.Actor)
			return stop
		})
		if !errors.Is(err, stop) || len(got) != 1 || got[0] != 0 {
			t.Fatalf("err %v, records %v; want the first record and fn's error", err, got)
		}
		pw.Close()
	})
}
