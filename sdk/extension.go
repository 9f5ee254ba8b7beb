package sdk

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"
)

// HandlerFunc handles one event given as JSON (the reference API's event
// object, with "type"). It returns the result (any JSON-marshalable value,
// or nil for none).
type HandlerFunc func(ctx *Context, event json.RawMessage) (any, error)

// Command is a slash command.
type Command struct {
	// Name without the leading slash.
	Name string
	// Description shown by clients.
	Description string
	// Run executes the command; args is the text after the name.
	Run func(ctx *Context, args string) error
	// Complete, when set, returns completions for the argument text typed
	// so far (nil for none).
	Complete func(ctx *Context, prefix string) ([]Completion, error)
}

// Tool is a tool offered to the model. Parameters is a JSON Schema object;
// the agent validates arguments against it before calling Execute.
type Tool struct {
	Name             string
	Label            string
	Description      string
	Parameters       json.RawMessage
	PromptSnippet    string
	PromptGuidelines []string
	// Exposure is how the model reaches the tool, as pi's: "" or
	// "direct", "model-only", "codemode", "deferred", "hidden".
	Exposure string
	// Inactive: not activated on registration (pi's defaultActive: false).
	Inactive bool
	// ExecutionMode "sequential" runs a batch holding the tool one call at
	// a time.
	ExecutionMode string
	// Namespace and Annotations are pi's objects as JSON (nil: none).
	Namespace, Annotations json.RawMessage
	// Execute runs the tool. update streams partial results to the
	// client. Returning an error makes an error result with its text.
	Execute func(ctx *Context, call ToolInvocation, update func(ToolOutput)) (ToolOutput, error)
}

// ToolInvocation is one call of a tool.
type ToolInvocation struct {
	ToolCallID string
	Args       map[string]any
}

// Flag is a command-line flag of the extension (--name).
type Flag struct {
	Name        string
	Description string
	// Type is "boolean" or "string".
	Type    string
	Default string
}

// Extension is what a plugin registers. Create it with New, register
// handlers, then pass it to Serve.
type Extension struct {
	// Name and Version identify the extension in logs and diagnostics.
	Name, Version string

	order    []string
	handlers map[string][]HandlerFunc
	commands []*Command
	tools    []*Tool
	flags    []*Flag
	provs    []Provider
	keys     []*Shortcut
	timeouts map[string]time.Duration
	connect  []func(Host, ContextInfo)
	served   atomic.Pointer[server] // set by Serve (see Update)
}

// New returns an empty extension.
func New(name, version string) *Extension {
	return &Extension{Name: name, Version: version, handlers: map[string][]HandlerFunc{}, timeouts: map[string]time.Duration{}}
}

// On registers a handler for an event given as raw JSON. Several handlers
// for one event run in registration order with the same composition rules
// the agent applies across extensions.
func (e *Extension) On(event string, fn HandlerFunc) {
	if _, ok := e.handlers[event]; !ok {
		e.order = append(e.order, event)
	}
	e.handlers[event] = append(e.handlers[event], fn)
}

// Handle registers a typed handler: the event is decoded into E and the
// returned R (nil pointer for none) becomes the result.
func Handle[E any, R any](e *Extension, event string, fn func(*Context, *E) (R, error)) {
	e.On(event, func(ctx *Context, raw json.RawMessage) (any, error) {
		ev, err := decode[E](raw)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", event, err)
		}
		r, err := fn(ctx, ev)
		if err != nil {
			return nil, err
		}
		if isNil(r) {
			return nil, nil
		}
		return r, nil
	})
}

