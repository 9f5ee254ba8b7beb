package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/atomic-go/atomic/host/llm"
)

// Session is one conversation tree. It is safe for concurrent use.
type Session struct {
	mu      sync.RWMutex
	header  Header
	entries []*Entry
	byID    map[string]*Entry
	leaf    string
}

// NewID returns a new session id (a UUIDv7, time ordered).
func NewID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// Timestamp formats t the way entries store it.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// NewInMemory returns an empty session for cwd that is never written.
func NewInMemory(cwd string) *Session {
	return &Session{
		header: Header{Type: "session", Version: Version, ID: NewID(), Timestamp: Timestamp(time.Now()), Cwd: cwd},
		byID:   map[string]*Entry{},
	}
}

// Header returns the session header.
func (s *Session) Header() Header {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.header
}

// ID returns the session id.
func (s *Session) ID() string { return s.Header().ID }

// Leaf returns the id of the active leaf ("" for an empty session).
func (s *Session) Leaf() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.leaf
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
// parent and timestamp are filled in. It returns the stored entry.
func (s *Session) Append(e Entry) *Entry {
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
	ep := &e
	s.entries = append(s.entries, ep)
	s.byID[e.ID] = ep
	s.leaf = e.ID
	return ep
}

// AppendMessage appends a message entry.
func (s *Session) AppendMessage(m llm.Message) *Entry {
	mc := m
	return s.Append(Entry{Type: TypeMessage, Message: &mc})
}

// Entries returns every entry in append order.
func (s *Session) Entries() []*Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*Entry(nil), s.entries...)
}

// Entry returns the entry with this id.
func (s *Session) Entry(id string) (*Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.byID[id]
	return e, ok
}

// Branch returns the path from the root to the entry id (the leaf when id
// is ""), oldest first.
func (s *Session) Branch(id string) []*Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.branchLocked(id)
}

func (s *Session) branchLocked(id string) []*Entry {
	if id == "" {
		id = s.leaf
	}
	var rev []*Entry
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		e, ok := s.byID[id]
		if !ok {
			break
		}
		rev = append(rev, e)
		id = e.Parent()
	}
	out := make([]*Entry, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
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

// Name returns the latest non-empty session name.
func (s *Session) Name() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i := len(s.entries) - 1; i >= 0; i-- {
		e := s.entries[i]
		if e.Type == TypeSessionInfo {
			if e.Name == nil {
				return ""
			}
			return *e.Name
		}
	}
	return ""
}

// Context is what the branch from root to leaf means for the model.
type Context struct {
	Messages      []llm.Message
	ThinkingLevel string // "" when the branch never set one
	Provider      string // of the latest model change or assistant message
	ModelID       string
}

// BuildContext turns the active branch into agent messages.
func (s *Session) BuildContext() Context {
	return BuildContext(s.Branch(""))
}

// BuildContext turns a branch (root first) into agent messages and state.
func BuildContext(branch []*Entry) Context {
	var c Context
	for _, e := range branch {
		switch e.Type {
		case TypeThinkingLevelChange:
			c.ThinkingLevel = e.ThinkingLevel
		case TypeModelChange:
			c.Provider, c.ModelID = e.Provider, e.ModelID
		case TypeMessage:
			if e.Message == nil {
				continue
			}
			if e.Message.Role == llm.RoleAssistant && e.Message.Provider != "" {
				c.Provider, c.ModelID = e.Message.Provider, e.Message.Model
			}
			c.Messages = append(c.Messages, *e.Message)
		case TypeCustomMessage:
			c.Messages = append(c.Messages, llm.Message{
				Role: llm.RoleCustom, CustomType: e.CustomType, Content: e.Content,
				Display: e.Display, Details: e.Details, ExcludeFromContext: e.ExcludeFromContext,
				Timestamp: parseTime(e.Timestamp),
			})
		case TypeBranchSummary:
			if e.Summary != "" {
				c.Messages = append(c.Messages, llm.Message{
					Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID,
					Timestamp: parseTime(e.Timestamp),
				})
			}
		}
	}
	return c
}

func parseTime(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
