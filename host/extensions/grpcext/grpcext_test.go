package grpcext

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/hooks/hookstest"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/e2e"
)

// fakeHost answers host calls for unit tests.
type fakeHost struct {
	mu      sync.Mutex
	entries []string
	ui      []string
	confirm bool
}

func (h *fakeHost) HandlerContext() extensions.HandlerContext {
	return extensions.HandlerContext{Cwd: "/tmp", Mode: "rpc", HasUI: true, SessionID: "s1"}
}
func (h *fakeHost) SendMessage(context.Context, hooks.CustomMessage, bool, string) error { return nil }
func (h *fakeHost) SendUserMessage(context.Context, llm.Content, string) error           { return nil }
func (h *fakeHost) AppendEntry(_ context.Context, ct string, _ json.RawMessage) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, ct)
	return "abcd1234", nil
}
func (h *fakeHost) SetSessionName(context.Context, string) error   { return nil }
func (h *fakeHost) SetLabel(context.Context, string, string) error { return nil }
func (h *fakeHost) Session(context.Context, extensions.SessionQuery) (extensions.SessionView, error) {
	return extensions.SessionView{}, nil
}
func (h *fakeHost) ContextUsage(context.Context) json.RawMessage { return nil }
func (h *fakeHost) Tools(context.Context) ([]string, []extensions.ToolInfo) {
	return nil, nil
}
func (h *fakeHost) SetActiveTools(context.Context, []string)                {}
func (h *fakeHost) Model(context.Context) (*llm.Model, string)              { return nil, "off" }
func (h *fakeHost) SetModel(context.Context, string, string) (bool, error)  { return false, nil }
func (h *fakeHost) SetThinkingLevel(_ context.Context, level string) string { return level }
func (h *fakeHost) Abort(context.Context)                                   {}
func (h *fakeHost) Commands(context.Context) json.RawMessage                { return json.RawMessage("[]") }
func (h *fakeHost) State(context.Context) extensions.HostState {
	return extensions.HostState{IsIdle: true}
}
func (h *fakeHost) UI(_ context.Context, method string, _ map[string]any) (extensions.UIAnswer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ui = append(h.ui, method)
	time.Sleep(200 * time.Millisecond) // the user thinks
	return extensions.UIAnswer{Confirmed: h.confirm}, nil
}
func (h *fakeHost) Exec(context.Context, string, []string, string, time.Duration) (extensions.ExecResult, error) {
	return extensions.ExecResult{}, nil
}