// Observe registers a handler for a notification event decoded into E.
func Observe[E any](e *Extension, event string, fn func(*Context, *E) error) {
	Handle(e, event, func(ctx *Context, ev *E) (any, error) { return nil, fn(ctx, ev) })
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// OnToolCall registers a tool_call handler.
func (e *Extension) OnToolCall(fn func(*Context, *ToolCallEvent) (*ToolCallResult, error)) {
	Handle(e, EventToolCall, fn)
}

// OnToolResult registers a tool_result handler.
func (e *Extension) OnToolResult(fn func(*Context, *ToolResultEvent) (*ToolResultPatch, error)) {
	Handle(e, EventToolResult, fn)
}

// OnInput registers an input handler.
func (e *Extension) OnInput(fn func(*Context, *InputEvent) (*InputResult, error)) {
	Handle(e, EventInput, fn)
}

// OnBeforeAgentStart registers a before_agent_start handler.
func (e *Extension) OnBeforeAgentStart(fn func(*Context, *BeforeAgentStartEvent) (*BeforeAgentStartResult, error)) {
	Handle(e, EventBeforeAgentStart, fn)
}

// OnContext registers a context handler.
func (e *Extension) OnContext(fn func(*Context, *ContextEvent) (*ContextResult, error)) {
	Handle(e, EventContext, fn)
}

// OnSessionBeforeSwitch registers a session_before_switch handler.
func (e *Extension) OnSessionBeforeSwitch(fn func(*Context, *SessionBeforeSwitchEvent) (*CancelResult, error)) {
	Handle(e, EventSessionBeforeSwitch, fn)
}

// OnSessionBeforeFork registers a session_before_fork handler.
func (e *Extension) OnSessionBeforeFork(fn func(*Context, *SessionBeforeForkEvent) (*CancelResult, error)) {
	Handle(e, EventSessionBeforeFork, fn)
}

// OnUserBash registers a user_bash handler.
func (e *Extension) OnUserBash(fn func(*Context, *UserBashEvent) (*UserBashResult, error)) {
	Handle(e, EventUserBash, fn)
}

// OnSessionStart registers a session_start handler.
func (e *Extension) OnSessionStart(fn func(*Context, *SessionStartEvent) error) {
	Observe(e, EventSessionStart, fn)
}

// OnSessionShutdown registers a session_shutdown handler.
func (e *Extension) OnSessionShutdown(fn func(*Context, *SessionShutdownEvent) error) {
	Observe(e, EventSessionShutdown, fn)
}

// OnTurnEnd registers a turn_end handler.
func (e *Extension) OnTurnEnd(fn func(*Context, *TurnEndEvent) error) {
	Observe(e, EventTurnEnd, fn)
}

// RegisterCommand adds a slash command.
func (e *Extension) RegisterCommand(c Command) { e.commands = append(e.commands, &c) }

// RegisterTool adds a tool.
func (e *Extension) RegisterTool(t Tool) { e.tools = append(e.tools, &t) }

// Provider is a model provider an extension registers: Config is one
// provider of models.json's form (baseUrl, api, apiKey, headers,
// authHeader, compat, models, modelOverrides), as pi's registerProvider
// takes it. A provider the agent has keeps its models unless Config lists
// models, which then replace them.
type Provider struct {
	Name   string
	Config json.RawMessage // nil: the provider only lists virtual models
	// VirtualModels are virtual models listed under the provider, as the
	// protocol's ProviderSpec.virtual_models_json (their route runs in
	// the extension as the event virtual_model_route).
	VirtualModels json.RawMessage
	// Stream, when set, answers the provider's model requests itself (pi's
	// streamSimple): request is {model, context, options}, update takes
	// each stream event as a ToolOutput's Details, and the returned
	// output's Details is the final assistant message (the protocol's
	// ExecuteToolRequest.provider).
	Stream func(ctx *Context, request map[string]any, update func(ToolOutput)) (ToolOutput, error)
}

// RegisterProvider adds a model provider (or changes one the agent has);
// its models are in get_available_models once the extension has loaded.
func (e *Extension) RegisterProvider(p Provider) { e.provs = append(e.provs, p) }

// Shortcut is a key the interactive terminal binds to a handler (pi's
// registerShortcut). Key is in pi's key syntax ("ctrl+shift+k").
type Shortcut struct {
	Key, Description string
	// Run is called when the key is pressed.
	Run func(ctx *Context) error
}

// RegisterShortcut binds a key in the interactive terminal (the other
// modes never run it).
func (e *Extension) RegisterShortcut(s Shortcut) { e.keys = append(e.keys, &s) }

// RegisterFlag adds a command-line flag; Context.Flag reads its value.
func (e *Extension) RegisterFlag(f Flag) {
	if f.Type == "" {
		f.Type = "boolean"
	}
	e.flags = append(e.flags, &f)
}

// OnConnect registers a function called when the agent has connected
// (before any handler runs), with the host (for work outside handlers,
// such as background goroutines) and the handler context at load time
// (flag values included).
func (e *Extension) OnConnect(fn func(host Host, info ContextInfo)) {
	e.connect = append(e.connect, fn)
}

// SetTimeout asks the agent for a deadline for one event (the user's
// settings take precedence).
func (e *Extension) SetTimeout(event string, d time.Duration) { e.timeouts[event] = d }

// Events lists the events with handlers, in registration order.
func (e *Extension) Events() []string { return append([]string(nil), e.order...) }

func (e *Extension) command(name string) *Command {
	for _, c := range e.commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (e *Extension) tool(name string) *Tool {
	for _, t := range e.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}
