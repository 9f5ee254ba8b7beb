package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// ErrNotFound is wrapped by Open's error for a missing file.
var ErrNotFound = errors.New("session file not found")

// ErrNotSession is wrapped by Open's error for a file that is not a
// session file (its first line is not a session header).
var ErrNotSession = errors.New("not a session file")

// maxReported is how many skipped lines are reported one by one.
const maxReported = 10

// Open loads a session file and makes it the place new entries go.
//
//   - A missing file is an error wrapping ErrNotFound. Anything that is
//     not a regular file (a directory, a FIFO, a device such as /dev/null
//     or /dev/stdin) is an error wrapping fsutil.ErrNotRegular, found
//     without blocking (fsutil.OpenRegular).
//   - An empty file (or one holding only blank lines) opens as a new
//     empty session for cwd, written into that file.
//   - A first line that is not a session header is an error wrapping
//     ErrNotSession; the file is not touched.
//   - A version newer than this package understands is an error.
//   - Versions 1 and 2 are migrated: the original is kept as a backup
//     beside the file and the file is replaced atomically.
//   - Lines that are not valid JSON, or lack a type or id, are skipped and
//     listed in Warnings; so is a last line cut off by a crash.
//
// The leaf is the last entry in the file.
func Open(path, cwd string) (*Session, error) {
	f, fi, err := fsutil.OpenRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
		}
		return nil, fmt.Errorf("cannot open session file: %w", err)
	}
	defer f.Close()
	s := &Session{path: path, byID: map[string]*node{}, labels: map[string]labelInfo{}}
	l := &loader{s: s}
	err = forEachLine(f, fi.Size(), l.line)
	var mig *needsMigration
	switch {
	case errors.As(err, &mig):
		f.Close()
		note, err := migrateFile(path, mig.version)
		if err != nil {
			return nil, err
		}
		s, err := Open(path, cwd)
		if err != nil {
			return nil, err
		}
		s.store.warnings = append([]string{note}, s.store.warnings...)
		return s, nil
	case err != nil:
		return nil, err
	}
	if !l.sawHeader {
		// Empty: a new session written into this file.
		ns := newSession(path, cwd, "")
		ns.store.needCreate = false
		ns.store.blankSize = l.size
		ns.store.needNL = l.size > 0 && !l.endsNL
		return ns, nil
	}
	l.finish()
	s.store.saved = true
	s.store.needNL = !l.endsNL
	if len(s.nodes) > 0 {
		s.leaf = s.nodes[len(s.nodes)-1].id
	}
	return s, nil
}

type needsMigration struct {
	version int
}

func (e *needsMigration) Error() string {
	return fmt.Sprintf("session version %d needs migration", e.version)
}

type loader struct {
	s         *Session
	lineNo    int
	sawHeader bool
	size      int64
	endsNL    bool
	bad       []int
	dups      int
	torn      int // size of a torn last line
}

// line handles one line; off is its offset, nl whether it ended with a
// newline (only the last line of a file can lack one), m and ok the
// scanner's reading of it.
func (l *loader) line(line []byte, off int64, nl bool, m lineMeta, ok bool) error {
	l.lineNo++
	l.size = off + int64(len(line))
	l.endsNL = nl
	if nl {
		l.size++
	}
	if isBlank(line) {
		return nil
	}
	if !l.sawHeader {
		return l.header(line, nl)
	}
	if !ok {
		if !nl {
			l.torn = len(line)
			return nil
		}
		l.bad = append(l.bad, l.lineNo)
		return nil
	}
	if m.typ == "" || m.id == "" {
		l.bad = append(l.bad, l.lineNo)
		return nil
	}
	s := l.s
	if _, dup := s.byID[m.id]; dup {
		l.dups++
		return nil
	}
	n := &node{id: m.id, parent: m.parent, typ: m.typ, ts: m.ts, off: off, size: len(line)}
	if m.hasMessage {
		n.role = m.role
	}
	if decodedAtLoad(m.typ) {
		e := decodeEntry(line, m)
		n.entry = e
		if m.typ == TypeBranchSummary {
			n.summaryEmpty = e.Summary == ""
		}
	}
	s.addLocked(n)
	s.trimLocked(n)
	return nil
}

// decodedAtLoad lists the entry types decoded while loading: they are
// small and few, and the index needs their contents (labels, the name,
// model and thinking changes, context boundaries).
func decodedAtLoad(typ string) bool {
	switch typ {
	case TypeLabel, TypeSessionInfo, TypeModelChange, TypeThinkingLevelChange, TypeCompaction, TypeBranchSummary:
		return true
	}
	return false
}

