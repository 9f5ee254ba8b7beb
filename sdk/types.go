package sdk

import "encoding/json"

// Event names (the reference extension API's).
const (
	EventSessionStart         = "session_start"
	EventSessionShutdown      = "session_shutdown"
	EventSessionBeforeSwitch  = "session_before_switch"
	EventSessionBeforeFork    = "session_before_fork"
	EventSessionBeforeCompact = "session_before_compact"
	EventSessionBeforeTree    = "session_before_tree"
	EventInput                = "input"
	EventBeforeAgentStart     = "before_agent_start"
	EventAgentStart           = "agent_start"
	EventAgentEnd             = "agent_end"
	EventTurnStart            = "turn_start"
	EventTurnEnd              = "turn_end"
	EventMessageStart         = "message_start"
	EventMessageUpdate        = "message_update"
	EventMessageEnd           = "message_end"
	EventContext              = "context"
	EventContextWithSystem    = "context_with_system"
	EventToolExecutionStart   = "tool_execution_start"
	EventToolCall             = "tool_call"
	EventToolExecutionUpdate  = "tool_execution_update"
	EventToolResult           = "tool_result"
	EventToolExecutionEnd     = "tool_execution_end"
	EventModelSelect          = "model_select"
	EventUserBash             = "user_bash"
	EventSessionCompact       = "session_compact"
	EventSessionCompactFailed = "session_compact_failed"
	EventSessionTree          = "session_tree"
	EventAgentSettled         = "agent_settled"
	EventAgentBeforeSettle    = "agent_before_settle"
	EventUIPromptStart        = "ui_prompt_start"
	EventUIPromptEnd          = "ui_prompt_end"
	EventMCPServersChange     = "mcp_servers_change"
	// The provider events. A Go handler of before_provider_headers
	// returns {"headers": {...}} (the whole set, null deletes), one of
	// before_provider_request {"payload": ...} to replace the payload.
	EventBeforeProviderHeaders = "before_provider_headers"
	EventBeforeProviderRequest = "before_provider_request"
	EventAfterProviderResponse = "after_provider_response"
	EventProviderStreamEvent   = "provider_stream_event"
)

// Block is one content block: text {type, text} or image {type, data,
// mimeType}. Other block types (thinking, toolCall) keep their fields in
// Raw when read.
type Block struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: "text", Text: s} }

// Message is an agent message as JSON (user, assistant, toolResult,
// custom, bashExecution...). Its shape is the protocol's AgentMessage.
type Message map[string]any

// Role returns the message's role.
func (m Message) Role() string { s, _ := m["role"].(string); return s }

// Text joins the text of the message's content.
func (m Message) Text() string {
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		out := ""
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				s, _ := bm["text"].(string)
				out += s
			}
		}
		return out
	}
	return ""
}

// SessionStartEvent is session_start.
type SessionStartEvent struct {
	// Reason is startup, reload, new, resume or fork.
	Reason              string `json:"reason"`
	PreviousSessionFile string `json:"previousSessionFile,omitempty"`
}

// SessionShutdownEvent is session_shutdown.
type SessionShutdownEvent struct {
	// Reason is quit, reload, new, resume or fork.
	Reason            string `json:"reason"`
	TargetSessionFile string `json:"targetSessionFile,omitempty"`
}

// SessionBeforeSwitchEvent is session_before_switch.
type SessionBeforeSwitchEvent struct {
	// Reason is new or resume.
	Reason            string `json:"reason"`
	TargetSessionFile string `json:"targetSessionFile,omitempty"`
}

// SessionBeforeForkEvent is session_before_fork.
type SessionBeforeForkEvent struct {
	EntryID string `json:"entryId"`
	// Position is "before" (fork) or "at" (clone).
	Position string `json:"position"`
}

// CancelResult is the result of the session_before_* events.
type CancelResult struct {
	Cancel                  bool `json:"cancel,omitempty"`
	SkipConversationRestore bool `json:"skipConversationRestore,omitempty"`
}

// InputEvent is input: a prompt before expansion.
type InputEvent struct {
	Text   string  `json:"text"`
	Images []Block `json:"images,omitempty"`
	// Source is rpc, interactive or extension.
	Source            string `json:"source"`
	StreamingBehavior string `json:"streamingBehavior,omitempty"`
}

// InputResult transforms or handles a prompt. Action is "continue",
// "transform" (Text and Images replace the prompt) or "handled" (the
// prompt is consumed).
type InputResult struct {
	Action string  `json:"action"`
	Text   string  `json:"text,omitempty"`
	Images []Block `json:"images,omitempty"`
}

// BeforeAgentStartEvent is before_agent_start.
type BeforeAgentStartEvent struct {
	Prompt       string  `json:"prompt"`
	Images       []Block `json:"images,omitempty"`
	SystemPrompt string  `json:"systemPrompt"`
}

