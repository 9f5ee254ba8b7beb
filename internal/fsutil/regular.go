package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The rules for files named by a user or a model, in one place:
//
//   - Reading: the path must name a regular file (links followed). It is
//     checked with stat before it is opened, opened with O_NONBLOCK (so a
//     FIFO or a device that slipped in between never blocks the open), and
//     checked again with fstat on the open descriptor. A FIFO, a device
//     (/dev/zero, /dev/stdin, a terminal), a socket or a directory is
//     refused with an error wrapping ErrNotRegular.
//   - Writing (Write): a path that does not exist is created; a regular
//     file is replaced atomically (a temporary file in the same directory,
//     renamed over it) and keeps its mode; anything else (a device, a FIFO,
//     a socket, a directory) is refused and left as it is. A symbolic link
//     is refused unless Options.FollowLinks is set, in which case the link
//     is kept and the file it points to is the one created or replaced.

// ErrNotRegular is wrapped by the errors about a path that exists and is
// not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadRegular's error for a file above its cap.
var ErrTooLarge = errors.New("file too large")

// NotRegularError says what a refused path is.
type NotRegularError struct {
	Path string
	Kind string // "a directory", "a FIFO", "a character device", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// Unwrap makes the error match ErrNotRegular.
func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names the type of a file mode for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

func notRegular(path string, m fs.FileMode) error {
	return &NotRegularError{Path: path, Kind: Kind(m)}
}

// StatRegular is os.Stat that refuses, with an error wrapping
// ErrNotRegular, whatever is not a regular file.
func StatRegular(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	return fi, nil
}

// OpenRegular opens an existing regular file for reading (see the rules
// above). A missing file is an error wrapping fs.ErrNotExist.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	return OpenRegularFile(path, os.O_RDONLY, 0)
}

// OpenRegularFile is os.OpenFile for regular files only: a path that
// exists and is not a regular file is refused before it is opened, the
// open never blocks (O_NONBLOCK), and the opened file is checked again.
// With O_CREATE a missing path is created as usual.
func OpenRegularFile(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi.Mode())
	} else if err != nil && (flag&os.O_CREATE == 0 || !errors.Is(err, fs.ErrNotExist)) {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, flag|openFlags, perm)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			// O_WRONLY|O_NONBLOCK on a FIFO without a reader.
			return nil, nil, &NotRegularError{Path: path, Kind: Kind(fs.ModeNamedPipe)}
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, fi.Mode())
	}
	return f, fi, nil
}

// Caps of the files the agent reads whole at start and on reload (the
// kinds of file, one cap each; README "Limits" lists them). A larger file
// is refused with an error wrapping ErrTooLarge, and, as for every read
// here, a FIFO or a device in their place is refused at once instead of
// blocking start-up.
const (
	// MaxSettingsFile caps settings.json, models.json, mcp.json,
	// trust.json, auth.json and package.json manifests.
	MaxSettingsFile = 16 << 20
	// MaxResourceFile caps the files that go into the system prompt or a
	// prompt: context files (AGENTS.md, CLAUDE.md), SYSTEM.md and
	// APPEND_SYSTEM.md, skills (SKILL.md), prompt templates.
	MaxResourceFile = 1 << 20
)

// ReadRegular reads a whole regular file of at most max bytes (max < 0:
// no cap). A larger file is an error wrapping ErrTooLarge, found from its
// size before anything is read, and again while reading should it grow.
func ReadRegular(path string, max int64) ([]byte, error) {
	data, _, err := ReadRegularInfo(path, max)
	return data, err
}

// ReadRegularInfo is ReadRegular that also returns the file's information
// (from fstat on the descriptor it read).
func ReadRegularInfo(path string, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := fi.Size()
	if max >= 0 && size > max {
		return nil, nil, tooLarge(path, size, max)
	}
	// A regular file's read comes back short only at its end, so a buffer
	// a little larger than the file usually takes it in one read.
	buf := make([]byte, 0, size+512)
	for {
		if len(buf) == cap(buf) {
			if max >= 0 && int64(len(buf)) > max {
				return nil, nil, tooLarge(path, int64(len(buf)), max)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if max >= 0 && int64(len(buf)) > max {
		return nil, nil, tooLarge(path, int64(len(buf)), max)
	}
	return buf, fi, nil
}

func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("%w: %s is %d bytes, more than the %d allowed", ErrTooLarge, path, size, max)
}

// maxLinks bounds the symbolic links followed when resolving a target.
const maxLinks = 40

// WriteTarget applies the writing rule to path without writing: it
// returns the path that would be created or replaced (path itself, or with
// follow the end of its chain of links) and that file's info when it
// exists (nil when it would be created).
func WriteTarget(path string, follow bool) (string, fs.FileInfo, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		switch m := fi.Mode(); {
		case m.IsRegular():
			return p, fi, nil
		case m&fs.ModeSymlink != 0 && follow:
			dest, err := os.Readlink(p)
			if err != nil {
				return "", nil, err
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(p), dest)
			}
			p = dest
		default:
			return "", nil, fmt.Errorf("%w; not replacing it", notRegular(p, m))
		}
	}
	return "", nil, fmt.Errorf("%s: too many levels of symbolic links", path)
}
