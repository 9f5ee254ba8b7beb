package rpcwire

import "encoding/json"

// The event records. A client decodes a record into the type matching its
// "type" (sdk/rpcclient: Event.Decode).

// AgentEnd is agent_end: the run finished.
type AgentEnd struct {
	Type     string    `json:"type"`
	Messages []Message `json:"messages"`
	// WillRetry is true when an automatic retry or overflow recovery
	// follows before agent_settled.
	WillRetry bool `json:"willRetry"`
}

// AgentSettled is agent_settled: the agent will not continue on its own
// (no retry, recovery or queued message follows).
type AgentSettled struct {
	Type string `json:"type"`
	// Aborted is true when the run ended because it was aborted.
	Aborted bool `json:"aborted"`
}

// TurnEnd is turn_end: one assistant message and its tool results.
type TurnEnd struct {
	Type        string    `json:"type"`
	Message     Message   `json:"message"`
	ToolResults []Message `json:"toolResults"`
}

// MessageEvent is message_start or message_end.
type MessageEvent struct {
	Type    string  `json:"type"`
	Message Message `json:"message"`
}

// MessageUpdate is message_update: one streaming delta of an assistant
// message.
type MessageUpdate struct {
	Type                  string                `json:"type"`
	AssistantMessageEvent AssistantMessageEvent `json:"assistantMessageEvent"`
	Usage                 *Usage                `json:"usage,omitempty"`
}

// AssistantMessageEvent is the delta inside a message_update: text_start,
// text_delta, text_end, thinking_*, toolcall_start, toolcall_delta,
// toolcall_end.
type AssistantMessageEvent struct {
	Type         string        `json:"type"`
	ContentIndex int           `json:"contentIndex"`
	Delta        string        `json:"delta,omitempty"`
	Content      string        `json:"content,omitempty"`
	ToolCall     *ContentBlock `json:"toolCall,omitempty"`
	// ID and ToolName name the call of a toolcall_start.
	ID       string `json:"id,omitempty"`
	ToolName string `json:"toolName,omitempty"`
}

// ToolExecution is tool_execution_start, tool_execution_update or
// tool_execution_end.
type ToolExecution struct {
	Type          string          `json:"type"`
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args,omitempty"`
	PartialResult *ToolResult     `json:"partialResult,omitempty"`
	Result        *ToolResult     `json:"result,omitempty"`
	IsError       bool            `json:"isError,omitempty"`
	// DurationMs (tool_execution_end) is how long the tool ran; nil when
	// it did not run (blocked, unknown, invalid arguments).
	DurationMs *int64 `json:"durationMs,omitempty"`
}

// ToolResult is the result (or partial result) of a tool execution.
type ToolResult struct {
	Content Content         `json:"content"`
	Details json.RawMessage `json:"details,omitempty"`
}

// BashUpdate is bash_execution_update: output of a direct bash command,
// carrying that command's request id.
type BashUpdate struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	Channel string `json:"channel"` // "stdout" or "stderr"
	Delta   string `json:"delta"`
}

// QueueUpdate is queue_update: the pending steering and follow-up
// messages.
type QueueUpdate struct {
	Type     string   `json:"type"`
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// CompactionStart is compaction_start.
type CompactionStart struct {
	Type   string `json:"type"`
	Reason string `json:"reason"` // manual, threshold or overflow
}

// CompactionEnd is compaction_end.
type CompactionEnd struct {
	Type               string            `json:"type"`
	Reason             string            `json:"reason"`
	Result             *CompactionResult `json:"result"`
	Aborted            bool              `json:"aborted"`
	WillRetry          bool              `json:"willRetry"`
	ErrorMessage       string            `json:"errorMessage,omitempty"`
	UnresolvedOverflow bool              `json:"unresolvedOverflow,omitempty"`
}

// AutoRetryStart is auto_retry_start.
type AutoRetryStart struct {
	Type         string `json:"type"`
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// AutoRetryEnd is auto_retry_end.
type AutoRetryEnd struct {
	Type       string `json:"type"`
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}

// ExtensionError is extension_error: an extension failed; the turn went
// on.
type ExtensionError struct {
	Type          string `json:"type"`
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`
	Error         string `json:"error"`
}
