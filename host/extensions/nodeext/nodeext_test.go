package nodeext

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/testreq"
)

type fakeHost struct {
	uiCh   chan string
	mu     sync.Mutex
	ui     []string
	errors []hooks.ExtensionError
}

func (h *fakeHost) HandlerContext() extensions.HandlerContext {
	return extensions.HandlerContext{Cwd: os.TempDir(), Mode: "rpc", HasUI: true, SessionID: "s1"}
}
func (h *fakeHost) SendMessage(context.Context, hooks.CustomMessage, bool, string) error { return nil }
func (h *fakeHost) SendUserMessage(context.Context, llm.Content, string) error           { return nil }
func (h *fakeHost) AppendEntry(context.Context, string, json.RawMessage) (string, error) {
	return "abcd1234", nil
}
func (h *fakeHost) SetSessionName(context.Context, string) error   { return nil }
func (h *fakeHost) SetLabel(context.Context, string, string) error { return nil }
func (h *fakeHost) Session(context.Context, extensions.SessionQuery) (extensions.SessionView, error) {
	return extensions.SessionView{SessionID: "s1", Name: "named"}, nil
}
func (h *fakeHost) ContextUsage(context.Context) json.RawMessage { return nil }
func (h *fakeHost) Tools(context.Context) ([]string, []extensions.ToolInfo) {
	return []string{"read", "bash"}, nil
}
func (h *fakeHost) SetActiveTools(context.Context, []string)                {}
func (h *fakeHost) Model(context.Context) (*llm.Model, string)              { return nil, "off" }
func (h *fakeHost) SetModel(context.Context, string, string) (bool, error)  { return false, nil }
func (h *fakeHost) SetThinkingLevel(_ context.Context, level string) string { return level }
func (h *fakeHost) Abort(context.Context)                                   {}
func (h *fakeHost) Commands(context.Context) json.RawMessage                { return json.RawMessage("[]") }
func (h *fakeHost) Compact(context.Context) (json.RawMessage, error)        { return nil, nil }
func (h *fakeHost) State(context.Context) extensions.HostState {
	return extensions.HostState{IsIdle: true}
}
func (h *fakeHost) UI(_ context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := json.Marshal(params)
	h.ui = append(h.ui, method+" "+string(b))
	if h.uiCh != nil {
		h.uiCh <- method + " " + string(b)
	}
	return extensions.UIAnswer{Confirmed: true}, nil
}
func (h *fakeHost) Exec(context.Context, string, []string, string, time.Duration) (extensions.ExecResult, error) {
	return extensions.ExecResult{}, nil
}

// waitErrors waits (bounded) until n extension errors were reported.
func (h *fakeHost) waitErrors(t testing.TB, n int) []hooks.ExtensionError {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h.mu.Lock()
		errs := append([]hooks.ExtensionError(nil), h.errors...)
		h.mu.Unlock()
		if len(errs) >= n || time.Now().After(deadline) {
			return errs
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newRuntime(t testing.TB, h *fakeHost) *Runtime {
	t.Helper()
	rt := &Runtime{Log: slog.New(slog.DiscardHandler), Plugins: &grpcext.Runtime{Log: slog.New(slog.DiscardHandler)},
		CacheDir: t.TempDir(), OnError: func(e hooks.ExtensionError) {
			h.mu.Lock()
			h.errors = append(h.errors, e)
			h.mu.Unlock()
		}}
	if err := rt.Available(); err != nil {
		testreq.Missing(t, "node", "Node is not available: %v", err)
	}
	return rt
}

func loadExt(t testing.TB, rt *Runtime, h extensions.Host, file string, opts extensions.Options) extensions.Extension {
	t.Helper()
	abs, _ := filepath.Abs(file)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ext, err := rt.Load(ctx, extensions.Spec{Path: abs, Kind: extensions.KindScript, Dir: filepath.Dir(abs), Options: opts}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ext.Close() })
	return ext
}

func TestBasicExtensionInNode(t *testing.T) {
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	ext := loadExt(t, rt, h, "testdata/basic.ts", extensions.Options{})
	if got := ext.Commands(); len(got) != 1 || got[0].Name != "hello" || got[0].Description != "Say hello" {
		t.Fatalf("commands: %+v", got)
	}
	tools := ext.Tools()
	if len(tools) != 1 || tools[0].Name != "greet" || !strings.Contains(string(tools[0].Parameters), `"name":{"type":"string","description":"who"}`) {
		t.Fatalf("tools: %+v %s", tools, tools[0].Parameters)
	}
	ctx := context.Background()
	if err := ext.RunCommand(ctx, "hello", "world"); err != nil {
		t.Fatal(err)
	}
	select {
	case ui := <-h.uiCh:
		if !strings.Contains(ui, "hello world from function function") {
			t.Fatalf("ui: %q", ui)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
	}
	res, err := ext.ExecuteTool(ctx, "greet", "c1", map[string]any{"name": "Ada"}, nil)
	if err != nil || res.ResultText() != "Hello, Ada!" {
		t.Fatalf("tool: %+v %v", res, err)
	}
	raw, err := ext.Handle(ctx, hooks.NewEvent(hooks.ToolCall, hooks.ToolCallEvent{ToolName: "bash", ToolCallID: "c2", Input: map[string]any{"command": "ls"}}))
	if err != nil || !strings.Contains(string(raw), `"block":true`) {
		t.Fatalf("tool_call: %s %v", raw, err)
	}
	if n, ok := ext.(extensions.RuntimeNamer); !ok || n.RuntimeName() != "node" {
		t.Fatal("runtime name")
	}
}

func TestSharedProcessRestartsAfterDeath(t *testing.T) {
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	a := loadExt(t, rt, h, "testdata/nodeonly.ts", extensions.Options{})
	b := loadExt(t, rt, h, "testdata/nodeonly2.ts", extensions.Options{})
	ctx := context.Background()
	pidOf := func(ext extensions.Extension, cmd string) string {
		t.Helper()
		if err := ext.RunCommand(ctx, cmd, ""); err != nil {
			t.Fatal(err)
		}
		select {
		case ui := <-h.uiCh:
			return strings.Fields(ui)[2]
		case <-time.After(10 * time.Second):
			t.Fatal("no notification")
		}
		return ""
	}
	p1, p2 := pidOf(a, "pid"), pidOf(b, "pid2")
	if p1 != p2 {
		t.Fatalf("pids %s %s", p1, p2)
	}
	if err := a.RunCommand(ctx, "die", ""); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("die: %v", err)
	}
	if p := pidOf(b, "pid2"); p == p1 {
		t.Fatal("same pid")
	}
	// a's command was running when the shared process died: a is
	// disabled, its neighbour runs on without it.
	if err := a.RunCommand(ctx, "pid", ""); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("the extension that ended the shared process: %v", err)
	}
	if d, ok := a.(extensions.Disabler); !ok || d.Disabled() == nil {
		t.Fatal("not reported disabled")
	}
}

