package parity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
)

// recorder is the host every engine's extension acts on: the seam below
// the HostService (hostsvc.Server), which goja in process calls directly
// and goja isolated and Node reach through the plugin protocol. It
// answers every host method the same way, whatever the engine, and
// writes each call with its arguments into the record, between the
// scenario's steps and the handlers' results.
//
// HandlerContext is not recorded: it is the call's context, which goja
// reads when a handler looks at ctx and the plugin protocol sends with
// every event, so how often it is read says nothing about the extension.
type recorder struct {
	cwd     string
	mu      sync.Mutex
	rec     []string
	async   []string
	changed chan struct{} // closed and replaced at every line
}

func newRecorder(cwd string) *recorder { return &recorder{cwd: cwd, changed: make(chan struct{})} }

func (r *recorder) add(line string) { r.addTo(&r.rec, line) }

func (r *recorder) addTo(list *[]string, line string) {
	r.mu.Lock()
	*list = append(*list, line)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// settle returns once nothing was recorded for quiet (at most after
// limit): the host calls an extension started without waiting for them
// have arrived.
func (r *recorder) settle(quiet, limit time.Duration) {
	end := time.NewTimer(limit)
	defer end.Stop()
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		t := time.NewTimer(quiet)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
			return
		case <-end.C:
			t.Stop()
			return
		}
	}
}

// lines is the record: the steps with the handlers' results and the
// synchronous host calls in order, then the asynchronous host calls.
func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	async := append([]string(nil), r.async...)
	sort.Strings(async)
	return append(append(append([]string(nil), r.rec...), "== asynchronous host calls"), async...)
}

// asyncMethods are the host methods the API calls without waiting for
// their answer on the spot (js/api.js's port.call, not port.sync): the
// promise settles later, and an extension that does not await it goes on
// at once. When such a call reaches the host is the engine's port's
// doing — at once in process, over another connection than the
// handler's result in an isolated child or Node — so they are recorded
// apart and compared as a set (normalisation 1 of parity_test.go). The
// host's Abort and RequestShutdown are called from a goroutine of their
// own by hostsvc (they wait for the run), in every engine.
var asyncMethods = map[string]bool{
	"SendMessage": true, "SendUserMessage": true, "Exec": true, "SetModel": true, "Compact": true,
	"Abort": true, "RequestShutdown": true, "CompleteModel": true, "ModelAuth": true, "CallTool": true,
	"NewSession": true, "Fork": true, "SwitchSession": true, "NavigateTree": true, "Reload": true,
}

// call records a host call: the method and its arguments as JSON.
func (r *recorder) call(method string, args ...any) {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, jsonText(a))
	}
	line := "host " + method + "(" + strings.Join(parts, ", ") + ")"
	dialog := method == "UI" && len(args) > 0 && extensions.IsUIDialog(args[0].(string))
	if asyncMethods[method] || dialog {
		r.addTo(&r.async, line)
		return
	}
	r.add(line)
}

