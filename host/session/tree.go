package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// TreeNode is one node of get_tree. Entry is the entry's JSON as it is in
// the file.
type TreeNode struct {
	ID             string
	Entry          json.RawMessage
	Children       []*TreeNode
	Label          string
	LabelTimestamp string

	ts  string
	seq int
}

// Tree is the forest of a session: normally one root; entries whose parent
// is missing (or that sit on a parent cycle) are extra roots. It encodes
// itself without recursion, so that a long linear conversation does not
// nest the encoder thousands of calls deep.
type Tree []*TreeNode

// Tree returns the session's entries as a tree. Children are ordered by
// timestamp, then by append order.
func (s *Session) Tree() (Tree, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	tn := make(map[string]*TreeNode, len(s.nodes))
	for _, n := range s.nodes {
		raw, err := s.rawLineLocked(n)
		if err != nil {
			return nil, err
		}
		t := &TreeNode{ID: n.id, Entry: raw, ts: n.ts, seq: n.seq}
		if l, ok := s.labels[n.id]; ok {
			t.Label, t.LabelTimestamp = l.label, l.ts
		}
		tn[n.id] = t
	}
	attached := make(map[string]bool, len(s.nodes))
	var roots Tree
	for _, n := range s.nodes {
		if p, ok := tn[n.parent]; ok && n.parent != n.id {
			p.Children = append(p.Children, tn[n.id])
			continue
		}
		roots = append(roots, tn[n.id])
	}
	mark := func(t *TreeNode) {
		stack := []*TreeNode{t}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if attached[x.ID] {
				continue
			}
			attached[x.ID] = true
			stack = append(stack, x.Children...)
		}
	}
	for _, r := range roots {
		mark(r)
	}
	// What is not under a root sits on a parent cycle: cut the cycle at
	// its first entry in file order and make that entry a root.
	for _, n := range s.nodes {
		if attached[n.id] {
			continue
		}
		t := tn[n.id]
		if p, ok := tn[n.parent]; ok {
			for i, c := range p.Children {
				if c == t {
					p.Children = append(p.Children[:i:i], p.Children[i+1:]...)
					break
				}
			}
		}
		roots = append(roots, t)
		mark(t)
	}
	for _, t := range tn {
		if len(t.Children) > 1 {
			sort.SliceStable(t.Children, func(i, j int) bool {
				a, b := t.Children[i], t.Children[j]
				if a.ts != b.ts {
					return a.ts < b.ts
				}
				return a.seq < b.seq
			})
		}
	}
	return roots, nil
}

// MarshalJSON writes the forest iteratively.
func (t Tree) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(nil), nil
}

// AppendJSON appends the forest's JSON to dst.
func (t Tree) AppendJSON(dst []byte) []byte {
	size := 2
	stack0 := append([]*TreeNode(nil), t...)
	for len(stack0) > 0 {
		n := stack0[len(stack0)-1]
		stack0 = stack0[:len(stack0)-1]
		size += len(n.Entry) + len(n.Label) + len(n.LabelTimestamp) + 64
		stack0 = append(stack0, n.Children...)
	}
	buf := bytes.NewBuffer(dst)
	buf.Grow(size)
	type frame struct {
		nodes []*TreeNode
		i     int
	}
	buf.WriteByte('[')
	stack := []frame{{nodes: t}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i >= len(f.nodes) {
			stack = stack[:len(stack)-1]
			buf.WriteByte(']')
			if len(stack) > 0 {
				// Close the node object whose children just ended.
				p := &stack[len(stack)-1]
				node := p.nodes[p.i-1]
				if node.Label != "" {
					buf.WriteString(`,"label":`)
					b, _ := json.Marshal(node.Label)
					buf.Write(b)
					if node.LabelTimestamp != "" {
						buf.WriteString(`,"labelTimestamp":`)
						b, _ := json.Marshal(node.LabelTimestamp)
						buf.Write(b)
					}
				}
				buf.WriteByte('}')
			}
			continue
		}
		node := f.nodes[f.i]
		if f.i > 0 {
			buf.WriteByte(',')
		}
		f.i++
		buf.WriteString(`{"entry":`)
		buf.Write(node.Entry)
		buf.WriteString(`,"children":[`)
		stack = append(stack, frame{nodes: node.Children})
	}
	return buf.Bytes()
}

// Filename returns the file name of a new session: the creation time with
// ':' and '.' replaced by '-', then the session id.
func Filename(t time.Time, id string) string {
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(Timestamp(t))
	return ts + "_" + id + ".jsonl"
}

// NewIn returns a new session for cwd whose file goes into dir.
func NewIn(dir, cwd, parent string) *Session { return NewInWithID(dir, cwd, parent, "") }

// NewInWithID is NewIn with the session id given ("" for a new one).
func NewInWithID(dir, cwd, parent, id string) *Session {
	s := newSession("", cwd, parent)
	if id != "" {
		s.header.ID = id
	}
	s.path = filepath.Join(dir, Filename(time.Now(), s.header.ID))
	return s
}