// CustomMessage is a message an extension injects (role "custom").
// Content is a string or a []Block.
type CustomMessage struct {
	CustomType string `json:"customType"`
	Content    any    `json:"content"`
	Display    bool   `json:"display"`
	Details    any    `json:"details,omitempty"`
}

// BeforeAgentStartResult may replace the system prompt for this prompt and
// inject a message after the user's.
type BeforeAgentStartResult struct {
	Message      *CustomMessage `json:"message,omitempty"`
	SystemPrompt *string        `json:"systemPrompt,omitempty"`
}

// ContextEvent is context: the messages about to be sent to the model.
type ContextEvent struct {
	Messages []Message `json:"messages"`
}

// ContextResult replaces the messages for this one model call.
type ContextResult struct {
	Messages []Message `json:"messages,omitempty"`
}

// ToolCallEvent is tool_call: a validated tool call about to run.
type ToolCallEvent struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Input      map[string]any `json:"input"`
}

// StringInput returns a string argument ("" when absent).
func (e *ToolCallEvent) StringInput(key string) string {
	s, _ := e.Input[key].(string)
	return s
}

// ToolCallResult blocks the call (Reason becomes the tool result the model
// sees) or replaces its arguments (Input).
type ToolCallResult struct {
	Block  bool           `json:"block,omitempty"`
	Reason string         `json:"reason,omitempty"`
	Input  map[string]any `json:"input,omitempty"`
}

// ToolResultEvent is tool_result: a tool's result before the model sees
// it.
type ToolResultEvent struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Input      map[string]any `json:"input"`
	Content    []Block        `json:"content"`
	Details    any            `json:"details,omitempty"`
	IsError    bool           `json:"isError"`
}

// ToolResultPatch replaces the fields that are set.
type ToolResultPatch struct {
	Content []Block `json:"content,omitempty"`
	Details any     `json:"details,omitempty"`
	IsError *bool   `json:"isError,omitempty"`
}

// UserBashEvent is user_bash: a shell command the user ran directly.
type UserBashEvent struct {
	Command            string `json:"command"`
	ExcludeFromContext bool   `json:"excludeFromContext"`
	Cwd                string `json:"cwd"`
}

// BashResult is the outcome of a shell command.
type BashResult struct {
	Output    string `json:"output"`
	ExitCode  *int   `json:"exitCode,omitempty"`
	Cancelled bool   `json:"cancelled"`
	Truncated bool   `json:"truncated"`
}

// UserBashResult answers a user_bash event in place of running it.
type UserBashResult struct {
	Result *BashResult `json:"result,omitempty"`
}

// TurnStartEvent is turn_start.
type TurnStartEvent struct {
	TurnIndex int   `json:"turnIndex"`
	Timestamp int64 `json:"timestamp"`
}

// TurnEndEvent is turn_end.
type TurnEndEvent struct {
	TurnIndex   int       `json:"turnIndex"`
	Message     Message   `json:"message"`
	ToolResults []Message `json:"toolResults"`
}

// AgentEndEvent is agent_end: the messages the run created.
type AgentEndEvent struct {
	Messages []Message `json:"messages"`
}

// MessageEvent is message_start and message_end.
type MessageEvent struct {
	Message Message `json:"message"`
}

// ToolExecutionEvent is tool_execution_start, _update and _end.
type ToolExecutionEvent struct {
	ToolCallID    string         `json:"toolCallId"`
	ToolName      string         `json:"toolName"`
	Args          map[string]any `json:"args,omitempty"`
	PartialResult *ToolOutput    `json:"partialResult,omitempty"`
	Result        *ToolOutput    `json:"result,omitempty"`
	IsError       bool           `json:"isError,omitempty"`
}

// ModelSelectEvent is model_select.
type ModelSelectEvent struct {
	Model         Model  `json:"model"`
	PreviousModel *Model `json:"previousModel,omitempty"`
	Source        string `json:"source"`
}

// Model is the protocol's Model object (the fields most extensions need;
// the rest stay in the JSON).
type Model struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	ContextWindow int      `json:"contextWindow"`
	MaxTokens     int      `json:"maxTokens"`
}

// ToolOutput is a tool's (partial) result.
type ToolOutput struct {
	Content []Block `json:"content"`
	Details any     `json:"details,omitempty"`
	// Terminate asks the agent to end the run after the current batch of
	// tool calls (when every result of the batch asks so).
	Terminate bool `json:"terminate,omitempty"`
}

// TextOutput returns a result with one text block.
func TextOutput(s string) ToolOutput { return ToolOutput{Content: []Block{TextBlock(s)}} }

// Completion is one argument completion of a command.
type Completion struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// raw decodes JSON into a fresh T.
func decode[T any](raw json.RawMessage) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}
