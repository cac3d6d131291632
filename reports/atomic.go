package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with what write produces, all or nothing:
// it writes a temporary file in the same directory, syncs it, and renames
// it over path (then syncs the directory, where the platform allows). If
// write or any step fails, the old file (if any) is untouched and the
// temporary file removed. The new file has mode 0644.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		// Named for the file asked for, not the temporary one the user
		// never heard of (".x.yaml.tmp-2012920362: no such file").
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory; name a file")}
		}
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable; best effort, as some platforms cannot
// sync a directory.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// WriteSummaryJSON writes s to path as indented JSON, atomically.
func WriteSummaryJSON(path string, s *Summary) error {
	if s == nil {
		return errors.New("reports: nil summary")
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(s)
	})
}