func (l *loader) header(line []byte, nl bool) error {
	var h Header
	if !validJSON(line) || json.Unmarshal(line, &h) != nil {
		if !nl {
			return fmt.Errorf("%w: %s: the first line is cut off or is not JSON", ErrNotSession, l.s.path)
		}
		return fmt.Errorf("%w: %s: the first line is not JSON", ErrNotSession, l.s.path)
	}
	if h.Type != "session" || h.ID == "" {
		return fmt.Errorf("%w: %s: the first line is not a session header", ErrNotSession, l.s.path)
	}
	switch {
	case h.Version < 1:
		return fmt.Errorf("session file %s has an invalid version", l.s.path)
	case h.Version > Version:
		return fmt.Errorf("session file %s has version %d; this program reads versions 1 to %d", l.s.path, h.Version, Version)
	case h.Version < Version:
		return &needsMigration{version: h.Version}
	}
	l.sawHeader = true
	l.s.header = h
	return nil
}

func (l *loader) finish() {
	st := &l.s.store
	if n := len(l.bad); n > 0 {
		shown := l.bad
		if n > maxReported {
			shown = shown[:maxReported]
		}
		msg := fmt.Sprintf("session %s: skipped %d malformed line(s): line %s", l.s.path, n, joinInts(shown))
		if n > maxReported {
			msg += fmt.Sprintf(" and %d more", n-maxReported)
		}
		st.warnings = append(st.warnings, msg)
	}
	if l.dups > 0 {
		st.warnings = append(st.warnings, fmt.Sprintf("session %s: skipped %d entr(ies) whose id was already used", l.s.path, l.dups))
	}
	if l.torn > 0 {
		st.warnings = append(st.warnings, fmt.Sprintf("session %s: the last line is incomplete (%d bytes, probably cut off by a crash) and was skipped", l.s.path, l.torn))
	}
}

func joinInts(v []int) string {
	var b bytes.Buffer
	for i, n := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", n)
	}
	return b.String()
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// readChunk is how much the loader reads at a time; a longer line grows
// the buffer to fit it.
const readChunk = 4 << 20

// maxFirstLine bounds the first line (the header) of a session file.
const maxFirstLine = 16 << 20

// lineFunc receives one line (without its newline), its offset, whether it
// ended with a newline, and the scanner's reading of it.
type lineFunc func(line []byte, off int64, nl bool, m lineMeta, ok bool) error

type span struct {
	start, end int
	m          lineMeta
	ok         bool
}

// forEachLine reads r in chunks and calls fn for each line in order. The
// lines of a chunk are scanned in parallel (validating JSON is most of the
// cost of opening a large file); fn runs on the calling goroutine. Memory
// use is one chunk or the longest line, whichever is larger.
func forEachLine(r io.Reader, sizeHint int64, fn lineFunc) error {
	workers := runtime.GOMAXPROCS(0)
	if workers > 4 {
		workers = 4
	}
	size := int64(readChunk)
	if sizeHint >= 0 && sizeHint+1 < size {
		size = max(sizeHint+1, 512)
	}
	buf := make([]byte, 0, size)
	var spans []span
	var base int64 // file offset of buf[0]
	for {
		if len(buf) == cap(buf) {
			if base == 0 && len(buf) >= maxFirstLine && len(spans) == 0 {
				// A session header is short: this is not a session file,
				// and reading on would hold all of it in memory.
				return fmt.Errorf("%w: the first line is longer than %d MB", ErrNotSession, maxFirstLine>>20)
			}
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		scanFrom := len(buf)
		buf = buf[:len(buf)+n]
		spans = spans[:0]
		start := 0
		for {
			j := bytes.IndexByte(buf[scanFrom:], '\n')
			if j < 0 {
				break
			}
			end := scanFrom + j
			spans = append(spans, span{start: start, end: end})
			start = end + 1
			scanFrom = start
		}
		scanSpans(buf, spans, workers)
		for _, sp := range spans {
			if err := fn(buf[sp.start:sp.end], base+int64(sp.start), true, sp.m, sp.ok); err != nil {
				return err
			}
		}
		if start > 0 {
			rem := copy(buf, buf[start:])
			buf = buf[:rem]
			base += int64(start)
		}
		if rerr == io.EOF {
			if len(buf) > 0 {
				m, ok := scanEntryLine(buf)
				return fn(buf, base, false, m, ok)
			}
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("read session file: %w", rerr)
		}
	}
}

// scanSpans scans the lines of buf, split among workers.
func scanSpans(buf []byte, spans []span, workers int) {
	scan := func(part []span) {
		for i := range part {
			part[i].m, part[i].ok = scanEntryLine(buf[part[i].start:part[i].end])
		}
	}
	if workers < 2 || len(spans) < 256 {
		scan(spans)
		return
	}
	var wg sync.WaitGroup
	per := (len(spans) + workers - 1) / workers
	for lo := 0; lo < len(spans); lo += per {
		hi := min(lo+per, len(spans))
		wg.Add(1)
		go func(part []span) {
			defer wg.Done()
			scan(part)
		}(spans[lo:hi])
	}
	wg.Wait()
}
