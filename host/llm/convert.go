package llm

import (
	"fmt"
	"strings"
)

// BashExecutionText is how a direct shell command reaches the model: the
// command, its output in a fenced block, and notes on how it ended (pi's
// wording, byte for byte: the output as it is, a note on truncation only
// with the file that holds the whole output).
func BashExecutionText(m *Message) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Ran `%s`\n", m.Command)
	if m.Output != "" {
		sb.WriteString("```\n")
		sb.WriteString(m.Output)
		sb.WriteString("\n```")
	} else {
		sb.WriteString("(no output)")
	}
	if m.Cancelled {
		sb.WriteString("\n\n(command cancelled)")
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		fmt.Fprintf(&sb, "\n\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		fmt.Fprintf(&sb, "\n\n[Output truncated. Full output: %s]", m.FullOutputPath)
	}
	return sb.String()
}

// BranchSummaryText is how a branch summary reaches the model (pi's
// wording: no line break before the closing tag).
func BranchSummaryText(summary string) string {
	return "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n" + summary + "</summary>"
}

// CompactionSummaryText is the user text a pi compaction summary becomes
// in the model's context (pi's wording).
func CompactionSummaryText(summary string) string {
	return "The conversation history before this point was compacted into the following summary:\n\n<summary>\n" + summary + "\n</summary>"
}

// ImagesDisabledText stands for an image the settings keep from the model
// (images.blockImages), in pi 1.6's words.
const ImagesDisabledText = "Image reading is disabled."

// WithoutImages returns msgs with every image of a user or tool result
// message replaced by ImagesDisabledText (consecutive ones by one), as
// pi 1.6 does with images.blockImages. msgs is not changed.
func WithoutImages(msgs []Message) []Message {
	var out []Message
	for i, m := range msgs {
		if m.Role != RoleUser && m.Role != RoleToolResult || len(m.Content.Images()) == 0 {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]Message, 0, len(msgs)), msgs[:i]...)
		}
		blocks := make([]ContentBlock, 0, len(m.Content.Blocks))
		for _, b := range m.Content.Blocks {
			if b.Type == BlockImage {
				b = Text(ImagesDisabledText)
			}
			if n := len(blocks); n > 0 && b.Type == BlockText && b.Text == ImagesDisabledText &&
				blocks[n-1].Type == BlockText && blocks[n-1].Text == ImagesDisabledText {
				continue
			}
			blocks = append(blocks, b)
		}
		m.Content = Content{Blocks: blocks}
		out = append(out, m)
	}
	if out == nil {
		return msgs
	}
	return out
}

// ToProviderMessages converts agent messages to the user, assistant and
// toolResult messages a provider understands: shell executions, custom
// messages and branch summaries become user messages; messages excluded from
// context are dropped; assistant messages that failed or were aborted are
// dropped; a tool call left without a result gets an error result so that
// every provider accepts the transcript.
func ToProviderMessages(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	var pending []ContentBlock // tool calls of the last assistant message awaiting results
	flushPending := func() {
		for _, tc := range pending {
			out = append(out, Message{
				Role: RoleToolResult, ToolCallID: tc.ID, ToolName: tc.Name,
				Content: Content{Blocks: []ContentBlock{Text("No result provided")}},
				IsError: true,
			})
		}
		pending = nil
	}
	for i := range msgs {
		m := msgs[i]
		switch m.Role {
		case RoleAssistant:
			flushPending()
			if m.StopReason == StopError || m.StopReason == StopAborted {
				continue
			}
			out = append(out, m)
			pending = m.ToolCalls()
		case RoleToolResult:
			matched := false
			for j, tc := range pending {
				if tc.ID == m.ToolCallID {
					pending = append(pending[:j], pending[j+1:]...)
					matched = true
					break
				}
			}
			if matched {
				out = append(out, m)
			}
		case RoleUser:
			flushPending()
			out = append(out, m)
		case RoleBashExecution:
			if m.ExcludeFromContext {
				continue
			}
			flushPending()
			out = append(out, Message{Role: RoleUser, Content: TextContent(BashExecutionText(&m)), Timestamp: m.Timestamp})
		case RoleCustom:
			if m.ExcludeFromContext {
				continue
			}
			flushPending()
			c := m.Content
			c.AsString = false
			out = append(out, Message{Role: RoleUser, Content: c, Timestamp: m.Timestamp})
		case RoleCompactionSummary:
			flushPending()
			out = append(out, Message{Role: RoleUser, Content: TextContent(CompactionSummaryText(m.Summary)), Timestamp: m.Timestamp})
		case RoleBranchSummary:
			if strings.TrimSpace(m.Summary) == "" {
				continue
			}
			flushPending()
			out = append(out, Message{Role: RoleUser, Content: TextContent(BranchSummaryText(m.Summary)), Timestamp: m.Timestamp})
		}
	}
	flushPending()
	return out
}