func jsonText(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		if len(raw) == 0 {
			return "null"
		}
		return canonical(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return canonical(b)
}

// canonical re-encodes JSON with sorted object keys (Go's map order), so
// that two engines' equal values print the same.
func canonical(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var fauxModel = faux.Models()[0]

func (r *recorder) HandlerContext() extensions.HandlerContext {
	m := fauxModel
	return extensions.HandlerContext{Cwd: r.cwd, Mode: "rpc", HasUI: true, SessionID: "parity-session",
		SessionFile: "", Model: &m, ThinkingLevel: "off", IsIdle: true, ProjectTrusted: true}
}

func (r *recorder) SendMessage(_ context.Context, msg hooks.CustomMessage, triggerTurn bool, deliverAs string) error {
	r.call("SendMessage", msg, triggerTurn, deliverAs)
	return nil
}

func (r *recorder) SendUserMessage(_ context.Context, content llm.Content, deliverAs string) error {
	r.call("SendUserMessage", content, deliverAs)
	return nil
}

func (r *recorder) AppendEntry(_ context.Context, customType string, data json.RawMessage) (string, error) {
	r.call("AppendEntry", customType, data)
	return "entry-1", nil
}

func (r *recorder) SetSessionName(_ context.Context, name string) error {
	r.call("SetSessionName", name)
	return nil
}

func (r *recorder) SetLabel(_ context.Context, entryID, label string) error {
	r.call("SetLabel", entryID, label)
	return nil
}

// sessionHeader is the session's header entry (pi's v3 header).
var sessionHeader = json.RawMessage(`{"type":"session","version":3,"id":"parity-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":""}`)

func (r *recorder) Session(_ context.Context, q extensions.SessionQuery) (extensions.SessionView, error) {
	r.call("Session", q)
	v := extensions.SessionView{SessionID: "parity-session", Cwd: r.cwd, Header: sessionHeader}
	if q.Entries {
		v.Entries = json.RawMessage(`[]`)
	}
	if q.Branch {
		v.Branch = json.RawMessage(`[]`)
	}
	if q.Tree {
		v.Tree = json.RawMessage(`[]`)
	}
	return v, nil
}

func (r *recorder) ContextUsage(context.Context) json.RawMessage {
	r.call("ContextUsage")
	return json.RawMessage(`{"tokens":1200,"contextWindow":128000,"percent":0.9375}`)
}

var builtinTools = []extensions.ToolInfo{
	{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), Exposure: "direct"},
	{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`), Exposure: "direct"},
}

func (r *recorder) Tools(context.Context) ([]string, []extensions.ToolInfo) {
	r.call("Tools")
	return []string{"read", "bash"}, builtinTools
}

func (r *recorder) SetActiveTools(_ context.Context, names []string) {
	r.call("SetActiveTools", names)
}

func (r *recorder) Model(context.Context) (*llm.Model, string) {
	r.call("Model")
	m := fauxModel
	return &m, "off"
}

func (r *recorder) SetModel(_ context.Context, provider, id string) (bool, error) {
	r.call("SetModel", provider, id)
	return provider == faux.ProviderID, nil
}

func (r *recorder) SetThinkingLevel(_ context.Context, level string) string {
	r.call("SetThinkingLevel", level)
	return level
}

func (r *recorder) Abort(context.Context) { r.call("Abort") }

// UI answers every dialog as a user who dismisses it, and takes every
// notification; a request of the wrong shape fails as with the agent's
// front ends.
func (r *recorder) UI(_ context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	r.call("UI", method, params)
	if err := extensions.CheckUIRequest(method, params); err != nil {
		return extensions.UIAnswer{}, err
	}
	if extensions.IsUIDialog(method) {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	return extensions.UIAnswer{}, nil
}

// Exec runs the program (in the project directory unless told), as
// the agent does: goja's child_process runs programs through it, Node's
// runs them itself, and both must see the same outcome.
func (r *recorder) Exec(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (extensions.ExecResult, error) {
	r.call("Exec", command, args, cwd, timeout.Milliseconds())
	if timeout <= 0 || timeout > stepTimeout {
		timeout = stepTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = r.cwd
	if cwd != "" {
		cmd.Dir = cwd
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := extensions.ExecResult{Stdout: stdout.String(), Stderr: stderr.String(), Killed: ctx.Err() != nil}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		res.Code, res.Stderr = -1, err.Error()
	}
	return res, nil
}

func (r *recorder) Commands(context.Context) json.RawMessage {
	r.call("Commands")
	return json.RawMessage(`[]`)
}

func (r *recorder) State(context.Context) extensions.HostState {
	r.call("State")
	return extensions.HostState{IsIdle: true, SystemPrompt: systemPrompt}
}

func (r *recorder) Compact(context.Context) (json.RawMessage, error) {
	r.call("Compact")
	return nil, errors.New("nothing to compact yet")
}

// The optional host interfaces the agent implements.

func (r *recorder) CallTool(_ context.Context, name string, args map[string]any) extensions.ToolCallOutcome {
	r.call("CallTool", name, args)
	return extensions.ToolCallOutcome{ID: "nested-1", Result: llm.TextResult("nested result"), IsError: false}
}

func (r *recorder) Settings() json.RawMessage {
	r.call("Settings")
	return json.RawMessage(`{"defaultProjectTrust":"always"}`)
}

func (r *recorder) SystemPromptOptions() json.RawMessage {
	r.call("SystemPromptOptions")
	return systemPromptOptions(r.cwd)
}

func (r *recorder) Models(context.Context) ([]llm.Model, []llm.Model) {
	r.call("Models")
	return faux.Models(), faux.Models()
}

func (r *recorder) ModelAuth(_ context.Context, provider, id string) extensions.ModelAuth {
	r.call("ModelAuth", provider, id)
	if provider != faux.ProviderID {
		return extensions.ModelAuth{Error: "no credentials for " + provider}
	}
	return extensions.ModelAuth{OK: true, APIKey: "parity-key"}
}

func (r *recorder) CompleteModel(_ context.Context, provider, id string, call extensions.ModelCall) llm.Message {
	r.call("CompleteModel", provider, id, call.SystemPrompt, call.Messages, call.Tools, call.MaxTokens, call.Reasoning)
	return assistantMessage("a faux answer")
}

func (r *recorder) ScopedModels() []llm.ScopedModel {
	r.call("ScopedModels")
	return nil
}

func (r *recorder) RequestShutdown() { r.call("RequestShutdown") }

func (r *recorder) RefreshExtensionTools() { r.call("RefreshExtensionTools") }

func (r *recorder) RegisterMCPServer(_, name string, config json.RawMessage) error {
	r.call("RegisterMCPServer", name, config)
	return nil
}

func (r *recorder) UnregisterMCPServer(_, name string) { r.call("UnregisterMCPServer", name) }

func (r *recorder) RegisteredMCPServers() []extensions.RegisteredMCPServer {
	r.call("RegisteredMCPServers")
	return []extensions.RegisteredMCPServer{}
}

// Session control: every change is cancelled (as by a session_before_*
// handler), so the scenario's session stays the one it started with.

func (r *recorder) change(method string, args ...any) (extensions.SessionChange, error) {
	r.call(method, args...)
	return extensions.SessionChange{Cancelled: true, Context: r.HandlerContext()}, nil
}

func (r *recorder) NewSession(_ context.Context, parent string) (extensions.SessionChange, error) {
	return r.change("NewSession", parent)
}

func (r *recorder) Fork(_ context.Context, entryID, position string) (extensions.SessionChange, error) {
	return r.change("Fork", entryID, position)
}

func (r *recorder) SwitchSession(_ context.Context, path string) (extensions.SessionChange, error) {
	return r.change("SwitchSession", path)
}

func (r *recorder) NavigateTree(_ context.Context, targetID string, opts extensions.NavigateOptions) (extensions.SessionChange, error) {
	return r.change("NavigateTree", targetID, opts)
}

func (r *recorder) Reload(context.Context) error {
	r.call("Reload")
	return nil
}

var (
	_ extensions.Host               = (*recorder)(nil)
	_ extensions.ToolCaller         = (*recorder)(nil)
	_ extensions.SettingsHost       = (*recorder)(nil)
	_ extensions.SystemPromptHost   = (*recorder)(nil)
	_ extensions.ModelHost          = (*recorder)(nil)
	_ extensions.ScopedModelHost    = (*recorder)(nil)
	_ extensions.ShutdownRequester  = (*recorder)(nil)
	_ extensions.ToolRefresher      = (*recorder)(nil)
	_ extensions.MCPServerRegistrar = (*recorder)(nil)
	_ extensions.MCPServerRegistry  = (*recorder)(nil)
	_ extensions.SessionController  = (*recorder)(nil)
)
