package llm

import "encoding/json"

// imageChars is what an image counts for in token estimates.
const imageChars = 4800

// EstimateTokens guesses a message's size in tokens (characters / 4, an
// image as 4800 characters) for messages without reported usage.
func EstimateTokens(m *Message) int {
	chars := 0
	switch m.Role {
	case RoleAssistant:
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case BlockText:
				chars += len(b.Text)
			case BlockThinking:
				chars += len(b.Thinking)
			case BlockToolCall:
				raw, _ := json.Marshal(b.Arguments)
				chars += len(b.Name) + len(raw)
			}
		}
	case RoleBashExecution:
		chars = len(m.Command) + len(m.Output)
	case RoleBranchSummary:
		chars = len(m.Summary)
	default:
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case BlockText:
				chars += len(b.Text)
			case BlockImage:
				chars += imageChars
			}
		}
	}
	return (chars + 3) / 4
}

// ContextTokens is how many tokens a usage says the context held.
func ContextTokens(u Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// EstimateContextTokens estimates the size of a conversation: the usage
// reported with the newest assistant message that completed, plus
// estimates of the messages after it (all estimates when none reported
// usage).
func EstimateContextTokens(msgs []Message) int {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role == RoleAssistant && m.StopReason != StopError && m.StopReason != StopAborted && ContextTokens(m.Usage) > 0 {
			last = i
			break
		}
	}
	total := 0
	if last >= 0 {
		total = ContextTokens(msgs[last].Usage)
	}
	for i := last + 1; i < len(msgs); i++ {
		total += EstimateTokens(&msgs[i])
	}
	return total
}
