package llm

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/atomic-go/atomic/internal/jsonscan"
	"github.com/atomic-go/atomic/internal/jsonw"
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
	// RoleCompactionSummary is pi's summary of compacted history (built
	// from a pi compaction entry; Summary holds the text).
	RoleCompactionSummary = "compactionSummary"
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
	// Refused is set on an error message whose provider refused to
	// answer (see APIError.Refused). It is not part of the JSON: pi's
	// stop reasons have no refusal, the session keeps the error text.
	Refused bool

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
	w := jsonw.Append(dst)
	w.Str("role", m.Role)
	switch m.Role {
	case RoleAssistant:
		blocks := m.Content
		blocks.AsString = false
		w.Appender("content", blocks)
		w.Str("api", m.API)
		w.Str("provider", m.Provider)
		w.Str("model", m.Model)
		w.OptStr("responseId", m.ResponseID)
		w.Field("usage", func(b []byte) []byte { return AppendUsage(b, m.Usage) })
		w.Str("stopReason", m.StopReason)
		w.OptStr("errorMessage", m.ErrorMessage)
		if m.EndTurn != nil {
			w.Bool("endTurn", *m.EndTurn)
		}
	case RoleToolResult:
		w.Str("toolCallId", m.ToolCallID)
		w.Str("toolName", m.ToolName)
		w.Appender("content", m.Content)
		if m.Details != nil {
			w.Val("details", m.Details)
		}
		w.Bool("isError", m.IsError)
	case RoleBashExecution:
		w.Str("command", m.Command)
		w.Str("output", m.Output)
		if m.ExitCode != nil {
			w.Int("exitCode", int64(*m.ExitCode))
		}
		w.Bool("cancelled", m.Cancelled)
		w.Bool("truncated", m.Truncated)
		w.OptStr("fullOutputPath", m.FullOutputPath)
		if m.ExcludeFromContext {
			w.Bool("excludeFromContext", true)
		}
	case RoleCustom:
		// pi leaves customType out of a message sent without one.
		w.OptStr("customType", m.CustomType)
		w.Appender("content", m.Content)
		w.Bool("display", m.Display)
		if m.Details != nil {
			w.Val("details", m.Details)
		}
		if m.ExcludeFromContext {
			w.Bool("excludeFromContext", true)
		}
	case RoleBranchSummary:
		w.Str("summary", m.Summary)
		w.Str("fromId", m.FromID)
	case RoleCompactionSummary:
		w.Str("summary", m.Summary)
	default: // user and anything unknown
		w.Appender("content", m.Content)
	}
	w.Extra(m.Extra)
	w.Int("timestamp", m.Timestamp)
	return w.Close()
}

// UnmarshalJSON reads any message shape; unknown keys go to Extra. It walks
// the object once with jsonscan instead of decoding it several times, as
// session files hold many large messages.
func (m *Message) UnmarshalJSON(data []byte) error {
	*m = Message{}
	if jsonscan.IsNull(data) {
		return nil
	}
	var err error
	str := func(v []byte, k string, dst *string) { *dst, err = jsonscan.String(v, k) }
	boolean := func(v []byte, k string, dst *bool) { *dst, err = jsonscan.Bool(v, k) }
	ok := jsonscan.Fields(data, func(key, v []byte) bool {
		switch k := string(key); k {
		case "role":
			str(v, k, &m.Role)
		case "content":
			err = m.Content.UnmarshalJSON(v)
		case "api":
			str(v, k, &m.API)
		case "provider":
			str(v, k, &m.Provider)
		case "model":
			str(v, k, &m.Model)
		case "responseId":
			str(v, k, &m.ResponseID)
		case "usage":
			m.Usage = Usage{}
			err = jsonscan.Any(v, &m.Usage)
		case "stopReason":
			str(v, k, &m.StopReason)
		case "errorMessage":
			str(v, k, &m.ErrorMessage)
		case "endTurn":
			m.EndTurn, err = jsonscan.BoolPtr(v, k)
		case "toolCallId":
			str(v, k, &m.ToolCallID)
		case "toolName":
			str(v, k, &m.ToolName)
		case "details":
			m.Details = nil
			err = jsonscan.Any(v, &m.Details)
		case "isError":
			boolean(v, k, &m.IsError)
		case "command":
			str(v, k, &m.Command)
		case "output":
			str(v, k, &m.Output)
		case "exitCode":
			m.ExitCode = nil
			err = jsonscan.Any(v, &m.ExitCode)
		case "cancelled":
			boolean(v, k, &m.Cancelled)
		case "truncated":
			boolean(v, k, &m.Truncated)
		case "fullOutputPath":
			str(v, k, &m.FullOutputPath)
		case "customType":
			str(v, k, &m.CustomType)
		case "display":
			boolean(v, k, &m.Display)
		case "excludeFromContext":
			boolean(v, k, &m.ExcludeFromContext)
		case "summary":
			str(v, k, &m.Summary)
		case "fromId":
			str(v, k, &m.FromID)
		case "timestamp":
			m.Timestamp = jsonscan.Millis(v, parseTimeString)
		default:
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[k] = append(json.RawMessage(nil), v...)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("json: a message must be a JSON object")
	}
	return nil
}

func parseTimeString(s string) int64 {
	if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return ts.UnixMilli()
	}
	return 0
}
