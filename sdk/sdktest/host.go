package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/sdk"
)

// FakeHost is an in-memory agent: it records the extension's callbacks
// and answers dialogs with the functions set on it (defaults: confirm
// false, other dialogs cancelled).
type FakeHost struct {
	mu sync.Mutex

	// Confirm answers confirm dialogs.
	Confirm func(title, message string) bool
	// Select answers select dialogs ("" cancels).
	Select func(title string, options []string) string
	// Input answers input and editor dialogs ("" cancels).
	Input func(title string) string
	// ExecFunc runs Exec calls; nil runs the real program.
	ExecFunc func(command string, args []string) (*sdk.ExecResult, error)

	// Recorded calls.
	Messages     []sdk.CustomMessage
	UserMessages []any
	Entries      []Entry
	UIRequests   []UIRequest
	Name         string
	Labels       map[string]string
	ActiveTools  []string
	Aborted      int
	ModelValue   *sdk.Model
	Thinking     string
	Compactions  int
	// MCPServers holds the servers registered with RegisterMCPServer.
	MCPServers map[string]json.RawMessage
}

// Entry is a recorded custom entry.
type Entry struct {
	ID, CustomType string
	Data           any
}

// UIRequest is a recorded UI request.
type UIRequest struct {
	Method string
	Params map[string]any
}

// NewFakeHost returns an empty fake host.
func NewFakeHost() *FakeHost {
	return &FakeHost{Labels: map[string]string{}, ActiveTools: []string{"read", "bash", "edit", "write"}, Thinking: "off"}
}

// Requests returns the recorded UI requests of one method.
func (f *FakeHost) Requests(method string) []UIRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []UIRequest
	for _, r := range f.UIRequests {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// SendMessage implements sdk.Host.
func (f *FakeHost) SendMessage(_ context.Context, msg sdk.CustomMessage, _ sdk.SendOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Messages = append(f.Messages, msg)
	return nil
}

// SendUserMessage implements sdk.Host.
func (f *FakeHost) SendUserMessage(_ context.Context, content any, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.UserMessages = append(f.UserMessages, content)
	return nil
}

// AppendEntry implements sdk.Host.
func (f *FakeHost) AppendEntry(_ context.Context, customType string, data any) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := fmt.Sprintf("e%07d", len(f.Entries)+1)
	f.Entries = append(f.Entries, Entry{ID: id, CustomType: customType, Data: data})
	return id, nil
}

// SetSessionName implements sdk.Host.
func (f *FakeHost) SetSessionName(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Name = strings.TrimSpace(name)
	return nil
}

// SetLabel implements sdk.Host.
func (f *FakeHost) SetLabel(_ context.Context, id, label string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Labels[id] = label
	return nil
}

// Session implements sdk.Host with the recorded custom entries.
func (f *FakeHost) Session(context.Context, sdk.SessionQuery) (*sdk.SessionView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := &sdk.SessionView{SessionID: "test-session", Name: f.Name, Cwd: "."}
	for _, e := range f.Entries {
		v.Entries = append(v.Entries, map[string]any{"type": "custom", "id": e.ID, "customType": e.CustomType, "data": e.Data})
		v.LeafID = e.ID
	}
	v.Branch = v.Entries
	return v, nil
}

// ContextUsage implements sdk.Host.
func (f *FakeHost) ContextUsage(context.Context) (*sdk.ContextUsage, error) { return nil, nil }

// Tools implements sdk.Host.
func (f *FakeHost) Tools(context.Context) ([]string, []sdk.ToolInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []sdk.ToolInfo
	for _, n := range f.ActiveTools {
		all = append(all, sdk.ToolInfo{Name: n})
	}
	return append([]string(nil), f.ActiveTools...), all, nil
}

// SetActiveTools implements sdk.Host.
func (f *FakeHost) SetActiveTools(_ context.Context, names []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ActiveTools = append([]string(nil), names...)
	return nil
}

// Model implements sdk.Host.
func (f *FakeHost) Model(context.Context) (*sdk.Model, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ModelValue, f.Thinking, nil
}

// SetModel implements sdk.Host.
func (f *FakeHost) SetModel(_ context.Context, provider, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ModelValue = &sdk.Model{Provider: provider, ID: id}
	return true, nil
}

// SetThinkingLevel implements sdk.Host.
func (f *FakeHost) SetThinkingLevel(_ context.Context, level string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Thinking = level
	return level, nil
}

// Abort implements sdk.Host.
func (f *FakeHost) Abort(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Aborted++
	return nil
}

// UI implements sdk.Host.
func (f *FakeHost) UI(_ context.Context, method string, params map[string]any) (sdk.UIAnswer, error) {
	f.mu.Lock()
	f.UIRequests = append(f.UIRequests, UIRequest{Method: method, Params: params})
	confirm, sel, input := f.Confirm, f.Select, f.Input
	f.mu.Unlock()
	title, _ := params["title"].(string)
	switch method {
	case "confirm":
		msg, _ := params["message"].(string)
		if confirm == nil {
			return sdk.UIAnswer{Cancelled: true}, nil
		}
		return sdk.UIAnswer{Confirmed: confirm(title, msg)}, nil
	case "select":
		var opts []string
		switch o := params["options"].(type) {
		case []string:
			opts = o
		case []any:
			for _, x := range o {
				s, _ := x.(string)
				opts = append(opts, s)
			}
		}
		if sel == nil {
			return sdk.UIAnswer{Cancelled: true}, nil
		}
		if v := sel(title, opts); v != "" {
			return sdk.UIAnswer{Value: v, HasValue: true}, nil
		}
		return sdk.UIAnswer{Cancelled: true}, nil
	case "input", "editor":
		if input == nil {
			return sdk.UIAnswer{Cancelled: true}, nil
		}
		if v := input(title); v != "" {
			return sdk.UIAnswer{Value: v, HasValue: true}, nil
		}
		return sdk.UIAnswer{Cancelled: true}, nil
	}
	return sdk.UIAnswer{}, nil
}

// Exec implements sdk.Host.
func (f *FakeHost) Exec(ctx context.Context, command string, args []string, opts sdk.ExecOptions) (*sdk.ExecResult, error) {
	if f.ExecFunc != nil {
		return f.ExecFunc(command, args)
	}
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = opts.Cwd
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := &sdk.ExecResult{Stdout: out.String(), Stderr: errb.String()}
	if cmd.ProcessState != nil {
		res.Code = cmd.ProcessState.ExitCode()
	} else if err != nil {
		res.Code = -1
		res.Stderr += err.Error()
	}
	return res, nil
}

// Commands implements sdk.Host.
func (f *FakeHost) Commands(context.Context) ([]sdk.CommandInfo, error) { return nil, nil }

// State implements sdk.Host.
func (f *FakeHost) State(context.Context) (*sdk.State, error) { return &sdk.State{IsIdle: true}, nil }

// Compact implements sdk.Host: it records the call and returns an empty
// result.
func (f *FakeHost) Compact(context.Context) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Compactions++
	return json.RawMessage(`{}`), nil
}

// RegisterMCPServer implements sdk.Host: it records the server.
func (f *FakeHost) RegisterMCPServer(_ context.Context, name string, config json.RawMessage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.MCPServers == nil {
		f.MCPServers = map[string]json.RawMessage{}
	}
	f.MCPServers[name] = append(json.RawMessage(nil), config...)
	return nil
}

// Locked runs fn with the host's lock held: read the recorded calls in it
// while the extension may still be calling back (asynchronous handlers,
// timers).
func (f *FakeHost) Locked(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}
