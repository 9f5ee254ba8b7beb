package compaction

import (
	"encoding/json"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// BoundaryCustomType is the customType of the message that stands for a
// compacted history in context.
const BoundaryCustomType = "compaction"

// boundaryPreamble opens the boundary message. Our own wording.
const boundaryPreamble = "Earlier parts of this conversation were compacted to save context. " +
	"What follows is the part that was kept, copied word for word; each line of the form \"(filtered N lines)\" stands for N lines that were left out.\n\n"

// StrategyOf returns details.strategy of a compaction entry's details.
func StrategyOf(details any) string {
	switch d := details.(type) {
	case nil:
		return ""
	case *Details:
		return d.Strategy
	case Details:
		return d.Strategy
	case map[string]any:
		s, _ := d["strategy"].(string)
		return s
	}
	data, err := json.Marshal(details)
	if err != nil {
		return ""
	}
	var d struct {
		Strategy string `json:"strategy"`
	}
	_ = json.Unmarshal(data, &d)
	return d.Strategy
}

// IsBoundary reports whether e is an active verbatim-lines compaction.
// Older summary compactions (no strategy) are inert.
func IsBoundary(e *session.Entry) bool {
	return e != nil && e.Type == session.TypeCompaction && StrategyOf(e.Details) == Strategy
}

// LastBoundary returns the index of the newest active compaction in a
// branch, or -1.
func LastBoundary(branch []*session.Entry) int {
	for i := len(branch) - 1; i >= 0; i-- {
		if IsBoundary(branch[i]) {
			return i
		}
	}
	return -1
}

// indexOf returns the index of the entry with this id in branch[:limit].
func indexOf(branch []*session.Entry, id string, limit int) int {
	for i := 0; i < limit && i < len(branch); i++ {
		if branch[i].ID == id {
			return i
		}
	}
	return -1
}

// keptEntries returns the entries from the boundary's first kept entry up
// to the boundary at index b (nil when it keeps none).
func keptEntries(branch []*session.Entry, b int) []*session.Entry {
	e := branch[b]
	if e.FirstKeptEntryID == nil {
		return nil
	}
	k := indexOf(branch, *e.FirstKeptEntryID, b)
	if k < 0 {
		return nil
	}
	return branch[k:b]
}

// BoundaryMessage is the one message that stands for everything up to the
// compaction entry c: a short preamble, the compacted text, then the kept
// entries serialised in retained mode (images as extra blocks).
func BoundaryMessage(c *session.Entry, kept []*session.Entry) llm.Message {
	text := boundaryPreamble + c.Summary
	var msgs []llm.Message
	for _, it := range normalizeKept(kept) {
		if visible(&it.Msg) {
			msgs = append(msgs, it.Msg)
		}
	}
	tailText, images := SerializeRetained(msgs)
	if tailText != "" {
		text += "\n\n" + tailText
	}
	blocks := append([]llm.ContentBlock{llm.Text(text)}, images...)
	return llm.Message{
		Role: llm.RoleCustom, CustomType: BoundaryCustomType, Display: true,
		Content: llm.Content{Blocks: blocks}, Details: c.Details,
		Timestamp: parseTimestamp(c.Timestamp),
	}
}

// Boundary is BoundaryMessage in the shape of a context-building rule;
// a pi summary compaction gets pi's context (session.PiBoundary).
func Boundary(c *session.Entry, kept []*session.Entry) []llm.Message {
	if !IsBoundary(c) { // (IsBoundary also knows the typed Details of new entries)
		return session.PiBoundary(c, kept)
	}
	return []llm.Message{BoundaryMessage(c, kept)}
}

// ContextRules make verbatim-lines compactions the context boundaries of
// a session: one boundary message, then the entries after the compaction.
// Compactions pi wrote (a summary, no verbatim-lines strategy) are
// boundaries too, built as pi builds them.
var ContextRules = session.ContextRules{Active: func(c *session.Entry) bool {
	return IsBoundary(c) || session.IsPiCompaction(c)
}, Boundary: Boundary}

// BuildContext is session.BuildContext with the newest verbatim-lines
// boundary applied: the boundary message, then every entry after it.
func BuildContext(branch []*session.Entry) session.Context {
	c := session.BuildContext(branch)
	b := LastBoundary(branch)
	if b < 0 {
		return c
	}
	msgs := []llm.Message{BoundaryMessage(branch[b], keptEntries(branch, b))}
	c.Messages = append(msgs, session.BuildContext(branch[b+1:]).Messages...)
	return c
}

func parseTimestamp(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
