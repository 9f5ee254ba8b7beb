package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// Reading files in memory bounded by what a tool may show, not by the
// file: lines are streamed, only their first bytes are kept, and the rest
// is counted, never held.

// lineScanner splits a stream at '\n' the way strings.Split does ("a\nb\n"
// is three lines, the last one empty), keeping at most a given number of
// bytes of each line.
type lineScanner struct {
	ctx  context.Context
	r    *bufio.Reader
	buf  []byte
	done bool
	read int64 // lines returned
}

func newLineScanner(ctx context.Context, r *bufio.Reader) *lineScanner {
	return &lineScanner{ctx: ctx, r: r}
}

// checkEvery is how many lines (or buffer-sized pieces of one line) are
// read between two looks at the context.
const checkEvery = 4096

// next returns the next line without its '\n': its first keep bytes
// (valid until the next call) and its whole length. ok is false after the
// last line.
func (s *lineScanner) next(keep int) (text []byte, size int64, ok bool, err error) {
	if s.done {
		return nil, 0, false, nil
	}
	s.read++
	if s.read%checkEvery == 0 {
		if err := aborted(s.ctx); err != nil {
			return nil, 0, false, err
		}
	}
	s.buf = s.buf[:0]
	for pieces := 1; ; pieces++ {
		chunk, rerr := s.r.ReadSlice('\n')
		if rerr == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += int64(len(chunk))
		if room := keep - len(s.buf); room > 0 {
			s.buf = append(s.buf, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case rerr == nil:
			return s.buf, size, true, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			if pieces%checkEvery == 0 {
				if err := aborted(s.ctx); err != nil {
					return nil, 0, false, err
				}
			}
		case errors.Is(rerr, io.EOF):
			s.done = true
			return s.buf, size, true, nil
		default:
			return nil, 0, false, rerr
		}
	}
}

// skip passes over n lines, a buffer at a time.
func (s *lineScanner) skip(n int64) error {
	for n > 0 && !s.done {
		if err := aborted(s.ctx); err != nil {
			return err
		}
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); errors.Is(err, io.EOF) {
				s.done = true // the last line, without a '\n'
				s.read++
				return nil
			} else if err != nil {
				return err
			}
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		if c := int64(bytes.Count(buf, []byte{'\n'})); c < n {
			n -= c
			s.read += c
			_, _ = s.r.Discard(len(buf))
			continue
		}
		i := 0
		for n > 0 {
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			n--
			s.read++
		}
		if n == 0 {
			_, _ = s.r.Discard(i)
			return nil
		}
		_, _ = s.r.Discard(len(buf))
	}
	return nil
}

// countRest counts the lines left (at least 1 unless the last line was
// returned already), reading in blocks. It also returns the size of the
// first need of them, each counted with one byte for its '\n' (need < 0:
// all of them).
func (s *lineScanner) countRest(need int64) (lines, size int64, err error) {
	if s.done {
		return 0, 0, nil
	}
	var nl int64 // newlines seen
	buf := make([]byte, 64<<10)
	for {
		if err := aborted(s.ctx); err != nil {
			return 0, 0, err
		}
		k, rerr := s.r.Read(buf)
		chunk := buf[:k]
		if need < 0 {
			size += int64(k)
		}
		for len(chunk) > 0 && nl < need {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				size += int64(len(chunk))
				chunk = nil
				break
			}
			size += int64(i) + 1
			nl++
			chunk = chunk[i+1:]
		}
		nl += int64(bytes.Count(chunk, []byte{'\n'}))
		if errors.Is(rerr, io.EOF) {
			s.done = true
			if need < 0 || nl < need {
				size++ // the last line, counted as if a '\n' ended it
			}
			return nl + 1, size, nil
		}
		if rerr != nil {
			return 0, 0, rerr
		}
	}
}

// toolFileError words a file error for the model.
func toolFileError(err error, p, verb string) error {
	var nr *fsutil.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("File not found: %s", p)
	case errors.As(err, &nr) && nr.Kind == "a directory":
		return fmt.Errorf("%s is a directory, not a file", p)
	case errors.As(err, &nr):
		return fmt.Errorf("Cannot %s %s: it is %s, not a regular file", verb, p, nr.Kind)
	}
	return fmt.Errorf("Cannot %s %s: %w", verb, p, err)
}
