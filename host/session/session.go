package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/atomic-go/atomic/host/llm"
)

// Session is one conversation tree, in memory or backed by a JSONL file. It
// is safe for concurrent use.
//
// A file-backed session keeps an index of its entries (id, parent, type,
// where the line is in the file) and decodes an entry's body only when it
// is asked for, so that opening a large file is one validating scan and the
// memory held does not grow with the size of the tool results in it.
type Session struct {
	mu     sync.RWMutex
	header Header
	path   string // "" for an in-memory session
	nodes  []*node
	byID   map[string]*node
	leaf   string
	labels map[string]labelInfo
	name   string

	hasAssistant bool

	store store // the file (store.go)
}

// node is one entry of the index.
type node struct {
	id     string
	parent string // "" for a root
	typ    string
	role   string // message role, for message entries
	ts     string
	seq    int   // position in append order
	off    int64 // where the line starts in the file; -1 while only in memory
	size   int   // length of the line without its newline
	entry  *Entry

	// Facts the context plan needs without decoding the entry.
	summaryEmpty bool // branch_summary with an empty summary
}

type labelInfo struct {
	label string
	ts    string
}

// keepInline is the size up to which decoded entries loaded from or
// written to the file stay in memory; larger ones are read again when
// needed.
const keepInline = 8 << 10

// NewID returns a new session id (a UUIDv7, time ordered).
func NewID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// Timestamp formats t the way entries store it.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func newSession(path, cwd, parent string) *Session {
	return &Session{
		header: Header{Type: "session", Version: Version, ID: NewID(), Timestamp: Timestamp(time.Now()), Cwd: cwd, ParentSession: parent},
		path:   path,
		byID:   map[string]*node{},
		labels: map[string]labelInfo{},
		store:  store{needCreate: true},
	}
}

// NewInMemory returns an empty session for cwd that is never written.
func NewInMemory(cwd string) *Session { return newSession("", cwd, "") }

// NewInMemoryWithParent returns an in-memory session that records the
// session it came from.
func NewInMemoryWithParent(cwd, parent string) *Session { return newSession("", cwd, parent) }

// New returns an empty session that will be written to path. Nothing is
// written until the first assistant message is appended; then the header
// and every entry so far go out in one write, and each later entry in one
// write of its own.
func New(path, cwd, parent string) *Session { return newSession(path, cwd, parent) }

// Header returns the session header.
func (s *Session) Header() Header {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.header
}

// ID returns the session id.
func (s *Session) ID() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.header.ID
}

// Cwd returns the working directory the session was recorded in.
func (s *Session) Cwd() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.header.Cwd
}

// Path returns the session file ("" for an in-memory session).
func (s *Session) Path() string { return s.path }

// Persisted reports whether the session is backed by a file.
func (s *Session) Persisted() bool { return s.path != "" }

// Saved reports whether the session file exists on disk (it does once the
// first assistant message was appended, or when it was opened).
func (s *Session) Saved() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.store.saved
}

// Leaf returns the id of the active leaf ("" for an empty session).
func (s *Session) Leaf() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.leaf
}

// Len returns the number of entries.
func (s *Session) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.nodes)
}

func (s *Session) newEntryID() string {
	var b [4]byte
	for i := 0; i < 100; i++ {
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if _, taken := s.byID[id]; !taken {
			return id
		}
	}
	return uuid.NewString()
}

// Append adds e as a child of the leaf and makes it the leaf. The id,
// parent and timestamp are filled in. It returns the stored entry. A
// failure to write the file is reported by AppendEntry; Append keeps the
// entry in memory and retries the write with the next append.
func (s *Session) Append(e Entry) *Entry {
	ep, _ := s.AppendEntry(e)
	return ep
}

// AppendEntry is Append that reports a failure to write the session file.
// The entry is part of the session either way.
func (s *Session) AppendEntry(e Entry) (*Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.ID = s.newEntryID()
	if s.leaf != "" {
		p := s.leaf
		e.ParentID = &p
	} else {
		e.ParentID = nil
	}
	if e.Timestamp == "" {
		e.Timestamp = Timestamp(time.Now())
	}
	e.opaque = nil
	ep := &e
	n := nodeFor(ep)
	n.off = -1
	s.addLocked(n)
	s.leaf = n.id
	return ep, s.persistLocked(n)
}

