package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// Durability. Every entry reaches the file in one write(2) of a whole line
// on a descriptor opened with O_APPEND, so a crash of this process (even
// SIGKILL) leaves complete lines plus at most one torn last line, and two
// processes appending to the same file never interleave bytes within a
// line. The file and its directory are fsynced when the file is created and
// the file again when the session is closed (switch, shutdown); single
// appends are not fsynced, because a process crash cannot lose what write
// returned (the kernel has it) and an fsync per message would add
// milliseconds to every turn on ordinary disks. What an operating-system
// crash or power cut can lose is the tail written since the last close.

// store is the file side of a session.
type store struct {
	fmu sync.Mutex // guards rf, opened lazily from read paths
	rf  *os.File
	wf  *os.File

	saved      bool  // the header is on disk
	needCreate bool  // the file does not exist yet: create it exclusively
	needNL     bool  // the file does not end with a newline (a torn line)
	dirty      bool  // written since the last sync
	blankSize  int64 // size of an existing file that held only blank lines
	pending    []*node
	warnings   []string
}

// Warnings returns the problems found while loading the file (skipped
// lines, a migration).
func (s *Session) Warnings() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string(nil), s.store.warnings...)
}

func (st *store) reader(path string) (*os.File, error) {
	st.fmu.Lock()
	defer st.fmu.Unlock()
	if st.rf == nil {
		f, _, err := fsutil.OpenRegular(path)
		if err != nil {
			return nil, err
		}
		st.rf = f
	}
	return st.rf, nil
}

func (st *store) sync() error {
	if st.wf == nil || !st.dirty {
		return nil
	}
	st.dirty = false
	return fsync(st.wf)
}

func (st *store) close() error {
	err := st.sync()
	if st.wf != nil {
		if cerr := st.wf.Close(); err == nil {
			err = cerr
		}
		st.wf = nil
	}
	st.fmu.Lock()
	if st.rf != nil {
		st.rf.Close()
		st.rf = nil
	}
	st.fmu.Unlock()
	return err
}

// loadLocked returns the decoded entry of a node, reading its line from the
// file when it is not kept in memory.
func (s *Session) loadLocked(n *node) (*Entry, error) {
	if n.entry != nil {
		return n.entry, nil
	}
	line, err := s.readLine(n)
	if err != nil {
		return nil, err
	}
	changed := fmt.Errorf("session file %s changed on disk: entry %s is no longer where it was", s.path, n.id)
	e := &Entry{}
	if err := e.UnmarshalJSON(line); err != nil {
		// Not JSON any more, or fields of unexpected types (kept opaque).
		m, ok := scanEntryLine(line)
		if !ok || m.id != n.id {
			return nil, changed
		}
		return decodeEntry(line, m), nil
	}
	if e.ID != n.id {
		return nil, changed
	}
	if n.parent == "" {
		e.ParentID = nil
	}
	return e, nil
}

// readLine reads a node's line (without its newline) from the file.
func (s *Session) readLine(n *node) ([]byte, error) {
	if n.off < 0 {
		return nil, fmt.Errorf("entry %s is not available", n.id)
	}
	f, err := s.store.reader(s.path)
	if err != nil {
		return nil, fmt.Errorf("read session file: %w", err)
	}
	buf := make([]byte, n.size)
	if _, err := f.ReadAt(buf, n.off); err != nil {
		return nil, fmt.Errorf("read session file %s: %w", s.path, err)
	}
	return buf, nil
}

// rawLineLocked returns the JSON of an entry as it is in the file, or as
// this package writes it.
func (s *Session) rawLineLocked(n *node) ([]byte, error) {
	if n.off >= 0 {
		line, err := s.readLine(n)
		if err != nil {
			return nil, err
		}
		return bytes.TrimSpace(line), nil
	}
	return json.Marshal(n.entry)
}

// persistLocked queues a new node for the file and writes what can be
// written: nothing before the first assistant message, then everything.
func (s *Session) persistLocked(n *node) error {
	if s.path == "" {
		return nil
	}
	s.store.pending = append(s.store.pending, n)
	if !s.store.saved && !s.hasAssistant {
		return nil
	}
	return s.flushLocked()
}

