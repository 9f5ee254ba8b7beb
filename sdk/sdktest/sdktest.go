// Package sdktest runs an sdk.Extension in process for unit tests: no
// agent, no child process, no gRPC. A Harness delivers events, runs
// commands and tools, and a FakeHost records every callback and answers
// dialogs from a script.
//
//	h := sdktest.New(ext)
//	h.Host.Confirm = func(title, msg string) bool { return false }
//	res, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "rm -rf /"}})
package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-go/atomic/sdk"
)

// Harness drives one extension.
type Harness struct {
	// Ext is the extension under test.
	Ext *sdk.Extension
	// Host receives the extension's callbacks.
	Host *FakeHost
	// Info is the handler context snapshot passed with every call; change
	// it to simulate another mode or working directory.
	Info sdk.ContextInfo
	// Timeout bounds every call (default 5 s).
	Timeout time.Duration
}

// New returns a harness with a FakeHost in RPC mode with a UI.
func New(ext *sdk.Extension) *Harness {
	flags := map[string]string{}
	for _, f := range ext.Describe().Flags {
		flags[f.Name] = f.Default
	}
	return &Harness{
		Ext: ext, Host: NewFakeHost(),
		Info:    sdk.ContextInfo{Cwd: ".", Mode: "rpc", HasUI: true, SessionID: "test-session", ThinkingLevel: "off", IsIdle: true, ProjectTrusted: true, Flags: flags},
		Timeout: 5 * time.Second,
	}
}

// SetFlag sets a flag value as if given on the command line.
func (h *Harness) SetFlag(name, value string) {
	if h.Info.Flags == nil {
		h.Info.Flags = map[string]string{}
	}
	h.Info.Flags[name] = value
}

func (h *Harness) ctx() (*sdk.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(context.Background(), h.Timeout)
	return sdk.NewContext(c, h.Host, h.Info), cancel
}

// Event delivers an event (payload without "type", which is added) to
// every handler and returns the result as JSON (nil for none): one
// handler's result; several handlers' results are composed only by the
// agent (use EventAt for each).
func (h *Harness) Event(name string, payload any) (json.RawMessage, error) {
	raw, err := eventJSON(name, payload)
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.ctx()
	defer cancel()
	return h.Ext.HandleEvent(ctx, name, raw)
}

// EventAt runs handler i (registration order) of an event alone, as the
// agent does when it composes several handlers' results itself.
func (h *Harness) EventAt(name string, i int, payload any) (json.RawMessage, error) {
	raw, err := eventJSON(name, payload)
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.ctx()
	defer cancel()
	return h.Ext.HandleEventAt(ctx, name, i, raw)
}

func eventJSON(name string, payload any) (json.RawMessage, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		m = map[string]any{}
	}
	m["type"] = name
	return json.Marshal(m)
}

func decodeInto[T any](raw json.RawMessage, err error) (*T, error) {
	if err != nil || len(raw) == 0 || string(raw) == "null" {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("result is not a %T: %w", *v, err)
	}
	return v, nil
}

// ToolCall delivers tool_call and decodes the result (nil for none).
func (h *Harness) ToolCall(ev sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
	return decodeInto[sdk.ToolCallResult](h.Event(sdk.EventToolCall, ev))
}

// ToolResult delivers tool_result and decodes the patch (nil for none).
func (h *Harness) ToolResult(ev sdk.ToolResultEvent) (*sdk.ToolResultPatch, error) {
	return decodeInto[sdk.ToolResultPatch](h.Event(sdk.EventToolResult, ev))
}

// BeforeFork delivers session_before_fork and decodes the result.
func (h *Harness) BeforeFork(ev sdk.SessionBeforeForkEvent) (*sdk.CancelResult, error) {
	return decodeInto[sdk.CancelResult](h.Event(sdk.EventSessionBeforeFork, ev))
}

// BeforeSwitch delivers session_before_switch and decodes the result.
func (h *Harness) BeforeSwitch(ev sdk.SessionBeforeSwitchEvent) (*sdk.CancelResult, error) {
	return decodeInto[sdk.CancelResult](h.Event(sdk.EventSessionBeforeSwitch, ev))
}

// RunCommand runs a registered command.
func (h *Harness) RunCommand(name, args string) error {
	ctx, cancel := h.ctx()
	defer cancel()
	return h.Ext.RunCommand(ctx, name, args)
}

// Complete asks a command for completions.
func (h *Harness) Complete(name, prefix string) ([]sdk.Completion, error) {
	ctx, cancel := h.ctx()
	defer cancel()
	items, _, err := h.Ext.Complete(ctx, name, prefix)
	return items, err
}

// ExecuteTool runs a registered tool and returns its result and every
// partial update it streamed.
func (h *Harness) ExecuteTool(name string, args map[string]any) (sdk.ToolOutput, []sdk.ToolOutput, error) {
	ctx, cancel := h.ctx()
	defer cancel()
	var mu sync.Mutex
	var updates []sdk.ToolOutput
	out, err := h.Ext.ExecuteTool(ctx, name, sdk.ToolInvocation{ToolCallID: "call-1", Args: args}, func(o sdk.ToolOutput) {
		mu.Lock()
		updates = append(updates, o)
		mu.Unlock()
	})
	return out, updates, err
}
