package session

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

// Building the model's context from the active branch (root to leaf):
//
//   - message entries contribute their message as is (user, assistant,
//     toolResult, bashExecution, custom); llm.ToProviderMessages later turns
//     the agent-only roles into user text and repairs tool calls that have
//     no result;
//   - custom_message entries become custom messages, branch_summary entries
//     with a summary become branchSummary messages;
//   - the latest active compaction entry on the branch replaces everything
//     before it (see ContextRules);
//   - model_change and thinking_level_change entries, and the assistant
//     messages, tell which model and thinking level the branch last used.

// ContextRules decide how compaction entries shape the context. The
// compaction work plugs its own rules in here.
type ContextRules struct {
	// Active reports whether a compaction entry is a context boundary.
	Active func(c *Entry) bool
	// Boundary returns the messages that stand for the branch up to an
	// active compaction entry c. kept are the entries from the compaction's
	// firstKeptEntryId up to c (exclusive), in order; nil when there are
	// none.
	Boundary func(c *Entry, kept []*Entry) []llm.Message
}

// CompactionStrategy is the compaction strategy whose entries are active
// context boundaries; older summary compactions are kept but inert.
const CompactionStrategy = "verbatim-lines"

// CompactionPreamble opens the message that replaces compacted history.
const CompactionPreamble = "Earlier parts of this conversation were compacted. The retained lines of the transcript follow verbatim; removed stretches are marked \"(filtered N lines)\".\n\n"

// DefaultRules treat verbatim-lines compactions as boundaries: one custom
// message (customType "compaction") carries the compacted text, followed
// by the kept entries' messages; pi's summary compactions are boundaries
// as pi builds them (PiBoundary).
var DefaultRules = ContextRules{Active: IsBoundaryCompaction, Boundary: func(c *Entry, kept []*Entry) []llm.Message {
	if IsPiCompaction(c) {
		return PiBoundary(c, kept)
	}
	return DefaultBoundary(c, kept)
}}

// IsBoundaryCompaction reports whether c is a context boundary: a
// verbatim-lines compaction or a pi summary compaction.
func IsBoundaryCompaction(c *Entry) bool { return IsActiveCompaction(c) || IsPiCompaction(c) }

// IsPiCompaction reports whether c is a compaction entry written by pi (or
// any summary compaction): not verbatim-lines, with a summary and a
// firstKeptEntryId.
func IsPiCompaction(c *Entry) bool {
	return c.Type == TypeCompaction && !IsActiveCompaction(c) && c.Summary != "" && c.FirstKeptEntryID != nil
}

// PiBoundary is the context pi builds at a summary compaction: the
// compactionSummary message, then the kept entries' messages (system
// messages among them are left out, as pi folds them into the
// compaction's systemMessage checkpoint). The checkpoint itself describes
// pi's system prompt and tools; atomic sends its own, so it stays in the
// entry, unchanged, and is not replayed.
func PiBoundary(c *Entry, kept []*Entry) []llm.Message {
	sm := llm.Message{Role: llm.RoleCompactionSummary, Summary: c.Summary, Timestamp: parseTime(c.Timestamp)}
	if c.TokensBefore != 0 {
		sm.Extra = map[string]json.RawMessage{"tokensBefore": json.RawMessage(strconv.Itoa(c.TokensBefore))}
	}
	out := []llm.Message{sm}
	for _, e := range kept {
		if m, ok := EntryMessage(e); ok && m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// contextEdits collects the latest context_edit of each target on a path
// (edits are branch-relative: only those on the path count). The value is
// the raw replacement ("null" drops the target).
func (s *Session) contextEditsLocked(path []*node) map[string]json.RawMessage {
	var edits map[string]json.RawMessage
	for _, n := range path {
		if n.typ != TypeContextEdit {
			continue
		}
		e, err := s.loadLocked(n)
		if err != nil || e.TargetID == "" {
			continue
		}
		if edits == nil {
			edits = map[string]json.RawMessage{}
		}
		r, ok := e.Extra["replacement"]
		if !ok {
			r = json.RawMessage("null")
		}
		edits[e.TargetID] = r
	}
	return edits
}

// applyEdit returns the entry as a context_edit replacement leaves it (a
// copy with new content), or false when the edit drops it. The
// replacement is pi's {content} (a string or an array of blocks), or
// that content itself (as Atomic read edits before); anything else
// leaves the entry unchanged.
func applyEdit(e *Entry, replacement json.RawMessage) (*Entry, bool) {
	if string(replacement) == "null" {
		return nil, false
	}
	var r struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(replacement, &r) == nil && len(r.Content) > 0 {
		replacement = r.Content
	}
	var c llm.Content
	if err := c.UnmarshalJSON(replacement); err != nil {
		return e, true
	}
	cp := *e
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return e, true
		}
		m := *e.Message
		if m.Role == llm.RoleAssistant || m.Role == llm.RoleToolResult {
			c.AsString = false // those roles take content arrays
		}
		m.Content = c
		cp.Message = &m
	case TypeCustomMessage:
		cp.Content = c
	}
	return &cp, true
}

