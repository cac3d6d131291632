package reports

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		old     *string // existing content, nil for none
		write   func(io.Writer) error
		wantErr bool
		want    *string // content after, nil for no file
	}{
		{
			name:  "creates",
			write: func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err },
			want:  ptr("new"),
		},
		{
			name:  "replaces",
			old:   ptr("old"),
			write: func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err },
			want:  ptr("new"),
		},
		{
			name: "error keeps the old file",
			old:  ptr("old"),
			write: func(w io.Writer) error {
				io.WriteString(w, "partial")
				return boom
			},
			wantErr: true,
			want:    ptr("old"),
		},
		{
			name:    "error leaves no file",
			write:   func(io.Writer) error { return boom },
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "summary.json")
			if tc.old != nil {
				if err := os.WriteFile(path, []byte(*tc.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFileAtomic(path, tc.write)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr && !errors.Is(err, boom) {
				t.Errorf("err = %v, want the writer's error", err)
			}
			b, rerr := os.ReadFile(path)
			switch {
			case tc.want == nil && rerr == nil:
				t.Errorf("file exists: %q", b)
			case tc.want != nil && string(b) != *tc.want:
				t.Errorf("content %q (%v), want %q", b, rerr, *tc.want)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "summary.json" {
					t.Errorf("left behind %s", e.Name())
				}
			}
			if tc.want != nil && !tc.wantErr {
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
					t.Errorf("mode %v", fi.Mode())
				}
			}
		})
	}
}

// TestWriteFileAtomicMissingDir: a file that cannot be written is named in
// the error as asked for, never by the temporary name the user never heard
// of (stormcheck init x/new.yaml said "open x/.new.yaml.tmp-2012920362: no
// such file or directory"); a directory in the way says so (schema --out DIR
// said "rename /tmp/.DIR.tmp-3728306472 DIR: file exists"), and stays empty.
func TestWriteFileAtomicMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "x.json")
	err := WriteFileAtomic(path, func(io.Writer) error { return nil })
	if err == nil || err.Error() != "write "+path+": no such file or directory" {
		t.Errorf("writing into a missing directory: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "taken")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err = WriteFileAtomic(dir, func(io.Writer) error { return nil })
	if err == nil || err.Error() != "write "+dir+": is a directory; name a file" {
		t.Errorf("writing over a directory: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Dir(dir)); len(left) != 1 {
		t.Errorf("left beside it: %v", left)
	}
}

func ptr(s string) *string { return &s }
