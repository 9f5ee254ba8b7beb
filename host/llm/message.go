package llm

import (
	"encoding/json"
	"time"
)

// Message roles. The first three are what providers understand; the others
// are agent-level messages converted to user text before a provider call.
const (
	RoleUser          = "user"
	RoleAssistant     = "assistant"
	RoleToolResult    = "toolResult"
	RoleBashExecution = "bashExecution"
	RoleCustom        = "custom"
	RoleBranchSummary = "branchSummary"
)

// Stop reasons of an assistant message.
const (
	StopPending = "pending"
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// AbortedMessage is the errorMessage of an aborted assistant message.
const AbortedMessage = "Request was aborted"

// Message is one AgentMessage. Role selects which fields are meaningful and
// which are written to JSON; unknown fields read from JSON are kept in Extra
// and written back, so messages from other implementations survive a round
// trip.
type Message struct {
	Role    string
	Content Content

	// assistant
	API          string
	Provider     string
	Model        string
	ResponseID   string
	Usage        Usage
	StopReason   string
	ErrorMessage string
	EndTurn      *bool

	// toolResult
	ToolCallID string
	ToolName   string
	Details    any
	IsError    bool

	// bashExecution
	Command        string
	Output         string
	ExitCode       *int
	Cancelled      bool
	Truncated      bool
	FullOutputPath string

	// custom
	CustomType string
	Display    bool

	// bashExecution and custom
	ExcludeFromContext bool

	// branchSummary
	Summary string
	FromID  string

	Timestamp int64 // Unix milliseconds
	Extra     map[string]json.RawMessage
}

// Now returns the current time in Unix milliseconds.
func Now() int64 { return time.Now().UnixMilli() }

// UserText returns a user message with one text block (array content).
func UserText(text string) Message {
	return Message{Role: RoleUser, Content: TextContent(text), Timestamp: Now()}
}

// Text returns the message's text blocks joined without separator.
func (m *Message) Text() string { return m.Content.JoinText("") }

// ToolCalls returns the assistant message's tool-call blocks.
func (m *Message) ToolCalls() []ContentBlock {
	var out []ContentBlock
	for _, b := range m.Content.Blocks {
		if b.Type == BlockToolCall {
			out = append(out, b)
		}
	}
	return out
}

// Clone returns a copy whose content slice can be changed independently.
func (m Message) Clone() Message {
	m.Content.Blocks = append([]ContentBlock(nil), m.Content.Blocks...)
	return m
}

// MarshalJSON writes the fields of the message's role.
func (m Message) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// AppendJSON appends the message's JSON (the fields of its role) to dst.
func (m Message) AppendJSON(dst []byte) []byte {
	w := objWriter{buf: dst}
	w.str("role", m.Role)
	switch m.Role {
	case RoleAssistant:
		blocks := m.Content
		blocks.AsString = false
		w.appender("content", blocks)
		w.str("api", m.API)
		w.str("provider", m.Provider)
		w.str("model", m.Model)
		w.optStr("responseId", m.ResponseID)
		w.key("usage")
		w.buf = AppendUsage(w.buf, m.Usage)
		w.str("stopReason", m.StopReason)
		w.optStr("errorMessage", m.ErrorMessage)
		if m.EndTurn != nil {
			w.boolean("endTurn", *m.EndTurn)
		}
	case RoleToolResult:
		w.str("toolCallId", m.ToolCallID)
		w.str("toolName", m.ToolName)
		w.appender("content", m.Content)
		if m.Details != nil {
			w.value("details", m.Details)
		}
		w.boolean("isError", m.IsError)
	case RoleBashExecution:
		w.str("command", m.Command)
		w.str("output", m.Output)
		if m.ExitCode != nil {
			w.int("exitCode", int64(*m.ExitCode))
		}
		w.boolean("cancelled", m.Cancelled)
		w.boolean("truncated", m.Truncated)
		w.optStr("fullOutputPath", m.FullOutputPath)
		if m.ExcludeFromContext {
			w.boolean("excludeFromContext", true)
		}
	case RoleCustom:
		w.str("customType", m.CustomType)
		w.appender("content", m.Content)
		w.boolean("display", m.Display)
		if m.Details != nil {
			w.value("details", m.Details)
		}
		if m.ExcludeFromContext {
			w.boolean("excludeFromContext", true)
		}
	case RoleBranchSummary:
		w.str("summary", m.Summary)
		w.str("fromId", m.FromID)
	default: // user and anything unknown
		w.appender("content", m.Content)
	}
	w.extra(m.Extra)
	w.int("timestamp", m.Timestamp)
	return w.close()
}

var knownMessageKeys = map[string]bool{
	"role": true, "content": true, "api": true, "provider": true, "model": true,
	"responseId": true, "usage": true, "stopReason": true, "errorMessage": true,
	"endTurn": true, "toolCallId": true, "toolName": true, "details": true,
	"isError": true, "command": true, "output": true, "exitCode": true,
	"cancelled": true, "truncated": true, "fullOutputPath": true,
	"customType": true, "display": true, "excludeFromContext": true,
	"summary": true, "fromId": true, "timestamp": true,
}

// UnmarshalJSON reads any message shape; unknown keys go to Extra.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role               string  `json:"role"`
		Content            Content `json:"content"`
		API                string  `json:"api"`
		Provider           string  `json:"provider"`
		Model              string  `json:"model"`
		ResponseID         string  `json:"responseId"`
		Usage              Usage   `json:"usage"`
		StopReason         string  `json:"stopReason"`
		ErrorMessage       string  `json:"errorMessage"`
		EndTurn            *bool   `json:"endTurn"`
		ToolCallID         string  `json:"toolCallId"`
		ToolName           string  `json:"toolName"`
		Details            any     `json:"details"`
		IsError            bool    `json:"isError"`
		Command            string  `json:"command"`
		Output             string  `json:"output"`
		ExitCode           *int    `json:"exitCode"`
		Cancelled          bool    `json:"cancelled"`
		Truncated          bool    `json:"truncated"`
		FullOutputPath     *string `json:"fullOutputPath"`
		CustomType         string  `json:"customType"`
		Display            bool    `json:"display"`
		ExcludeFromContext bool    `json:"excludeFromContext"`
		Summary            string  `json:"summary"`
		FromID             string  `json:"fromId"`
		Timestamp          any     `json:"timestamp"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = Message{
		Role: raw.Role, Content: raw.Content, API: raw.API, Provider: raw.Provider,
		Model: raw.Model, ResponseID: raw.ResponseID, Usage: raw.Usage,
		StopReason: raw.StopReason, ErrorMessage: raw.ErrorMessage, EndTurn: raw.EndTurn,
		ToolCallID: raw.ToolCallID, ToolName: raw.ToolName, Details: raw.Details,
		IsError: raw.IsError, Command: raw.Command, Output: raw.Output,
		ExitCode: raw.ExitCode, Cancelled: raw.Cancelled, Truncated: raw.Truncated,
		CustomType: raw.CustomType, Display: raw.Display,
		ExcludeFromContext: raw.ExcludeFromContext, Summary: raw.Summary, FromID: raw.FromID,
		Timestamp: parseTimestamp(raw.Timestamp),
	}
	if raw.FullOutputPath != nil {
		m.FullOutputPath = *raw.FullOutputPath
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err == nil {
		for k, v := range all {
			if !knownMessageKeys[k] {
				if m.Extra == nil {
					m.Extra = map[string]json.RawMessage{}
				}
				m.Extra[k] = v
			}
		}
	}
	return nil
}

func parseTimestamp(v any) int64 {
	switch t := v.(type) {
	case float64:
		return int64(t)
	case string:
		if ts, err := time.Parse(time.RFC3339Nano, t); err == nil {
			return ts.UnixMilli()
		}
	}
	return 0
}