// IsActiveCompaction reports whether c is a verbatim-lines compaction.
func IsActiveCompaction(c *Entry) bool {
	d, ok := c.Details.(map[string]any)
	if !ok && c.Details != nil {
		// Typed details of an entry made in this process.
		var probe struct {
			Strategy string `json:"strategy"`
		}
		if b, err := json.Marshal(c.Details); err == nil && json.Unmarshal(b, &probe) == nil {
			return probe.Strategy == CompactionStrategy
		}
	}
	return ok && d["strategy"] == CompactionStrategy
}

// DefaultBoundary is the Boundary of DefaultRules.
func DefaultBoundary(c *Entry, kept []*Entry) []llm.Message {
	out := []llm.Message{{
		Role: llm.RoleCustom, CustomType: "compaction", Display: true, Details: c.Details,
		Content:   llm.Content{Blocks: []llm.ContentBlock{llm.Text(CompactionPreamble + c.Summary)}},
		Timestamp: parseTime(c.Timestamp),
	}}
	for _, e := range kept {
		if m, ok := EntryMessage(e); ok {
			out = append(out, m)
		}
	}
	return out
}

// EntryMessage returns the context message an entry contributes, if any.
// Compaction entries are handled by the rules, not here.
func EntryMessage(e *Entry) (llm.Message, bool) {
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return llm.Message{}, false
		}
		return *e.Message, true
	case TypeCustomMessage:
		return llm.Message{
			Role: llm.RoleCustom, CustomType: e.CustomType, Content: e.Content,
			Display: e.Display, Details: e.Details, ExcludeFromContext: e.ExcludeFromContext,
			Timestamp: parseTime(e.Timestamp),
		}, true
	case TypeBranchSummary:
		if e.Summary == "" {
			return llm.Message{}, false
		}
		return llm.Message{Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID, Timestamp: parseTime(e.Timestamp)}, true
	}
	return llm.Message{}, false
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
	p := s.Plan(DefaultRules)
	return Context{Messages: p.Messages(), ThinkingLevel: p.ThinkingLevel, Provider: p.Provider, ModelID: p.ModelID}
}

// BuildContext turns a branch (root first) into agent messages and state.
func BuildContext(branch []*Entry) Context {
	return FromBranch(branch).BuildContext()
}

// FromBranch is an in-memory session holding a branch (root first) as
// its one path, the last entry its leaf: a scratch copy to append to
// (the entries are shared, not copied).
func FromBranch(branch []*Entry) *Session {
	s := NewInMemory("")
	for _, e := range branch {
		n := nodeFor(e)
		s.addLocked(n)
	}
	if len(s.nodes) > 0 {
		s.leaf = s.nodes[len(s.nodes)-1].id
	}
	// The branch is a path already: make it one even if parent ids say
	// otherwise.
	for i, n := range s.nodes {
		n.parent = ""
		if i > 0 {
			n.parent = s.nodes[i-1].id
		}
	}
	return s
}

// ProjectedEntry is an entry of the context with the messages it gives
// the model (pi 1.6's buildSessionProjection().entries).
type ProjectedEntry struct {
	SourceEntry *Entry        `json:"sourceEntry"`
	Messages    []llm.Message `json:"messages"`
}

// ContextEntries are the entries of the active branch that make the
// context under rules, each with its messages, as pi 1.6 lists them: the
// latest boundary compaction first (its own messages), then the entries
// it keeps from its firstKeptEntryId (system messages left out), then
// every entry after it; without a boundary, the whole branch. Entries
// that give no message (model changes, labels, custom entries, context
// edits, older compactions, an entry an edit drops) have none.
func (s *Session) ContextEntries(rules ContextRules) []ProjectedEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	path := s.pathLocked("")
	edits := s.contextEditsLocked(path)
	var out []ProjectedEntry
	add := func(n *node, own []llm.Message) {
		e, err := s.loadLocked(n)
		if err != nil {
			return
		}
		msgs := own
		if msgs == nil {
			msgs = []llm.Message{}
			src := e
			if r, ok := edits[n.id]; ok && (n.typ == TypeMessage || n.typ == TypeCustomMessage) {
				if src, ok = applyEdit(e, r); !ok {
					src = nil
				}
			}
			if src != nil && src.Type != TypeCompaction {
				if m, ok := EntryMessage(src); ok {
					msgs = append(msgs, m)
				}
			}
		}
		out = append(out, ProjectedEntry{SourceEntry: e, Messages: msgs})
	}
	start := 0
	for i := len(path) - 1; i >= 0 && rules.Active != nil && rules.Boundary != nil; i-- {
		if path[i].typ != TypeCompaction {
			continue
		}
		c, err := s.loadLocked(path[i])
		if err != nil || !rules.Active(c) {
			continue
		}
		add(path[i], append([]llm.Message{}, rules.Boundary(c, nil)...))
		if c.FirstKeptEntryID != nil {
			for j := 0; j < i; j++ {
				if path[j].id != *c.FirstKeptEntryID {
					continue
				}
				for _, k := range path[j:i] {
					if k.typ == TypeMessage && k.role == "system" {
						continue
					}
					add(k, nil)
				}
				break
			}
		}
		start = i + 1
		break
	}
	for _, n := range path[start:] {
		add(n, nil)
	}
	return out
}

