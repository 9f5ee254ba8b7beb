// Package events defines the typed events the runtime emits. Each event
// knows its protocol "type"; Encode turns any event into one JSON record.
package events

import (
	"encoding/json"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// Event is anything the runtime emits to its listeners.
type Event interface {
	EventType() string
}

// Sink receives events.
type Sink func(Event)

// Encode returns the JSON record of an event, with "type" first.
func Encode(ev Event) ([]byte, error) {
	return AppendEncode(nil, ev)
}

// AppendEncode appends the JSON record of an event to dst.
func AppendEncode(dst []byte, ev Event) ([]byte, error) {
	if a, ok := ev.(jsonw.Appender); ok {
		return a.AppendJSON(dst), nil
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"type":`...)
	dst = jsonw.AppendString(dst, ev.EventType())
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:]...)
	} else {
		dst = append(dst, '}')
	}
	return dst, nil
}

// Raw is an event whose fields are given as a map (used for records that
// extensions and other layers build dynamically).
type Raw struct {
	Type   string
	Fields map[string]any
}

// EventType implements Event.
func (r Raw) EventType() string { return r.Type }

// MarshalJSON writes the fields.
func (r Raw) MarshalJSON() ([]byte, error) {
	if r.Fields == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(r.Fields)
}

// AgentStart is emitted when a run begins.
type AgentStart struct{}

// AgentEnd is emitted when a run ends, with every message it created.
type AgentEnd struct {
	Messages []llm.Message `json:"messages"`
	// WillRetry is true when an automatic retry or overflow recovery
	// follows (another agent_start … agent_end before agent_settled).
	WillRetry bool `json:"willRetry"`
	// TurnLimitReached is true when the run stopped because the model
	// made the settings' maxTurnRequests requests and wanted another.
	TurnLimitReached bool `json:"turnLimitReached,omitempty"`
}

// AgentSettled is emitted when a prompt's whole run, including retries and
// queued continuations, is over.
type AgentSettled struct {
	// Aborted is true when the run ended because it was aborted.
	Aborted bool `json:"aborted"`
}

// TurnStart is emitted when a turn begins.
type TurnStart struct{}

// TurnEnd is emitted when a turn ends.
type TurnEnd struct {
	Message     llm.Message   `json:"message"`
	ToolResults []llm.Message `json:"toolResults"`
}

// MessageStart is emitted when a message begins.
type MessageStart struct {
	Message llm.Message `json:"message"`
}

// MessageEnd is emitted when a message is complete.
type MessageEnd struct {
	Message llm.Message `json:"message"`
}

// MessageUpdate carries one streamed delta and the cumulative usage. It
// never carries the message itself.
type MessageUpdate struct {
	Usage   llm.Usage
	Event   llm.AssistantEvent
	EndTurn *bool
}

// AppendJSON implements Appender.
func (m MessageUpdate) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"message_update","usage":`...)
	dst = llm.AppendUsage(dst, m.Usage)
	if m.EndTurn != nil {
		if *m.EndTurn {
			dst = append(dst, `,"endTurn":true`...)
		} else {
			dst = append(dst, `,"endTurn":false`...)
		}
	}
	dst = append(dst, `,"assistantMessageEvent":`...)
	dst = m.Event.AppendJSON(dst)
	return append(dst, '}')
}

// MarshalJSON implements json.Marshaler (for callers that marshal directly).
func (m MessageUpdate) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// ToolExecutionStart is emitted when a tool call begins.
type ToolExecutionStart struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Args       map[string]any `json:"args"`
	// ParentToolCallID is the calling tool's id for a call a tool made
	// (ctx.executeTool); "" for the model's calls.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
}

// ToolExecutionUpdate carries a tool's accumulated partial result.
type ToolExecutionUpdate struct {
	ToolCallID    string         `json:"toolCallId"`
	ToolName      string         `json:"toolName"`
	Args          map[string]any `json:"args"`
	PartialResult llm.ToolResult `json:"partialResult"`
	// ParentToolCallID: see ToolExecutionStart.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
}

// ToolExecutionEnd is emitted when a tool call completes.
type ToolExecutionEnd struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Result     llm.ToolResult `json:"result"`
	IsError    bool           `json:"isError"`
	// DurationMs is how long the tool's Execute took (monotonic clock,
	// rounded to milliseconds); nil when the tool did not run.
	DurationMs *int64 `json:"durationMs,omitempty"`
	// ParentToolCallID: see ToolExecutionStart.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
}

// QueueUpdate reports the pending steering and follow-up texts.
type QueueUpdate struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// ExtensionError reports a failing extension.
type ExtensionError struct {
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`
	Error         string `json:"error"`
}

// BashExecutionUpdate is one chunk of a direct bash command's output. ID is
// the raw JSON id of the request (absent when it had none).
type BashExecutionUpdate struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Channel string          `json:"channel"`
	Delta   string          `json:"delta"`
}

// AutoRetryStart is emitted before waiting to retry a transient error.
type AutoRetryStart struct {
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// AutoRetryEnd is emitted when a retry sequence ends.
type AutoRetryEnd struct {
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}

// SessionInfoChanged reports a new session name (absent when cleared).
type SessionInfoChanged struct {
	Name string `json:"name,omitempty"`
}

// ModelChanged reports a model change.
type ModelChanged struct {
	Model         llm.Model  `json:"model"`
	PreviousModel *llm.Model `json:"previousModel,omitempty"`
	Source        string     `json:"source"`
}

// ThinkingLevelChanged reports a thinking level change.
type ThinkingLevelChanged struct {
	Level string `json:"level"`
}

// EventType implementations.
func (AgentStart) EventType() string           { return "agent_start" }
func (AgentEnd) EventType() string             { return "agent_end" }
func (AgentSettled) EventType() string         { return "agent_settled" }
func (TurnStart) EventType() string            { return "turn_start" }
func (TurnEnd) EventType() string              { return "turn_end" }
func (MessageStart) EventType() string         { return "message_start" }
func (MessageEnd) EventType() string           { return "message_end" }
func (MessageUpdate) EventType() string        { return "message_update" }
func (ToolExecutionStart) EventType() string   { return "tool_execution_start" }
func (ToolExecutionUpdate) EventType() string  { return "tool_execution_update" }
func (ToolExecutionEnd) EventType() string     { return "tool_execution_end" }
func (QueueUpdate) EventType() string          { return "queue_update" }
func (ExtensionError) EventType() string       { return "extension_error" }
func (BashExecutionUpdate) EventType() string  { return "bash_execution_update" }
func (AutoRetryStart) EventType() string       { return "auto_retry_start" }
func (AutoRetryEnd) EventType() string         { return "auto_retry_end" }
func (SessionInfoChanged) EventType() string   { return "session_info_changed" }
func (ModelChanged) EventType() string         { return "model_changed" }
func (ThinkingLevelChanged) EventType() string { return "thinking_level_changed" }
