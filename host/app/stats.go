package app

import (
	"math"

	"github.com/atomic-go/atomic/host/llm"
)

// TokenTotals sums assistant usage.
type TokenTotals struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// ContextUsage is how full the context window is. Tokens and Percent are
// null when unknown.
type ContextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

// SessionStats is the get_session_stats answer.
type SessionStats struct {
	SessionFile       string        `json:"sessionFile,omitempty"`
	SessionID         string        `json:"sessionId"`
	UserMessages      int           `json:"userMessages"`
	AssistantMessages int           `json:"assistantMessages"`
	ToolCalls         int           `json:"toolCalls"`
	ToolResults       int           `json:"toolResults"`
	TotalMessages     int           `json:"totalMessages"`
	Tokens            TokenTotals   `json:"tokens"`
	Cost              float64       `json:"cost"`
	ContextUsage      *ContextUsage `json:"contextUsage,omitempty"`
}

// SessionStats counts the messages of the current session state, sums the
// assistant usage and cost, and estimates how full the context window is.
func (rt *Runtime) SessionStats() SessionStats {
	state := rt.State()
	st := SessionStats{SessionID: state.SessionID, SessionFile: state.SessionFile}
	rt.mu.Lock()
	msgs := append([]llm.Message(nil), rt.messages...)
	var window int
	if rt.model != nil {
		window = rt.model.ContextWindow
	}
	rt.mu.Unlock()
	st.TotalMessages = len(msgs)
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleUser:
			st.UserMessages++
		case llm.RoleToolResult:
			st.ToolResults++
		case llm.RoleAssistant:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			u := m.Usage
			st.Tokens.Input += u.Input
			st.Tokens.Output += u.Output
			st.Tokens.CacheRead += u.CacheRead
			st.Tokens.CacheWrite += u.CacheWrite
			st.Cost += u.Cost.Total
		}
	}
	st.Tokens.Total = st.Tokens.Input + st.Tokens.Output + st.Tokens.CacheRead + st.Tokens.CacheWrite
	if window > 0 {
		tokens := llm.EstimateContextTokens(msgs)
		pct := math.Round(float64(tokens)/float64(window)*1000) / 10
		st.ContextUsage = &ContextUsage{Tokens: &tokens, ContextWindow: window, Percent: &pct}
	}
	return st
}