func load(t testing.TB, host extensions.Host, args ...string) *Plugin {
	t.Helper()
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	spec := extensions.Spec{Path: t.TempDir(), Kind: extensions.KindPlugin, Command: append([]string{bin}, args...)}
	spec.Dir = spec.Path
	rt := &Runtime{Log: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ext, err := rt.Load(ctx, spec, host)
	if err != nil {
		t.Fatal(err)
	}
	p := ext.(*Plugin)
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPluginHooksCommandsTools(t *testing.T) {
	host := &fakeHost{}
	p := load(t, host, "--block-bash", "rm -rf", "--command", "hello", "--tool", "echo", "--confirm-bash")
	bus := hooks.New()
	var errs []hooks.ExtensionError
	bus.OnError = func(e hooks.ExtensionError) { errs = append(errs, e) }
	bus.Add(&shortTimeout{p})

	d := bus.ToolCall(context.Background(), hooks.ToolCallEvent{ToolCallID: "c1", ToolName: "bash", Input: map[string]any{"command": "rm -rf /"}})
	if !d.Block || !strings.Contains(d.Reason, "blocked by testplugin") {
		t.Fatalf("not blocked: %+v %+v", d, errs)
	}
	// The confirm dialog takes longer than the hook's deadline, but dialog
	// time does not count.
	d = bus.ToolCall(context.Background(), hooks.ToolCallEvent{ToolCallID: "c2", ToolName: "bash", Input: map[string]any{"command": "ls"}})
	if !d.Block || d.Reason != "the user declined" || len(errs) != 0 {
		t.Fatalf("dialog: %+v %+v", d, errs)
	}

	if err := p.RunCommand(context.Background(), "hello", "world"); err != nil {
		t.Fatal(err)
	}
	if len(host.entries) != 1 || host.entries[0] != "testplugin-command" {
		t.Fatalf("entries %v", host.entries)
	}
	items, none, err := p.Complete(context.Background(), "hello", "b")
	if err != nil || none || len(items) != 1 || items[0].Value != "beta" {
		t.Fatalf("completions %v %v %v", items, none, err)
	}

	var updates int
	res, err := p.ExecuteTool(context.Background(), "echo", "t1", map[string]any{"text": "hi"}, func(llm.ToolResult) { updates++ })
	if err != nil || res.ResultText() != "echo: hi" || updates != 2 {
		t.Fatalf("tool: %+v %v %d", res, err, updates)
	}
	if _, err := p.ExecuteTool(context.Background(), "echo", "t2", map[string]any{"text": "fail"}, nil); err == nil || err.Error() != "echo failed on purpose" {
		t.Fatalf("tool error: %v", err)
	}
}

type shortTimeout struct{ *Plugin }

func (s *shortTimeout) Timeout(string) time.Duration { return 100 * time.Millisecond }

func TestKilledPluginFailsAtOnceAndRestarts(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := load(t, &fakeHost{}, "--hang", "tool_call", "--pidfile", pidFile, "--block-bash", "never")
	pid := p.Pid()
	if pid == 0 {
		t.Fatal("no pid")
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Handle(context.Background(), hooks.NewEvent(hooks.ToolCall, hooks.ToolCallEvent{ToolName: "bash", Input: map[string]any{}}))
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("want an exit error, got %v", err)
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("pending call failed only after %v", time.Since(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call was not failed")
	}
	// Next use restarts it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if p.Pid() == pid || p.Pid() == 0 {
		t.Fatal("not restarted")
	}
	// Repeated crashes disable it.
	for i := 0; i < MaxCrashes; i++ {
		pid := p.Pid()
		if pid == 0 {
			break
		}
		syscall.Kill(pid, syscall.SIGKILL)
		deadline := time.Now().Add(5 * time.Second)
		for p.Pid() == pid && time.Now().Before(deadline) {
			p.proc.mu.Lock()
			alive := p.proc.inst.alive.Err() == nil
			p.proc.mu.Unlock()
			if !alive {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		_, _ = p.ensure(ctx)
	}
	if err := p.disabled(); err == nil || !strings.Contains(err.Error(), "disabled after") {
		t.Fatalf("want disabled, got %v", err)
	}
	// A disabled plugin never blocks a tool call: it was reported
	// disabled, and its hooks are left out.
	ev := &hooks.Event{Name: hooks.ToolCall, Payload: hooks.ToolCallEvent{ToolName: "bash", ToolCallID: "c1"}}
	if res, err := p.Handle(ctx, ev); err != nil || res != nil {
		t.Fatalf("tool_call of a disabled plugin: %s %v", res, err)
	}
}

func TestBadPlugins(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain")
	os.WriteFile(notExec, []byte("x"), 0o644)
	cases := []struct {
		name string
		cmd  []string
		want string
	}{
		{"missing", []string{filepath.Join(dir, "nope")}, "not found"},
		{"not executable", []string{notExec}, "not executable"},
		{"garbage", []string{bin, "--garbage"}, "failed to start"},
		{"exit early", []string{bin, "--exit-early"}, "failed to start"},
		{"other version", []string{bin, "--bad-version"}, "failed to start"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rt := &Runtime{Log: slog.New(slog.DiscardHandler)}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err := rt.Load(ctx, extensions.Spec{Path: dir, Dir: dir, Kind: extensions.KindPlugin, Command: c.cmd}, &fakeHost{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want %q, got %v", c.want, err)
			}
			t.Logf("%s: %v (%v)", c.name, err, time.Since(start))
		})
	}
}

func TestPluginNeverGetsTheHostStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("protocol line that belongs to the agent\n")
	saved := os.Stdin
	os.Stdin = r // go-plugin would hand this to the plugin
	defer func() { os.Stdin = saved; r.Close(); w.Close() }()
	out := filepath.Join(t.TempDir(), "stdin")
	load(t, &fakeHost{}, "--stdin-to", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "EOF" {
		t.Fatalf("the plugin read %q from its standard input", b)
	}
}

func (h *fakeHost) Compact(context.Context) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

// TestCompositionFixtures runs the hook bus's composition table with Go
// plugin handlers (sdk, over gRPC): the plugin runs each handler alone and
// the bus composes.
func TestCompositionFixtures(t *testing.T) {
	hookstest.Run(t, func(t *testing.T, event string, groups [][]hookstest.Handler) []hooks.Subscriber {
		var subs []hooks.Subscriber
		for _, g := range groups {
			list, _ := json.Marshal(g)
			subs = append(subs, load(t, &fakeHost{}, "--fixture", event+"="+string(list)))
		}
		return subs
	})
}

// A child the plugin started without detaching ends with the plugin:
// when the plugin is killed as a crash, and when it is closed.
func TestPluginChildrenEndWithIt(t *testing.T) {
	p := load(t, &fakeHost{}, "--tool", "echo")
	spawn := func() int {
		t.Helper()
		res, err := p.ExecuteTool(context.Background(), "echo", "t", map[string]any{"text": "sh:sleep 300 >/dev/null 2>&1 & echo $!"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(res.ResultText(), "echo: ")))
		if err != nil {
			t.Fatalf("no pid in %q", res.ResultText())
		}
		if syscall.Kill(pid, 0) != nil {
			t.Fatalf("child %d not running", pid)
		}
		return pid
	}
	gone := func(pid int, what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("the plugin's child %d still runs after the plugin was %s", pid, what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	child := spawn()
	p.proc.Kill()
	gone(child, "killed")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.ensure(ctx); err != nil {
		t.Fatal(err)
	}
	child = spawn()
	p.Close()
	gone(child, "closed")
}

// A shared process whose last plugin closes is not reused by the next
// plugin attached (a Node extension loading while the last one closes): the
// ending instance is dropped at once, so the next plugin starts a process
// of its own instead of describing itself to one being killed ("grpc: the
// client connection is closing", seen in test/parity).
func TestSharedProcessEndingWithItsLastPluginIsNotReused(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	dir := t.TempDir()
	spec := extensions.Spec{Path: dir, Dir: dir, Kind: extensions.KindPlugin, Command: []string{bin, "--command", "hello"}}
	rt := &Runtime{Log: slog.New(slog.DiscardHandler)}
	proc := rt.NewProcess(spec.Command, dir, nil, true, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	host := &fakeHost{}
	a, err := rt.Attach(ctx, proc, spec, host, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := proc.Pid()
	a.Close()
	if pid := proc.Pid(); pid != 0 {
		t.Fatalf("the instance ended with the last plugin is still the process's (pid %d)", pid)
	}
	b, err := rt.Attach(ctx, proc, spec, host, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if pid := proc.Pid(); pid == 0 || pid == first {
		t.Fatalf("pid %d after %d", pid, first)
	}
	if err := b.RunCommand(ctx, "hello", ""); err != nil {
		t.Fatal(err)
	}
}

// A shared process keeps a host lane route only for the plugins attached
// to it: one that detaches (an extension reloaded many times) leaves none.
func TestHostLaneRoutesEndWithTheirPlugins(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	dir := t.TempDir()
	spec := extensions.Spec{Path: dir, Dir: dir, Kind: extensions.KindPlugin, Command: []string{bin, "--command", "hello"}}
	rt := &Runtime{Log: slog.New(slog.DiscardHandler)}
	proc := rt.NewProcess(spec.Command, dir, nil, true, nil)
	proc.HostLane = true
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	host := &fakeHost{}
	keep, err := rt.Attach(ctx, proc, spec, host, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	lane := func() *hostLane {
		proc.mu.Lock()
		defer proc.mu.Unlock()
		return proc.inst.hostLane
	}
	if lane() == nil {
		t.Skip("no host lane on this system")
	}
	for range 5 {
		p, err := rt.Attach(ctx, proc, spec, host, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := lane().routes(); n != 2 {
			t.Fatalf("%d routes with two plugins attached", n)
		}
		p.Close()
	}
	if n := lane().routes(); n != 1 {
		t.Fatalf("%d routes after the other plugins detached, want 1 (the one still attached)", n)
	}
	if err := keep.RunCommand(ctx, "hello", ""); err != nil {
		t.Fatal(err)
	}
}