// Plan is the context of a branch with message bodies not loaded yet: Len
// is known at once, Messages reads the bodies.
type Plan struct {
	s     *Session
	items []planItem

	ThinkingLevel string
	Provider      string
	ModelID       string
}

type planItem struct {
	n   *node        // an entry whose message is loaded on demand
	msg *llm.Message // or a message made while planning
}

// Plan computes the context of the active branch under rules, decoding
// only the entries it must (compaction boundaries, the entry that last
// set the model).
func (s *Session) Plan(rules ContextRules) *Plan {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.planLocked(s.pathLocked(""), rules)
}

func (s *Session) planLocked(path []*node, rules ContextRules) *Plan {
	p := &Plan{s: s}
	// Model and thinking level: the latest on the path.
	for i := len(path) - 1; i >= 0 && (p.ThinkingLevel == "" || p.Provider == ""); i-- {
		n := path[i]
		switch {
		case n.typ == TypeThinkingLevelChange && p.ThinkingLevel == "":
			if e, err := s.loadLocked(n); err == nil {
				p.ThinkingLevel = e.ThinkingLevel
			}
		case n.typ == TypeModelChange && p.Provider == "":
			if e, err := s.loadLocked(n); err == nil {
				p.Provider, p.ModelID = e.Provider, e.ModelID
			}
		case n.typ == TypeMessage && n.role == llm.RoleAssistant && p.Provider == "":
			if e, err := s.loadLocked(n); err == nil && e.Message != nil && e.Message.Provider != "" {
				p.Provider, p.ModelID = e.Message.Provider, e.Message.Model
			}
		}
	}
	edits := s.contextEditsLocked(path)
	// The latest active compaction boundary.
	start := 0
	if rules.Active != nil && rules.Boundary != nil {
		for i := len(path) - 1; i >= 0; i-- {
			n := path[i]
			if n.typ != TypeCompaction {
				continue
			}
			c, err := s.loadLocked(n)
			if err != nil || !rules.Active(c) {
				continue
			}
			var kept []*Entry
			if c.FirstKeptEntryID != nil {
				for j := 0; j < i; j++ {
					if path[j].id == *c.FirstKeptEntryID {
						for _, k := range path[j:i] {
							e, err := s.loadLocked(k)
							if err != nil {
								continue
							}
							if r, ok := edits[k.id]; ok {
								if e, ok = applyEdit(e, r); !ok {
									continue
								}
							}
							kept = append(kept, e)
						}
						break
					}
				}
			}
			for _, m := range rules.Boundary(c, kept) {
				mc := m
				p.items = append(p.items, planItem{msg: &mc})
			}
			start = i + 1
			break
		}
	}
	for _, n := range path[start:] {
		if r, ok := edits[n.id]; ok && (n.typ == TypeMessage || n.typ == TypeCustomMessage) {
			e, err := s.loadLocked(n)
			if err != nil {
				continue
			}
			if e, ok = applyEdit(e, r); ok {
				if m, ok := EntryMessage(e); ok {
					p.items = append(p.items, planItem{msg: &m})
				}
			}
			continue
		}
		switch n.typ {
		case TypeMessage:
			if n.role != "" {
				p.items = append(p.items, planItem{n: n})
			}
		case TypeCustomMessage:
			p.items = append(p.items, planItem{n: n})
		case TypeBranchSummary:
			if !n.summaryEmpty {
				p.items = append(p.items, planItem{n: n})
			}
		}
	}
	return p
}

// Len is the number of context messages.
func (p *Plan) Len() int { return len(p.items) }

// Messages loads the context messages. Entries that cannot be read are
// left out.
func (p *Plan) Messages() []llm.Message {
	out := make([]llm.Message, 0, len(p.items))
	p.s.mu.RLock()
	defer p.s.mu.RUnlock()
	for _, it := range p.items {
		if m, ok := p.messageLocked(it); ok {
			out = append(out, m)
		}
	}
	return out
}

func (p *Plan) messageLocked(it planItem) (llm.Message, bool) {
	if it.msg != nil {
		return *it.msg, true
	}
	e, err := p.s.loadLocked(it.n)
	if err != nil {
		return llm.Message{}, false
	}
	return EntryMessage(e)
}

// Roles returns the role of each context message without loading bodies.
func (p *Plan) Roles() []string {
	out := make([]string, len(p.items))
	for i, it := range p.items {
		switch {
		case it.msg != nil:
			out[i] = it.msg.Role
		case it.n.typ == TypeMessage:
			out[i] = it.n.role
		case it.n.typ == TypeCustomMessage:
			out[i] = llm.RoleCustom
		case it.n.typ == TypeBranchSummary:
			out[i] = llm.RoleBranchSummary
		}
	}
	return out
}

// MessageAt loads the i-th context message.
func (p *Plan) MessageAt(i int) (llm.Message, bool) {
	p.s.mu.RLock()
	defer p.s.mu.RUnlock()
	return p.messageLocked(p.items[i])
}

func parseTime(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
