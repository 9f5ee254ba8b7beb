// Package fsutil holds the rules for files named by a user or a model
// (regular.go): what may be read and what may be replaced. Writes are
// atomic, so that readers see either the old content or the new, never a
// half-written file: the data goes to a temporary file in the same
// directory, which is then renamed into place.
package fsutil

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options control an atomic write.
type Options struct {
	// Perm is the mode of a created file (0600 when zero); a replaced file
	// keeps its mode (and, where the process may, its owner).
	Perm os.FileMode
	// DirPerm, when not zero, creates missing parent directories with
	// this mode.
	DirPerm os.FileMode
	// NoReplace fails instead of replacing an existing file.
	NoReplace bool
	// Sync flushes the file and its directory to stable storage.
	Sync bool
	// FollowLinks writes through a symbolic link (the link stays, the
	// file it points to is created or replaced) instead of refusing it.
	FollowLinks bool
	// RequireWritable refuses to replace a file the process may not write
	// (as an in-place write would fail): a read-only file stays read-only
	// even though its directory is writable.
	RequireWritable bool
}

// Write creates or replaces path with what fill writes, under the writing
// rule of regular.go: an existing path that is not a regular file (or a
// symbolic link, without FollowLinks) is refused with an error wrapping
// ErrNotRegular and left alone.
func Write(path string, opts Options, fill func(w *bufio.Writer) error) error {
	path, old, err := WriteTarget(path, opts.FollowLinks)
	if err != nil {
		return err
	}
	if opts.NoReplace && old != nil {
		return fmt.Errorf("%s already exists", path)
	}
	if opts.RequireWritable && old != nil && !writable(path) {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrPermission}
	}
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
	if old != nil {
		perm = old.Mode().Perm()
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
	if err == nil && old != nil {
		keepOwner(f, old)
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
	if err := place(tmp, path, opts.NoReplace); err != nil {
		return err
	}
	if opts.Sync {
		SyncDir(dir)
	}
	return nil
}

// place renames tmp to path. With noReplace it links instead, which fails
// if path appeared meanwhile (falling back to a check and a rename where
// the file system has no hard links). Otherwise path is checked again just
// before the rename, so that something other than a regular file put there
// while the data was written is not replaced either.
func place(tmp, path string, noReplace bool) error {
	if noReplace {
		err := os.Link(tmp, path)
		if err == nil || errors.Is(err, fs.ErrExist) {
			if err != nil {
				return fmt.Errorf("%s already exists", path)
			}
			return os.Remove(tmp)
		}
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s already exists", path)
		}
	} else if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w; not replacing it", notRegular(path, fi.Mode()))
	}
	return os.Rename(tmp, path)
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
