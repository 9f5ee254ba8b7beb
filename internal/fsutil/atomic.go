// Package fsutil writes files so that readers see either the old content or
// the new, never a half-written file: the data goes to a temporary file in
// the same directory, which is then renamed into place.
package fsutil

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Options control an atomic write.
type Options struct {
	// Perm is the mode of the written file (0600 when zero).
	Perm os.FileMode
	// DirPerm, when not zero, creates missing parent directories with
	// this mode.
	DirPerm os.FileMode
	// NoReplace fails instead of replacing an existing file.
	NoReplace bool
	// Sync flushes the file and its directory to stable storage.
	Sync bool
}

// Write creates or replaces path with what fill writes.
func Write(path string, opts Options, fill func(w *bufio.Writer) error) error {
	dir := filepath.Dir(path)
	if opts.DirPerm != 0 {
		if err := os.MkdirAll(dir, opts.DirPerm); err != nil {
			return err
		}
	}
	perm := opts.Perm
	if perm == 0 {
		perm = 0o600
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	w := bufio.NewWriterSize(f, 256<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && opts.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if opts.NoReplace {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s already exists", path)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if opts.Sync {
		SyncDir(dir)
	}
	return nil
}

// WriteBytes creates or replaces path with data.
func WriteBytes(path string, data []byte, opts Options) error {
	return Write(path, opts, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// SyncDir flushes a directory's entries to stable storage, best effort.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