// Flush writes the session file now, even before the first assistant
// message (used when a branch is copied into a new file).
func (s *Session) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return nil
	}
	return s.flushLocked()
}

func (s *Session) flushLocked() error {
	if !s.store.saved {
		return s.writeInitialLocked()
	}
	st := &s.store
	for len(st.pending) > 0 {
		n := st.pending[0]
		line, err := json.Marshal(n.entry)
		if err != nil {
			st.pending = st.pending[1:]
			return fmt.Errorf("entry %s cannot be written: %w", n.id, err)
		}
		prefix := 0
		buf := make([]byte, 0, len(line)+2)
		if st.needNL {
			buf = append(buf, '\n')
			prefix = 1
		}
		buf = append(buf, line...)
		buf = append(buf, '\n')
		f, err := s.writerLocked()
		if err != nil {
			return err
		}
		w, err := f.Write(buf)
		if err != nil {
			if w > 0 {
				st.needNL = true
			}
			return fmt.Errorf("write session file %s: %w", s.path, err)
		}
		st.needNL = false
		st.dirty = true
		if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
			n.off = pos - int64(len(buf)) + int64(prefix)
			n.size = len(line)
		}
		st.pending = st.pending[1:]
		s.trimLocked(n)
	}
	return nil
}

// trimLocked drops a large decoded body that is now on disk.
func (s *Session) trimLocked(n *node) {
	if n.off >= 0 && n.size > keepInline {
		n.entry = nil
	}
}

func (s *Session) writerLocked() (*os.File, error) {
	if s.store.wf == nil {
		f, _, err := fsutil.OpenRegularFile(s.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("open session file: %w", err)
		}
		s.store.wf = f
	}
	return s.store.wf, nil
}

// writeInitialLocked writes the header and every pending entry in one
// write.
func (s *Session) writeInitialLocked() error {
	st := &s.store
	head, err := json.Marshal(s.header)
	if err != nil {
		return err
	}
	var buf []byte
	if st.needNL {
		buf = append(buf, '\n')
	}
	buf = append(buf, head...)
	buf = append(buf, '\n')
	type placed struct {
		n    *node
		at   int
		size int
	}
	var lines []placed
	var skipped error
	for _, n := range st.pending {
		line, err := json.Marshal(n.entry)
		if err != nil {
			skipped = fmt.Errorf("entry %s cannot be written: %w", n.id, err)
			continue
		}
		lines = append(lines, placed{n, len(buf), len(line)})
		buf = append(buf, line...)
		buf = append(buf, '\n')
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create session directory: %w", err)
	}
	flags := os.O_WRONLY | os.O_APPEND
	target := s.path
	if st.needCreate {
		flags |= os.O_CREATE | os.O_EXCL
		// A new session named through a link to a missing file (--session
		// link.jsonl) is created where the link points; the link stays.
		if t, _, err := fsutil.WriteTarget(s.path, true); err == nil {
			target = t
		}
	}
	f, _, err := fsutil.OpenRegularFile(target, flags, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("session file %s appeared on disk meanwhile; not overwriting it", s.path)
		}
		return fmt.Errorf("create session file: %w", err)
	}
	created := st.needCreate
	st.needCreate = false
	start := int64(0)
	if !created {
		if fi, err := f.Stat(); err == nil {
			start = fi.Size()
		}
		if start != st.blankSize {
			// A file that was empty when loaded is not any more.
			f.Close()
			return fmt.Errorf("session file %s is no longer empty; not writing into it", s.path)
		}
	}
	if w, err := f.Write(buf); err != nil {
		if w > 0 {
			_ = f.Truncate(start) // the file held nothing but blanks before
		}
		f.Close()
		return fmt.Errorf("write session file %s: %w", s.path, err)
	}
	_ = fsync(f)
	syncDir(filepath.Dir(s.path))
	for _, p := range lines {
		p.n.off = start + int64(p.at)
		p.n.size = p.size
		s.trimLocked(p.n)
	}
	st.wf = f
	st.saved = true
	st.needNL = false
	st.pending = nil
	return skipped
}

// syncEnabled is switched off by tests that write thousands of files.
var syncEnabled = true

func fsync(f *os.File) error {
	if !syncEnabled {
		return nil
	}
	return f.Sync()
}

func syncDir(dir string) {
	if !syncEnabled {
		return
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