func TestEndlessLoopIsKilledByTheWatchdog(t *testing.T) {
	defer func(i, d time.Duration) { WatchdogInterval, WatchdogTimeout = i, d }(WatchdogInterval, WatchdogTimeout)
	WatchdogInterval, WatchdogTimeout = 100*time.Millisecond, 500*time.Millisecond
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	ext := loadExt(t, rt, h, "testdata/bounds.ts", extensions.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := ext.RunCommand(ctx, "spin", ""); err == nil {
		t.Fatal("an endless loop returned")
	}
	// The watchdog kills the wedged process; the crash is reported and
	// the extension answers again from a new process.
	if len(h.waitErrors(t, 1)) == 0 {
		t.Fatal("the wedged process was not killed")
	}
	if err := ext.RunCommand(context.Background(), "ok", ""); err != nil {
		t.Fatal(err)
	}
	select {
	case ui := <-h.uiCh:
		if !strings.HasPrefix(ui, "notify") {
			t.Fatal(ui)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer after the restart")
	}
}

func TestUnboundedAllocationEndsTheProcessNotTheAgent(t *testing.T) {
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	rt.MemoryLimitMB = 64
	ext := loadExt(t, rt, h, "testdata/bounds.ts", extensions.Options{})
	err := ext.RunCommand(context.Background(), "hog", "")
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("want the process's exit, got %v", err)
	}
	errs := h.waitErrors(t, 1)
	if len(errs) != 1 || errs[0].Event != "crash" || !strings.HasSuffix(errs[0].ExtensionPath, "bounds.ts") {
		t.Fatalf("crash reports: %+v", errs)
	}
	if err := ext.RunCommand(context.Background(), "ok", ""); err != nil {
		t.Fatal(err)
	}
}

// modelHost is a fakeHost that answers model requests with its name.
type modelHost struct {
	fakeHost
	name  string
	calls atomic.Int32
}

func (h *modelHost) Model(context.Context) (*llm.Model, string) {
	return &llm.Model{ID: "m1", Provider: "p1", API: "faux"}, "off"
}
func (h *modelHost) HandlerContext() extensions.HandlerContext {
	hc := h.fakeHost.HandlerContext()
	hc.Model = &llm.Model{ID: "m1", Provider: "p1", API: "faux"}
	return hc
}
func (h *modelHost) Models(context.Context) ([]llm.Model, []llm.Model) { return nil, nil }
func (h *modelHost) ModelAuth(context.Context, string, string) extensions.ModelAuth {
	return extensions.ModelAuth{OK: true}
}
func (h *modelHost) CompleteModel(context.Context, string, string, extensions.ModelCall) llm.Message {
	h.calls.Add(1)
	return llm.Message{Role: llm.RoleAssistant, Content: llm.TextContent("from " + h.name), StopReason: llm.StopStop}
}

// pi-ai's complete() outside a call (from a timer a command started)
// goes through the host of the extension whose code runs, not through
// the last one the shared Node process loaded (found by test/parity: an
// extension's nested session reached another extension's host).
func TestOutsideCallsUseTheirOwnExtensionsHost(t *testing.T) {
	a := &modelHost{fakeHost: fakeHost{uiCh: make(chan string, 10)}, name: "a"}
	b := &modelHost{fakeHost: fakeHost{uiCh: make(chan string, 10)}, name: "b"}
	rt := newRuntime(t, &a.fakeHost)
	extA := loadExt(t, rt, a, "testdata/outside.ts", extensions.Options{})
	loadExt(t, rt, b, "testdata/basic.ts", extensions.Options{}) // loaded last
	if err := extA.RunCommand(context.Background(), "ask", ""); err != nil {
		t.Fatal(err)
	}
	select {
	case ui := <-a.uiCh:
		if !strings.Contains(ui, "answer from a") {
			t.Fatalf("ui: %q", ui)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	if a.calls.Load() != 1 || b.calls.Load() != 0 {
		t.Fatalf("model requests: %d through a's host, %d through b's", a.calls.Load(), b.calls.Load())
	}
}