// AppendMessage appends a message entry.
func (s *Session) AppendMessage(m llm.Message) *Entry {
	mc := m
	return s.Append(Entry{Type: TypeMessage, Message: &mc})
}

func nodeFor(e *Entry) *node {
	n := &node{id: e.ID, parent: e.Parent(), typ: internType(e.Type), ts: e.Timestamp, entry: e}
	if e.Type == TypeMessage && e.Message != nil {
		n.role = internRole(e.Message.Role)
	}
	if e.Type == TypeBranchSummary {
		n.summaryEmpty = e.Summary == ""
	}
	return n
}

// addLocked indexes a node and updates what is derived from the entries
// (labels, name).
func (s *Session) addLocked(n *node) {
	n.seq = len(s.nodes)
	s.nodes = append(s.nodes, n)
	s.byID[n.id] = n
	if n.typ == TypeMessage && n.role == llm.RoleAssistant {
		s.hasAssistant = true
	}
	e := n.entry
	if e == nil {
		return
	}
	switch n.typ {
	case TypeLabel:
		if e.Label == nil || *e.Label == "" {
			delete(s.labels, e.TargetID)
		} else {
			s.labels[e.TargetID] = labelInfo{label: *e.Label, ts: e.Timestamp}
		}
	case TypeSessionInfo:
		s.name = ""
		if e.Name != nil {
			s.name = *e.Name
		}
	}
}

// Entries returns every entry in append order.
func (s *Session) Entries() ([]*Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.loadAllLocked(s.nodes)
}

// EntriesSince returns the entries appended after the entry with id since
// ("" for all).
func (s *Session) EntriesSince(since string) ([]*Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	nodes := s.nodes
	if since != "" {
		n, ok := s.byID[since]
		if !ok {
			return nil, fmt.Errorf("Entry not found: %s", since)
		}
		nodes = s.nodes[n.seq+1:]
	}
	return s.loadAllLocked(nodes)
}

