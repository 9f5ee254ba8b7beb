package llm

import (
	"encoding/json"
	"unicode/utf8"
)

// The token estimate used everywhere a context size is guessed: the
// auto-compaction threshold, get_session_stats, an extension's
// ctx.getContextUsage() and the compaction planner's budgets. It is the
// reference's rule: a quarter of the text's length in UTF-16 code units,
// rounded up per message, an image counting as 4,800 characters. Keeping it
// in one place is what makes those figures agree on the same session.

// TextLen is the length of s in UTF-16 code units, the unit every character
// count of the session format (token estimates, caps) uses. Invalid UTF-8
// bytes count one unit each, as U+FFFD would.
func TextLen(s string) int {
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

// imageChars is what one image counts for in token estimates.
const imageChars = 4800

// TokensForChars is the token estimate of n characters (UTF-16 code units):
// a quarter, rounded up.
func TokensForChars(n int) int { return (n + 3) / 4 }

// EstimateTextTokens is the estimated token count of a text.
func EstimateTextTokens(s string) int { return TokensForChars(TextLen(s)) }

// textAndImageChars counts the text blocks' length and each image's share.
func textAndImageChars(blocks []ContentBlock) int {
	chars := 0
	for _, b := range blocks {
		switch b.Type {
		case BlockText:
			chars += TextLen(b.Text)
		case BlockImage:
			chars += imageChars
		}
	}
	return chars
}

// EstimateTokens estimates the tokens one message takes in context.
func EstimateTokens(m *Message) int {
	chars := 0
	switch m.Role {
	case RoleUser, RoleCustom, RoleToolResult:
		chars = textAndImageChars(m.Content.Blocks)
	case RoleAssistant:
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case BlockText:
				chars += TextLen(b.Text)
			case BlockThinking:
				chars += TextLen(b.Thinking)
			case BlockToolCall:
				args, _ := json.Marshal(b.Arguments)
				chars += TextLen(b.Name) + TextLen(string(args))
			}
		}
	case RoleBashExecution:
		chars = TextLen(m.Command) + TextLen(m.Output)
	case RoleBranchSummary:
		chars = TextLen(m.Summary)
	}
	return TokensForChars(chars)
}

// ContextTokens is the context size a usage report stands for.
func ContextTokens(u Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// ReportsContext says whether m is an assistant message whose usage tells
// the context size: it finished (not aborted, not failed) and reported
// tokens. Its ContextTokens then replaces the estimate of everything up to
// and including it.
func ReportsContext(m *Message) bool {
	return m.Role == RoleAssistant && m.StopReason != StopError && m.StopReason != StopAborted &&
		ContextTokens(m.Usage) > 0
}

// EstimateContextTokens estimates the size of a context: the usage reported
// with the newest finished assistant message plus estimates of every message
// after it, or estimates of all messages when none reported usage.
func EstimateContextTokens(msgs []Message) int {
	last, total := -1, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if ReportsContext(&msgs[i]) {
			last, total = i, ContextTokens(msgs[i].Usage)
			break
		}
	}
	for i := last + 1; i < len(msgs); i++ {
		total += EstimateTokens(&msgs[i])
	}
	return total
}

// ContextEstimate accumulates EstimateContextTokens over messages given in
// context order, for callers that walk a context once for other counts too.
type ContextEstimate struct {
	reported bool // a finished assistant reply gave the size so far
	tokens   int
}

// Add counts the next message of the context.
func (e *ContextEstimate) Add(m *Message) {
	if ReportsContext(m) {
		e.reported, e.tokens = true, ContextTokens(m.Usage)
		return
	}
	e.tokens += EstimateTokens(m)
}

// Tokens is the estimate so far.
func (e *ContextEstimate) Tokens() int { return e.tokens }
