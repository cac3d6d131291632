package boundedread

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	const bound = 1 << 20
	write := func(name string, n int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil { // sparse: nothing is written
			t.Fatal(err)
		}
		f.Close()
		return p
	}

	// At the bound: read whole, in one allocation.
	at := write("at", bound)
	b, err := ReadFile(at, bound, "a thing")
	if err != nil || len(b) != bound || !bytes.Equal(b, make([]byte, bound)) {
		t.Fatalf("at the bound: %d bytes, %v", len(b), err)
	}
	// Empty: empty, no error.
	if b, err := ReadFile(write("empty", 0), bound, "a thing"); err != nil || len(b) != 0 {
		t.Fatalf("empty: %d bytes, %v", len(b), err)
	}

	// One byte past: refused from its size, naming the file, its size and the bound.
	past := write("past", bound+1)
	_, err = ReadFile(past, bound, "a thing")
	want := past + ": the file holds 1048577 bytes; a thing holds at most 1048576 bytes (1 MiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("past the bound: %v\nwant %s", err, want)
	}
	if e := As(err); e == nil || e.Size != bound+1 || e.Bound != bound || e.File != past {
		t.Fatalf("As: %+v", e)
	}

	// A device says size 0 and never ends: read up to the bound, then refused.
	_, err = ReadFile("/dev/zero", bound, "a thing")
	want = "/dev/zero: the file holds more than 1 MiB; a thing holds at most 1048576 bytes (1 MiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("/dev/zero: %v\nwant %s", err, want)
	}

	// A missing file is the operating system's error.
	if _, err := ReadFile(filepath.Join(dir, "none"), bound, "a thing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

// A file of an fs.FS that says nothing of its size (not a regular file) is
// read in chunks up to the bound and joined; past it, refused.
func TestReadUnsizedFile(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16) // 300 KiB: several chunks
	fsys := fstest.MapFS{"pipe": {Data: data, Mode: os.ModeNamedPipe}}
	f, _ := fsys.Open("pipe")
	b, err := Read(f, "pipe", 1<<20, "a thing")
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	f, _ = fsys.Open("pipe")
	_, err = Read(f, "pipe", 100<<10, "a thing")
	if e := As(err); e == nil || e.Size != -1 || !strings.Contains(err.Error(), "holds more than 100 KiB") {
		t.Fatalf("past the bound: %v", err)
	}
}

func TestLineError(t *testing.T) {
	err := error(&Error{Line: 3, What: "a line of a log", Size: -1, Bound: 16 << 20})
	if got, want := err.Error(), "line 3 holds more than 16 MiB; a line of a log holds at most 16777216 bytes (16 MiB)"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
	for n, want := range map[int64]string{256 << 20: "256 MiB", 1 << 30: "1 GiB", 8 << 10: "8 KiB", 1500: "1500 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %s, want %s", n, got, want)
		}
	}
}