// RawEntriesSince is EntriesSince with each entry's JSON as it is in the
// file (nothing is decoded).
func (s *Session) RawEntriesSince(since string) ([]json.RawMessage, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	nodes := s.nodes
	if since != "" {
		n, ok := s.byID[since]
		if !ok {
			return nil, fmt.Errorf("Entry not found: %s", since)
		}
		nodes = s.nodes[n.seq+1:]
	}
	out := make([]json.RawMessage, 0, len(nodes))
	for _, n := range nodes {
		raw, err := s.rawLineLocked(n)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// InMemoryCopy returns an in-memory session with this session's header
// (its cwd replaced when cwd is not "") and entries, and the same leaf.
func (s *Session) InMemoryCopy(cwd string) (*Session, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := newSession("", s.header.Cwd, "")
	c.header = s.header
	if cwd != "" {
		c.header.Cwd = cwd
	}
	for _, n := range s.nodes {
		e, err := s.loadLocked(n)
		if err != nil {
			return nil, err
		}
		cn := nodeFor(e)
		cn.off = -1
		c.addLocked(cn)
	}
	c.leaf = s.leaf
	return c, nil
}

func (s *Session) loadAllLocked(nodes []*node) ([]*Entry, error) {
	out := make([]*Entry, 0, len(nodes))
	for _, n := range nodes {
		e, err := s.loadLocked(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Entry returns the entry with this id.
func (s *Session) Entry(id string) (*Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	e, err := s.loadLocked(n)
	if err != nil {
		return nil, false
	}
	return e, true
}

// Has reports whether an entry with this id exists.
func (s *Session) Has(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.byID[id]
	return ok
}

// Branch returns the path from the root to the entry id (the leaf when id
// is ""), oldest first. Entries that cannot be read are left out.
func (s *Session) Branch(id string) []*Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*Entry
	for _, n := range s.pathLocked(id) {
		if e, err := s.loadLocked(n); err == nil {
			out = append(out, e)
		}
	}
	return out
}

// WalkBranch calls fn for each entry on the path from the root to id (the
// leaf when id is ""), loading one entry at a time.
func (s *Session) WalkBranch(id string, fn func(*Entry) error) error {
	return s.WalkBranchFiltered(id, nil, fn)
}

// WalkBranchFiltered is WalkBranch for the entries keep accepts, judged by
// entry type and message role (known without loading the entry).
func (s *Session) WalkBranchFiltered(id string, keep func(typ, role string) bool, fn func(*Entry) error) error {
	s.mu.RLock()
	path := s.pathLocked(id)
	s.mu.RUnlock()
	for _, n := range path {
		if keep != nil && !keep(n.typ, n.role) {
			continue
		}
		s.mu.RLock()
		e, err := s.loadLocked(n)
		s.mu.RUnlock()
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// FindBack looks for the newest entry of type typ that match accepts on
// the active branch, walking from the leaf towards the root and decoding
// only entries of that type; the walk stops before the entry stop (an
// entry id; "" for none), so a caller that remembers what it found up to
// an earlier leaf looks only at the entries added since. It returns the
// entry (nil for none), whether the walk reached stop, and the leaf it
// started from. match runs under the session's read lock and must not
// call the session.
func (s *Session) FindBack(typ, stop string, match func(*Entry) bool) (found *Entry, atStop bool, leaf string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	id := s.leaf
	// A path is at most as long as the session; a longer walk is a cycle.
	for steps := 0; id != "" && steps <= len(s.nodes); steps++ {
		if id == stop {
			return nil, true, s.leaf
		}
		n, ok := s.byID[id]
		if !ok {
			break
		}
		if n.typ == typ {
			if e, err := s.loadLocked(n); err == nil && match(e) {
				return e, false, s.leaf
			}
		}
		id = n.parent
	}
	return nil, false, s.leaf
}

// pathLocked returns the nodes from the root to id (the leaf when id is
// ""). A broken parent chain ends the path; cycles are cut.
func (s *Session) pathLocked(id string) []*node {
	if id == "" {
		id = s.leaf
	}
	var rev []*node
	// A path is at most as long as the session; a longer walk is a cycle.
	for id != "" && len(rev) <= len(s.nodes) {
		n, ok := s.byID[id]
		if !ok {
			break
		}
		rev = append(rev, n)
		id = n.parent
	}
	if len(rev) > len(s.nodes) {
		rev = cutCycle(rev)
	}
	out := make([]*node, len(rev))
	for i, n := range rev {
		out[len(rev)-1-i] = n
	}
	return out
}

// cutCycle keeps a walk up to the first entry it meets twice.
func cutCycle(rev []*node) []*node {
	seen := make(map[*node]bool, len(rev))
	for i, n := range rev {
		if seen[n] {
			return rev[:i]
		}
		seen[n] = true
	}
	return rev
}

// SetLeaf moves the leaf to an existing entry ("" resets it, so that the
// next append starts a new root).
func (s *Session) SetLeaf(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != "" {
		if _, ok := s.byID[id]; !ok {
			return fmt.Errorf("Entry %s not found", id)
		}
	}
	s.leaf = id
	return nil
}

// Name returns the session name: the latest session_info entry's name
// (an empty name clears it).
func (s *Session) Name() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.name
}

// Label returns the label of an entry and when it was set.
func (s *Session) Label(id string) (label, ts string, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	l, ok := s.labels[id]
	return l.label, l.ts, ok
}

// UserMessage is a user message of the session (a point to fork from).
type UserMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// UserMessages returns the user messages with text, of every branch, in
// append order.
func (s *Session) UserMessages() ([]UserMessage, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []UserMessage{}
	for _, n := range s.nodes {
		if n.typ != TypeMessage || n.role != llm.RoleUser {
			continue
		}
		e, err := s.loadLocked(n)
		if err != nil {
			return nil, err
		}
		if e.Message == nil {
			continue
		}
		if text := e.Message.Content.JoinText(""); text != "" {
			out = append(out, UserMessage{EntryID: n.id, Text: text})
		}
	}
	return out, nil
}

// ErrNotSaved is returned when forking or cloning a session whose file
// does not exist yet.
var ErrNotSaved = errors.New("This session has not been saved yet. Wait for the first assistant response before cloning or forking it.")

// Close flushes the file to disk and releases its descriptors. The session
// stays usable: a later append or read opens the file again.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.close()
}

// Sync flushes written entries to stable storage.
func (s *Session) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.sync()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
