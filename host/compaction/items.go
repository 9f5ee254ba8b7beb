package compaction

import (
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// item is one message of a branch with the entry it came from. Entry is nil
// for a tool result synthesised for a tool call that never got one.
type item struct {
	Entry *session.Entry
	Msg   llm.Message
	// Pos is the index in the branch of the entry (for a synthesised
	// result: of the assistant message that made the call).
	Pos int
}

// noResultText is the content of a synthesised tool result.
const noResultText = "No result provided"

// entryMessage returns the agent message an entry contributes to context.
func entryMessage(e *session.Entry) (llm.Message, bool) {
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			return llm.Message{}, false
		}
		return *e.Message, true
	case session.TypeCustomMessage:
		return llm.Message{
			Role: llm.RoleCustom, CustomType: e.CustomType, Content: e.Content,
			Display: e.Display, Details: e.Details, ExcludeFromContext: e.ExcludeFromContext,
		}, true
	case session.TypeBranchSummary:
		if strings.TrimSpace(e.Summary) == "" {
			return llm.Message{}, false
		}
		return llm.Message{Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID}, true
	}
	return llm.Message{}, false
}

// normalize turns branch entries into the messages they stand for, the way
// they reach a model: every assistant tool call gets exactly one result (an
// error result is synthesised for a call that has none; results for unknown
// or already answered calls are dropped).
func normalize(entries []*session.Entry) []item { return normalizeItems(entries, false) }

// normalizeKept is normalize for a kept tail: tool results before its first
// assistant message answer calls that were compacted, and are kept.
func normalizeKept(entries []*session.Entry) []item { return normalizeItems(entries, true) }

func normalizeItems(entries []*session.Entry, keepLeadingResults bool) []item {
	out := make([]item, 0, len(entries))
	var pending []llm.ContentBlock
	pendingPos := 0
	seenAssistant := false
	flush := func() {
		for _, tc := range pending {
			out = append(out, item{Pos: pendingPos, Msg: llm.Message{
				Role: llm.RoleToolResult, ToolCallID: tc.ID, ToolName: tc.Name,
				Content: llm.TextContent(noResultText), IsError: true,
			}})
		}
		pending = nil
	}
	for pos, e := range entries {
		m, ok := entryMessage(e)
		if !ok {
			continue
		}
		switch m.Role {
		case llm.RoleToolResult:
			matched := false
			for j, tc := range pending {
				if tc.ID == m.ToolCallID {
					pending = append(pending[:j], pending[j+1:]...)
					matched = true
					break
				}
			}
			if !matched && (seenAssistant || !keepLeadingResults) {
				continue
			}
		case llm.RoleAssistant:
			seenAssistant = true
			flush()
			pending, pendingPos = m.ToolCalls(), pos
		default:
			flush()
		}
		out = append(out, item{Entry: e, Msg: m, Pos: pos})
	}
	flush()
	return out
}

// visible reports whether a message reaches the model at all.
func visible(m *llm.Message) bool {
	switch m.Role {
	case llm.RoleAssistant, llm.RoleToolResult:
		return true
	case llm.RoleUser:
		return hasContent(m.Content)
	case llm.RoleCustom:
		return !m.ExcludeFromContext && hasContent(m.Content)
	case llm.RoleBashExecution:
		return !m.ExcludeFromContext
	case llm.RoleBranchSummary:
		return strings.TrimSpace(m.Summary) != ""
	}
	return false
}

func hasContent(c llm.Content) bool {
	for _, b := range c.Blocks {
		switch b.Type {
		case llm.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				return true
			}
		case llm.BlockImage:
			return true
		}
	}
	return false
}

// userContent is the content of a message that reaches the model as a
// user message (user, custom, shell execution, branch summary).
func userContent(m *llm.Message) llm.Content {
	switch m.Role {
	case llm.RoleBashExecution:
		return llm.TextContent(llm.BashExecutionText(m))
	case llm.RoleBranchSummary:
		return llm.TextContent(llm.BranchSummaryText(m.Summary))
	}
	return m.Content
}

// startsUserTurn reports whether the message opens a user turn.
func startsUserTurn(m *llm.Message) bool {
	switch m.Role {
	case llm.RoleUser, llm.RoleBranchSummary:
		return true
	case llm.RoleCustom, llm.RoleBashExecution:
		return !m.ExcludeFromContext
	}
	return false
}
