package checks

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeLineIsEncodingJSON: the reader's decoder gives exactly what
// encoding/json gives, for ops with every field set at random (strings with
// escapes, invalid UTF-8, nested answers), and for the same lines with
// whitespace between their tokens; and it decodes a blob op's line on its
// fast path, not by falling back.
func TestDecodeLineIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var d opDecoder
	for i := range 20000 {
		var src Op
		fill(r, reflect.ValueOf(&src).Elem())
		line, err := json.Marshal(&src)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 { // the same line indented: whitespace between every token
			var ind bytes.Buffer
			if err := json.Indent(&ind, line, " ", "\t"); err != nil {
				t.Fatal(err)
			}
			line = ind.Bytes()
		}
		var got, want Op
		errGot, errWant := d.DecodeLine(line, &got), json.Unmarshal(line, &want)
		if (errGot == nil) != (errWant == nil) {
			t.Fatalf("op %d: decoder says %v, encoding/json %v\n%s", i, errGot, errWant, line)
		}
		if errWant == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("op %d:\n got %+v\nwant %+v\n%s", i, got, want, line)
		}
	}
	op := Op{Seq: 7, Actor: 3, Workload: "counter", Kind: "blob.put", Key: "k1", Attempt: 1, Intended: 1, Call: 2, Return: 3, Outcome: Conflict,
		In:  Input{IfMatch: `"0x8DC"`, Value: "12 a3-4", Bytes: 7, Visibility: new(int), Props: []string{"é"}},
		Out: Output{Status: 412, ErrorCode: "ConditionNotMet", ETag: `"0x8DD"`, RequestID: "r1", LastModified: "Tue, 24 Nov 2026 06:30:00 GMT", Done: true}}
	line := bytes.TrimSuffix(op.AppendJSONLine(nil), []byte("\n"))
	var fast Op
	if !d.decode(line, &fast) || !reflect.DeepEqual(fast, op) {
		t.Errorf("a blob op's line took the slow path or decoded as %+v", fast)
	}
}

// FuzzDecodeLine: on any bytes, the decoder and encoding/json agree on
// whether the line is an Op and, when it is, on the Op.
func FuzzDecodeLine(f *testing.F) {
	for i := range 5 {
		line, _ := testOp(i).MarshalJSONLine()
		f.Add(bytes.TrimSuffix(line, []byte("\n")))
	}
	for _, s := range []string{`{"seq":-1}`, `{"seq":01}`, `{"actor":1e3}`, `{"Seq":1}`, `{"in":null}`, `{"key":"\u0041"}`,
		`{"out":{"done":true,"lease_time":-9223372036854775808}}`, `{"seq":18446744073709551616}`, `{"in":{"props":[]}}`, `{} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var d opDecoder
		var got, want Op
		errGot, errWant := d.DecodeLine(line, &got), json.Unmarshal(line, &want)
		if (errGot == nil) != (errWant == nil) {
			t.Fatalf("decoder says %v, encoding/json %v", errGot, errWant)
		}
		if errWant == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("\n got %+v\nwant %+v", got, want)
		}
	})
}

// BenchmarkHistoryDecode compares the reader's decoder with encoding/json
// on a typical blob op's line, side by side.
//
//	go test -run '^$' -bench HistoryDecode ./checks/
func BenchmarkHistoryDecode(b *testing.B) {
	op := Op{Seq: 123456, Actor: 3, Workload: "counter", Kind: "blob.put", Key: "k1", Attempt: 1, Intended: 1234567890, Call: 1234567990, Return: 1235567890,
		In:  Input{IfMatch: `"0x8DC0123456789AB"`, Value: "12 a3-4", Bytes: 7},
		Out: Output{Status: 201, ETag: `"0x8DC0123456789AC"`, RequestID: "7f1b2c3d-0000-0000-0000-000000000000", LastModified: "Tue, 24 Nov 2026 06:30:00 GMT"}}
	line := bytes.TrimSuffix(op.AppendJSONLine(nil), []byte("\n"))
	b.Run("DecodeLine", func(b *testing.B) {
		var d opDecoder
		b.ReportAllocs()
		for b.Loop() {
			var o Op
			if err := d.DecodeLine(line, &o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var o Op
			if err := json.Unmarshal(line, &o); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRouteHistoryLines: routing reads the workload and key encoding/json
// reads, for ops with every field set at random, and hands on the lines as
// they were; a line that is not a record is still an error.
func TestRouteHistoryLines(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var hist bytes.Buffer
	var want []Op
	for range 3000 {
		var op Op
		fill(r, reflect.ValueOf(&op).Elem())
		op.Outcome %= numOutcomes // a record, not an unknown outcome's error
		line, err := json.Marshal(&op)
		if err != nil {
			t.Fatal(err)
		}
		var back Op
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		want = append(want, back)
		hist.Write(append(line, '\n'))
	}
	lines := bytes.Split(bytes.TrimSuffix(hist.Bytes(), []byte("\n")), []byte("\n"))
	i := 0
	err := RouteHistoryLines(bytes.NewReader(hist.Bytes()), func(op *Op, line []byte) error {
		if op.Workload != want[i].Workload || op.Key != want[i].Key || !bytes.Equal(line, lines[i]) {
			t.Fatalf("record %d routed as %q %q, want %q %q", i, op.Workload, op.Key, want[i].Workload, want[i].Key)
		}
		i++
		return nil
	})
	if err != nil || i != len(want) {
		t.Fatalf("%d of %d records routed: %v", i, len(want), err)
	}
	if err := RouteHistoryLines(strings.NewReader("not json\n"), func(*Op, []byte) error { return nil }); err == nil {
		t.Error("a line that is not a record was routed")
	}
	var d opDecoder
	line := bytes.TrimSuffix(testOp(1).AppendJSONLine(nil), []byte("\n"))
	if !d.route(line, &Op{}) {
		t.Error("a recorded line was not routed on the fast path")
	}
}