// BranchTo starts a new session in dir holding the path from the root to
// leafID (an empty session when leafID is ""), with parentSession pointing
// at this session's file. Label entries are not copied as they are: the
// labels of entries on the path are re-created after the last path entry.
// The new file is written at once (streamed, not built in memory) when the
// path holds an assistant message, else when the first one arrives. An
// in-memory session branches into an in-memory session.
func (s *Session) BranchTo(dir, cwd, leafID string) (*Session, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var path []*node
	if leafID != "" {
		if _, ok := s.byID[leafID]; !ok {
			return nil, fmt.Errorf("Entry %s not found", leafID)
		}
		path = s.pathLocked(leafID)
	}
	ns := NewIn(dir, cwd, s.path)
	if s.path == "" {
		ns.path = ""
	}
	type item struct {
		n      *node
		parent string // the parent in the copy
	}
	var items []item
	used := map[string]bool{}
	hasAssistant := false
	last := ""
	for _, n := range path {
		if n.typ == TypeLabel {
			continue
		}
		items = append(items, item{n, last})
		used[n.id] = true
		if n.typ == TypeMessage && n.role == "assistant" {
			hasAssistant = true
		}
		last = n.id
	}
	type lab struct {
		target string
		info   labelInfo
	}
	var labs []lab
	for _, it := range items {
		if l, ok := s.labels[it.n.id]; ok {
			labs = append(labs, lab{it.n.id, l})
		}
	}
	sort.SliceStable(labs, func(i, j int) bool { return labs[i].info.ts < labs[j].info.ts })
	var labels []*Entry
	for _, l := range labs {
		label := l.info.label
		id := freshID(used)
		e := &Entry{Type: TypeLabel, ID: id, TargetID: l.target, Label: &label, Timestamp: l.info.ts}
		if last != "" {
			p := last
			e.ParentID = &p
		}
		labels = append(labels, e)
		last = id
	}
	entryOf := func(it item) (*Entry, []byte, error) {
		if it.n.parent == it.parent {
			if it.n.off >= 0 {
				line, err := s.rawLineLocked(it.n)
				return nil, line, err
			}
		}
		e, err := s.loadLocked(it.n)
		if err != nil {
			return nil, nil, err
		}
		c := *e
		c.ParentID = nil
		if it.parent != "" {
			p := it.parent
			c.ParentID = &p
		}
		return &c, nil, nil
	}
	if ns.path != "" && hasAssistant {
		err := writeFileStreamed(ns.path, func(w *bufio.Writer) error {
			head, err := json.Marshal(ns.header)
			if err != nil {
				return err
			}
			w.Write(head)
			w.WriteByte('\n')
			for _, it := range items {
				e, line, err := entryOf(it)
				if err != nil {
					return err
				}
				if e != nil {
					if line, err = json.Marshal(e); err != nil {
						return err
					}
				}
				w.Write(line)
				w.WriteByte('\n')
			}
			for _, e := range labels {
				line, err := json.Marshal(e)
				if err != nil {
					return err
				}
				w.Write(line)
				w.WriteByte('\n')
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return Open(ns.path, cwd)
	}
	for _, it := range items {
		e, line, err := entryOf(it)
		if err != nil {
			return nil, err
		}
		if e == nil {
			m, _ := scanEntryLine(line)
			e = decodeEntry(line, m)
		}
		ns.addCopied(e)
	}
	for _, e := range labels {
		ns.addCopied(e)
	}
	return ns, nil
}

// addCopied adds an entry with its id and parent as they are (a session
// being built), to be written with the first flush.
func (s *Session) addCopied(e *Entry) {
	n := nodeFor(e)
	n.off = -1
	s.addLocked(n)
	s.leaf = n.id
	if s.path != "" {
		s.store.pending = append(s.store.pending, n)
	}
}

// writeFileStreamed creates path (which must not exist) through a
// temporary file that is synced and renamed into place.
func writeFileStreamed(path string, fill func(w *bufio.Writer) error) error {
	return fsutil.Write(path, fsutil.Options{DirPerm: 0o700, NoReplace: true, Sync: syncEnabled}, fill)
}

// ctxReader is a reader that fails with its context's error once the
// context ends, so that a long copy stops at the next chunk.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p[:min(len(p), 64<<10)])
}

// CopyFile copies a session file into dir under a new name, with the
// header's cwd replaced by cwd when it is not "". The entries are copied
// byte for byte, streamed (never held in memory). It returns the new
// file's path. src must be a regular file (fsutil.OpenRegular). The copy
// goes through a temporary file renamed into place, in chunks of 64 KiB,
// and stops with ctx's error (leaving nothing behind) when ctx ends.
func CopyFile(ctx context.Context, src, dir, cwd string) (string, error) {
	f, _, err := fsutil.OpenRegular(src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	for {
		line, err = r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return "", fmt.Errorf("%w: %s: the first line is not a session header", ErrNotSession, src)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		if !isBlank(line) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%w: %s is empty", ErrNotSession, src)
		}
	}
	ended := bytes.HasSuffix(line, []byte{'\n'})
	first := bytes.TrimSuffix(line, []byte{'\n'})
	var h Header
	if !validJSON(first) || json.Unmarshal(first, &h) != nil || h.Type != "session" || h.ID == "" {
		return "", fmt.Errorf("%w: %s: the first line is not a session header", ErrNotSession, src)
	}
	if cwd != "" {
		h.Cwd = cwd
	}
	head, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, Filename(time.Now(), h.ID))
	if _, err := os.Lstat(dst); err == nil {
		dst = filepath.Join(dir, Filename(time.Now(), NewID()))
	}
	err = writeFileStreamed(dst, func(w *bufio.Writer) error {
		w.Write(head)
		w.WriteByte('\n')
		if !ended {
			return nil
		}
		_, err := io.Copy(w, ctxReader{ctx, r})
		return err
	})
	if err != nil {
		return "", err
	}
	return dst, nil
}
