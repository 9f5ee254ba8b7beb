package compaction

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/llm"
)

// textLen is the length of s in UTF-16 code units, the unit every
// character count of the session format (token estimates, caps) uses.
func textLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// ceilDiv4 is ceil(n/4) for n >= 0.
func ceilDiv4(n int) int { return (n + 3) / 4 }

// EstimateTextTokens is the rough token count of a text: a quarter of its
// length, rounded up.
func EstimateTextTokens(s string) int { return ceilDiv4(textLen(s)) }

// imageChars is what one image counts for in token estimates.
const imageChars = 4800

// EstimateTokens estimates the tokens one agent message takes in context.
func EstimateTokens(m *llm.Message) int {
	chars := 0
	switch m.Role {
	case llm.RoleUser:
		for _, b := range m.Content.Blocks {
			if b.Type == llm.BlockText {
				chars += textLen(b.Text)
			}
		}
	case llm.RoleAssistant:
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case llm.BlockText:
				chars += textLen(b.Text)
			case llm.BlockThinking:
				chars += textLen(b.Thinking)
			case llm.BlockToolCall:
				args, _ := json.Marshal(b.Arguments)
				chars += textLen(b.Name) + textLen(string(args))
			}
		}
	case llm.RoleCustom, llm.RoleToolResult:
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case llm.BlockText:
				chars += textLen(b.Text)
			case llm.BlockImage:
				chars += imageChars
			}
		}
	case llm.RoleBashExecution:
		chars = textLen(m.Command) + textLen(m.Output)
	case llm.RoleBranchSummary:
		chars = textLen(m.Summary)
	}
	return ceilDiv4(chars)
}

// ContextTokens is the context size a usage report stands for.
func ContextTokens(u llm.Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// EstimateContextTokens estimates the size of a context: the usage reported
// with the newest successful assistant message plus estimates of every
// message after it, or estimates of all messages when none reported usage.
func EstimateContextTokens(msgs []llm.Message) int {
	last := -1
	base := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != llm.RoleAssistant || m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			continue
		}
		if t := ContextTokens(m.Usage); t > 0 {
			last, base = i, t
			break
		}
	}
	total := base
	for i := last + 1; i < len(msgs); i++ {
		total += EstimateTokens(&msgs[i])
	}
	return total
}
