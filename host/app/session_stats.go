package app

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/session/htmlexport"
)

// SessionStats is get_session_stats' answer.
type SessionStats struct {
	SessionFile       string        `json:"sessionFile,omitempty"`
	SessionID         string        `json:"sessionId"`
	UserMessages      int           `json:"userMessages"`
	AssistantMessages int           `json:"assistantMessages"`
	ToolCalls         int           `json:"toolCalls"`
	ToolResults       int           `json:"toolResults"`
	TotalMessages     int           `json:"totalMessages"`
	Tokens            TokenStats    `json:"tokens"`
	Cost              float64       `json:"cost"`
	ContextUsage      *ContextUsage `json:"contextUsage,omitempty"`
}

// TokenStats are token totals.
type TokenStats struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// ContextUsage is the estimated size of the context. Tokens and Percent
// are null right after a compaction, until an assistant reply reports
// usage again.
type ContextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

// SessionStats counts the context's messages and the assistant's usage.
func (rt *Runtime) SessionStats() SessionStats {
	rt.mu.Lock()
	s, model := rt.sess, rt.model
	rt.mu.Unlock()
	st := SessionStats{SessionFile: s.Path(), SessionID: s.ID()}
	// Context size: the usage of the latest assistant reply that has it,
	// plus an estimate of what came after it.
	known := -1
	after := 0
	compacted := false
	rt.eachContextMessage(func(m *llm.Message) {
		st.TotalMessages++
		switch m.Role {
		case llm.RoleUser:
			st.UserMessages++
		case llm.RoleAssistant:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			u := m.Usage
			st.Tokens.Input += u.Input
			st.Tokens.Output += u.Output
			st.Tokens.CacheRead += u.CacheRead
			st.Tokens.CacheWrite += u.CacheWrite
			st.Cost += u.Cost.Total
			if m.StopReason != llm.StopAborted && m.StopReason != llm.StopError {
				if t := contextTokens(u); t > 0 {
					known, after, compacted = t, 0, false
					return
				}
			}
		case llm.RoleToolResult:
			st.ToolResults++
		case llm.RoleCustom:
			if m.CustomType == "compaction" {
				compacted = true
				known, after = -1, 0
			}
		}
		after += estimateTokens(m)
	})
	st.Tokens.Total = st.Tokens.Input + st.Tokens.Output + st.Tokens.CacheRead + st.Tokens.CacheWrite
	if model != nil && model.ContextWindow > 0 {
		cu := &ContextUsage{ContextWindow: model.ContextWindow}
		if !compacted {
			t := after
			if known >= 0 {
				t += known
			}
			pct := float64(t) * 100 / float64(model.ContextWindow)
			cu.Tokens, cu.Percent = &t, &pct
		}
		st.ContextUsage = cu
	}
	return st
}

func contextTokens(u llm.Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// estimateTokens guesses a message's size at four characters a token.
func estimateTokens(m *llm.Message) int {
	chars := 0
	for _, b := range m.Content.Blocks {
		switch b.Type {
		case llm.BlockText:
			chars += len(b.Text)
		case llm.BlockThinking:
			chars += len(b.Thinking)
		case llm.BlockToolCall:
			args, _ := json.Marshal(b.Arguments)
			chars += len(b.Name) + len(args)
		case llm.BlockImage:
			chars += 4800
		}
	}
	chars += len(m.Command) + len(m.Output) + len(m.Summary)
	return (chars + 3) / 4
}

// ErrExportInMemory is export_html's error with --no-session.
var ErrExportInMemory = errors.New("Cannot export in-memory session to HTML")

// ErrNothingToExport is export_html's error before any message.
var ErrNothingToExport = errors.New("Nothing to export yet - start a conversation first")

// ExportHTML writes the active branch as a self-contained HTML page and
// returns its path. Without outputPath the page goes to
// <cwd>/atomic-session-<session file name>.html.
func (rt *Runtime) ExportHTML(outputPath string) (string, error) {
	rt.mu.Lock()
	s, model := rt.sess, rt.model
	count := rt.messageCountLocked()
	rt.mu.Unlock()
	if !s.Persisted() {
		return "", ErrExportInMemory
	}
	if count == 0 && !hasMessages(s) {
		return "", ErrNothingToExport
	}
	if outputPath == "" {
		base := strings.TrimSuffix(filepath.Base(s.Path()), ".jsonl")
		outputPath = filepath.Join(rt.Cwd(), "atomic-session-"+base+".html")
	}
	outputPath = rt.resolvePath(outputPath)
	info := htmlexport.Info{Generated: time.Now()}
	if model != nil {
		info.Model = model.Provider + "/" + model.ID
	}
	if err := htmlexport.WriteFile(outputPath, s, info); err != nil {
		return "", err
	}
	return outputPath, nil
}

func hasMessages(s *session.Session) bool {
	found := false
	_ = s.WalkBranch("", func(e *session.Entry) error {
		if _, ok := session.EntryMessage(e); ok {
			found = true
			return errStop
		}
		return nil
	})
	return found
}

var errStop = errors.New("stop")
