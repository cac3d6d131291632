package checks

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fill sets every field of v (a pointer) at random, recursively: empty and
// set strings (with quotes, controls, HTML characters, U+2028, invalid
// UTF-8), zero and set numbers, nil and set pointers, slices and maps.
func fill(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(randString(r))
	case reflect.Int, reflect.Int64:
		if r.IntN(3) > 0 {
			v.SetInt(r.Int64N(1<<40) - 1<<39)
		} else {
			v.SetInt(0)
		}
	case reflect.Uint64:
		v.SetUint(r.Uint64())
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Uint8: // Outcome, some past the known ones
		v.SetUint(uint64(r.IntN(8)))
	case reflect.Pointer:
		if r.IntN(2) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem())
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(3) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + r.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := 0; i < n; i++ {
				fill(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := r.IntN(4); i > 0; i-- {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(r, k)
			fill(r, e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(r, v.Field(i))
		}
	default:
		panic("fill: " + v.Type().String() + " is new in the history types: teach fill and AppendJSONLine")
	}
}

var pieces = []string{"", "a", "k0", `"`, `\`, "<b>&", "\n\t\r\b\f", "\x00\x1f\x7f", "é", "\u2028\u2029", "\xff\xfe", "😀", "0x8D", `{"n":1}`}

func randString(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return ""
	}
	var s string
	for i := 1 + r.IntN(4); i > 0; i-- {
		s += pieces[r.IntN(len(pieces))]
	}
	return s
}

// TestAppendJSONLineIsEncodingJSON: the recorder's encoder writes exactly
// what encoding/json writes, for ops with every field set at random.
func TestAppendJSONLineIsEncodingJSON(t *testing.T) {
	if !encoderKnowsTypes {
		t.Fatal("a history type has a field AppendJSONLine does not write: add it there and to encodedFields")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for i := 0; i < 20000; i++ {
		var op Op
		fill(r, reflect.ValueOf(&op).Elem())
		want, err := json.Marshal(&op)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		buf = op.AppendJSONLine(buf[:0])
		if !bytes.Equal(buf, want) {
			t.Fatalf("op %d:\n got %s\nwant %s", i, buf, want)
		}
	}
}

func TestAppendJSONLineAllocatesNothing(t *testing.T) {
	op := Op{Seq: 7, Actor: 3, Workload: "counter", Kind: "blob.put", Key: "k1", Attempt: 1, Intended: 1, Call: 2, Return: 3,
		In: Input{IfMatch: `"0x8DC"`, Value: "12 a3-4"}, Out: Output{Status: 201, ETag: `"0x8DD"`, RequestID: "r1"}}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { buf = op.AppendJSONLine(buf[:0]) }); n != 0 {
		t.Errorf("%v allocations per op", n)
	}
}

// BenchmarkHistoryEncode compares the recorder's encoder with encoding/json
// on a typical blob op.
//
//	go test -run '^$' -bench HistoryEncode ./checks/
func BenchmarkHistoryEncode(b *testing.B) {
	op := Op{Seq: 123456, Actor: 3, Workload: "counter", Kind: "blob.put", Key: "k1", Attempt: 1, Intended: 1234567890, Call: 1234567990, Return: 1235567890,
		In:  Input{IfMatch: `"0x8DC0123456789AB"`, Value: "12 a3-4", Bytes: 7},
		Out: Output{Status: 201, ETag: `"0x8DC0123456789AC"`, RequestID: "7f1b2c3d-0000-0000-0000-000000000000", LastModified: "Tue, 24 Nov 2026 06:30:00 GMT"}}
	b.Run("AppendJSONLine", func(b *testing.B) {
		buf := make([]byte, 0, 1024)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf = op.AppendJSONLine(buf[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var w bytes.Buffer
		enc := json.NewEncoder(&w)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			w.Reset()
			_ = enc.Encode(&op)
		}
	})
}
