// Package hooks is the hook bus every extension runtime plugs into (gRPC
// plugins, embedded scripts): event names, payload and result types, and
// ordered dispatch with the reference semantics of each event, a deadline
// per call, failure isolation and error reporting.
//
// Payloads and results travel as JSON in the shapes of the reference
// extension API, so that a runtime only needs to move bytes (a plugin gets
// them over gRPC, a script gets them parsed into JS values). Their schema
// is proto/atomic/plugin/v1/events.proto; payloads.gen.go has the Go types
// generated from it (PayloadTypes and ResultTypes name each event's). The
// bus decodes results into those types and composes them.
package hooks

import (
	"encoding/json"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// The event names (SessionStart, ToolCall, ...) are generated from the
// schema with the payload types (payloads.gen.go). VirtualModelRoute asks
// the extension that registered a virtual model where a request goes (its
// route()).

// Kind is how the bus dispatches an event.
type Kind int

// Dispatch kinds.
const (
	// Notify: every subscriber gets the event; results are ignored.
	// Delivery is asynchronous and ordered per subscriber.
	Notify Kind = iota
	// Before: session_before_*; the last truthy result wins and a result
	// with cancel short-circuits.
	Before
	// Chain: the event is transformed handler by handler.
	Chain
	// First: the first truthy result wins.
	First
)

// Kinds maps every known event to its dispatch kind.
var Kinds = map[string]Kind{
	SessionStart: Notify, SessionShutdown: Notify, SessionInfoChanged: Notify,
	SessionBeforeSwitch: Before, SessionBeforeFork: Before, SessionBeforeCompact: Before, SessionBeforeTree: Before,
	SessionCompact: Notify, SessionCompactFailed: Notify, SessionTree: Notify,
	Input: Chain, BeforeAgentStart: Chain, Context: Chain, ContextWithSystem: Chain, ToolCall: Chain, ToolResult: Chain,
	AgentStart: Notify, AgentEnd: Notify, AgentSettled: Notify, AgentBeforeSettle: Chain, TurnStart: Notify, TurnEnd: Chain,
	MessageStart: Notify, MessageUpdate: Notify, MessageEnd: Chain,
	ToolExecutionStart: Notify, ToolExecutionUpdate: Notify, ToolExecutionEnd: Notify,
	ModelSelect: Notify, ThinkingLevelSelect: Notify, UserBash: First,
	ResourcesDiscover: Chain, ProjectTrust: First, UIPromptStart: Notify, UIPromptEnd: Notify, MCPServersChange: Notify,
	// The provider events: headers and payload chained; the response and
	// the stream events awaited (bus.Call), results ignored.
	BeforeProviderHeaders: Chain, BeforeProviderRequest: Chain,
	AfterProviderResponse: Notify, ProviderStreamEvent: Notify,
	VirtualModelRoute: First,
	// The terminal asks the extension with a renderer for a custom
	// message type, and the extension of a tool with renderCall or
	// renderResult, for their lines.
	MessageRender: First, ToolRender: First,
}

// Event is one event on its way to subscribers. Payload is any value that
// marshals to a JSON object (the "type" key is added), or a json.RawMessage
// that is already the complete event object including "type".
type Event struct {
	Name    string
	Payload any
	raw     []byte
	err     error
}

// NewEvent returns an event.
func NewEvent(name string, payload any) *Event { return &Event{Name: name, Payload: payload} }

// JSON returns the event object, encoded once and shared by every
// subscriber.
func (e *Event) JSON() ([]byte, error) {
	if e.raw != nil || e.err != nil {
		return e.raw, e.err
	}
	switch p := e.Payload.(type) {
	case json.RawMessage:
		e.raw = p
		return e.raw, nil
	case nil:
		e.raw = append(jsonw.AppendString([]byte(`{"type":`), e.Name), '}')
		return e.raw, nil
	}
	body, err := json.Marshal(e.Payload)
	if err != nil {
		e.err = err
		return nil, err
	}
	buf := make([]byte, 0, len(body)+len(e.Name)+12)
	buf = append(buf, `{"type":`...)
	buf = jsonw.AppendString(buf, e.Name)
	if len(body) > 2 {
		buf = append(buf, ',')
		buf = append(buf, body[1:]...)
	} else {
		buf = append(buf, '}')
	}
	e.raw = buf
	return buf, nil
}

// Truthy is a result field read as the reference reads it: any truthy
// JavaScript value (true, a non-zero number, a non-empty string, an
// object) counts as true.
type Truthy bool

// UnmarshalJSON implements json.Unmarshaler.
func (t *Truthy) UnmarshalJSON(b []byte) error {
	switch string(b) { // the usual values, without decoding
	case "true":
		*t = true
		return nil
	case "false", "null", "0", `""`:
		*t = false
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = Truthy(truthyValue(v))
	return nil
}

// BeforeResult is the composed result of a session_before_* event: the last
// truthy handler result.
type BeforeResult struct {
	Cancel bool
	// Raw is the winning result object (nil when no handler returned one);
	// callers decode the event's result type (ResultTypes) from it.
	Raw json.RawMessage
}

// Input actions.
const (
	ActionContinue  = "continue"
	ActionTransform = "transform"
	ActionHandled   = "handled"
)

// InputOutcome is the composed result of input.
type InputOutcome struct {
	Action string
	Text   string
	Images []llm.ContentBlock
}

// BeforeAgentStartOutcome is the composed result of before_agent_start.
type BeforeAgentStartOutcome struct {
	// SystemPromptOptions is set when a handler changed the options
	// (ignored when a handler replaced the prompt: SystemPrompt wins).
	SystemPromptOptions json.RawMessage
	// SystemPrompt is set when a handler replaced the system prompt.
	SystemPrompt *string
	// Messages are every injected message, in handler order.
	Messages []CustomMessage
}

// ToolCallDecision is the composed result of tool_call.
type ToolCallDecision struct {
	Block  bool
	Reason string
	// Terminate: the blocked call's result ends the run (when every
	// result of the tool batch does).
	Terminate bool
	// Input is the (possibly modified) arguments to execute with.
	Input map[string]any
	// Modified reports whether a handler replaced the arguments.
	Modified bool
}

// ExtensionError reports a failing extension (the extension_error event
// of the RPC protocol; not an event of the bus).
type ExtensionError struct {
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`
	Error         string `json:"error"`
}
