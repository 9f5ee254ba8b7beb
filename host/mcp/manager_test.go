package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/leaktest"
	"github.com/atomic-go/atomic/internal/mcptest"
)

var testServerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "atomic-mcp-test-")
	if err != nil {
		panic(err)
	}
	testServerBin = filepath.Join(dir, "mcptestserver")
	out, err := exec.Command("go", "build", "-o", testServerBin, "github.com/atomic-go/atomic/internal/mcptest/mcptestserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the test server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := leaktest.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

type harness struct {
	t   *testing.T
	reg *tools.Registry
	m   *Manager

	mu      sync.Mutex
	changes []Status
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, reg: tools.NewRegistry()}
	h.m = NewManager(Options{Tools: h.reg, Cwd: t.TempDir, OnChange: func(s Status) {
		h.mu.Lock()
		h.changes = append(h.changes, s)
		h.mu.Unlock()
	}})
	t.Cleanup(h.m.Close)
	return h
}

func stdioServer(name string, extra map[string]any) Server {
	raw := map[string]any{"command": testServerBin}
	for k, v := range extra {
		raw[k] = v
	}
	b, _ := json.Marshal(raw)
	cfg, err := Validate(name, b)
	if err != nil {
		panic(err)
	}
	return Server{Name: name, Config: cfg, Source: "test", Scope: ScopeUser}
}

func (h *harness) apply(servers ...Server) {
	h.m.Apply(servers, nil)
	h.m.WaitAll(context.Background(), 20*time.Second)
}

func (h *harness) tool(name string) tools.Tool {
	h.t.Helper()
	t, ok := h.reg.Get(name)
	if !ok {
		var names []string
		for _, t := range h.reg.All() {
			names = append(names, t.Name())
		}
		h.t.Fatalf("tool %s not registered; have %v; servers %+v", name, names, h.m.Statuses())
	}
	return t
}

func (h *harness) call(name string, args map[string]any) (llm.ToolResult, error) {
	return h.callCtx(context.Background(), name, args, nil)
}

func (h *harness) callCtx(ctx context.Context, name string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	h.t.Helper()
	return h.tool(name).Execute(ctx, tools.Call{ID: "c1", Args: args, OnUpdate: update})
}

func (h *harness) status(name string) Status {
	for _, s := range h.m.Statuses() {
		if s.Name == name {
			return s
		}
	}
	h.t.Fatalf("no server %s", name)
	return Status{}
}

func TestStdioToolsDirect(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("test-srv", map[string]any{"exposure": "direct"}))
	if st := h.status("test-srv"); st.State != StateConnected || st.ToolCount < 7 {
		t.Fatalf("status %+v", st)
	}
	if !h.reg.IsActive("mcp__test_srv__echo") {
		t.Fatalf("direct tool not active: %v", h.reg.ActiveNames())
	}
	res, err := h.call("mcp__test_srv__echo", map[string]any{"message": "hi"})
	if err != nil || res.ResultText() != "Echo: hi" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	res, err = h.call("mcp__test_srv__image", nil)
	if err != nil || len(res.Content) != 2 || res.Content[1].Type != llm.BlockImage || res.Content[1].MimeType != "image/png" {
		t.Fatalf("image = %+v, %v", res, err)
	}
	_, err = h.call("mcp__test_srv__fail", nil)
	if err == nil || !strings.Contains(err.Error(), "failed on purpose") {
		t.Fatalf("isError result = %v", err)
	}
	// Resource tools appear for a server with resources.
	res, err = h.call(readResourceTool, map[string]any{"server": "test-srv", "uri": "test://readme"})
	if err != nil || !strings.Contains(res.ResultText(), "Read me") {
		t.Fatalf("read resource = %+v, %v", res, err)
	}
	res, err = h.call(listResourcesTool, map[string]any{})
	if err != nil || !strings.Contains(res.ResultText(), `"uri":"test://readme"`) {
		t.Fatalf("list resources = %+v, %v", res, err)
	}
}

func TestProgressResetsTimeout(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("p", map[string]any{"exposure": "direct", "timeout": 0.4}))
	var mu sync.Mutex
	var updates []string
	// 6 steps of 150 ms: 900 ms in all, longer than the timeout, but
	// every step reports progress.
	res, err := h.callCtx(context.Background(), "mcp__p__slow", map[string]any{"steps": 6, "delayMs": 150}, func(r llm.ToolResult) {
		mu.Lock()
		updates = append(updates, r.ResultText())
		mu.Unlock()
	})
	if err != nil || res.ResultText() != "counted to 6" {
		t.Fatalf("slow = %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	// (The last notification may arrive after the result.)
	if len(updates) < 5 || updates[0] != "step 1" {
		t.Fatalf("progress updates %q", updates)
	}
	// Without progress the same timeout ends the call.
	began := time.Now()
	_, err = h.call("mcp__p__hang", nil)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("hang = %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
}

func TestAbortCancelsRequest(t *testing.T) {
	h := newHarness(t)
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	h.apply(stdioServer("a", map[string]any{"exposure": "direct", "env": map[string]string{"MCP_TEST_CANCEL_FILE": cancelFile}}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.callCtx(ctx, "mcp__a__hang", nil, nil)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the request reach the server
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("aborted call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("abort did not end the call")
	}
	// The server saw notifications/cancelled.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, _ := os.ReadFile(cancelFile); strings.Contains(string(b), "cancelled") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The server still works.
	if res, err := h.call("mcp__a__echo", map[string]any{"message": "after"}); err != nil || res.ResultText() != "Echo: after" {
		t.Fatalf("echo after abort = %+v, %v", res, err)
	}
}

func TestCrashReportedAndReconnected(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("c", map[string]any{"exposure": "direct", "env": map[string]string{"MCP_TEST_SECRET": "hunter2-secret-value"}}))
	_, err := h.call("mcp__c__crash", nil)
	if err == nil || !strings.Contains(err.Error(), "disconnected") {
		t.Fatalf("crash = %v", err)
	}
	if strings.Contains(err.Error(), "hunter2-secret-value") {
		t.Fatalf("secret in the error: %v", err)
	}
	// The failed call returns only once the server is marked
	// disconnected, so that the next call connects again instead of
	// finding the dead session.
	st := h.status("c")
	if st.State != StateDisconnected {
		t.Fatalf("state right after the crash: %+v", st)
	}
	if strings.Contains(st.StderrTail+st.Error, "hunter2-secret-value") || !strings.Contains(st.StderrTail, "crashing now (secret ***)") {
		t.Fatalf("stderr tail not redacted: %+v", st)
	}
	// The next call connects again.
	if res, err := h.call("mcp__c__echo", map[string]any{"message": "back"}); err != nil || res.ResultText() != "Echo: back" {
		t.Fatalf("echo after crash = %+v, %v", res, err)
	}
	if st := h.status("c"); st.State != StateConnected {
		t.Fatalf("state after reconnect: %+v", st)
	}
}

func TestNeverStarts(t *testing.T) {
	h := newHarness(t)
	began := time.Now()
	h.apply(stdioServer("n", map[string]any{"exposure": "direct", "timeout": 0.5, "env": map[string]string{"MCP_TEST_NEVER_START": "1"}}))
	st := h.status("n")
	if st.State != StateFailed || !strings.Contains(st.Error, "initialize") {
		t.Fatalf("status %+v", st)
	}
	if d := time.Since(began); d > 8*time.Second {
		t.Fatalf("took %v", d)
	}
	// A command that does not exist fails with its error.
	h.apply(Server{Name: "missing", Config: ServerConfig{Command: "/nonexistent/mcp-server"}, Source: "test"})
	if st := h.status("missing"); st.State != StateFailed || !strings.Contains(st.Error, "no such file") {
		t.Fatalf("missing command: %+v", st)
	}
}

func TestToolListChanged(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("l", map[string]any{"exposure": "direct"}))
	if _, ok := h.reg.Get("mcp__l__added"); ok {
		t.Fatal("added exists before")
	}
	if _, err := h.call("mcp__l__add_tool", nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !h.reg.IsActive("mcp__l__added") {
		if time.Now().After(deadline) {
			t.Fatalf("added never appeared: %v", h.reg.ActiveNames())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if res, err := h.call("mcp__l__added", nil); err != nil || res.ResultText() != "added works" {
		t.Fatalf("added = %+v, %v", res, err)
	}
}

func TestDeferredSearch(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("big", map[string]any{"env": map[string]string{"MCP_TEST_EXTRA_TOOLS": "200"}}))
	if st := h.status("big"); st.ToolCount < 200 || st.Exposure != tools.ExposureDeferred {
		t.Fatalf("status %+v", st)
	}
	active := strings.Join(h.reg.ActiveNames(), " ")
	if strings.Contains(active, "mcp__") || !strings.Contains(active, SearchToolName) {
		t.Fatalf("active tools with a deferred server: %v", active)
	}
	res, err := h.call(SearchToolName, map[string]any{"query": "weather station 137"})
	if err != nil || !strings.Contains(res.ResultText(), "mcp__big__extra_137") {
		t.Fatalf("search = %+v, %v", res, err)
	}
	if !h.reg.IsActive("mcp__big__extra_137") {
		t.Fatalf("found tool not loaded: %v", h.reg.ActiveNames())
	}
	res, err = h.call(SearchToolName, map[string]any{"query": "echo"})
	if err != nil || !strings.HasPrefix(strings.Split(res.ResultText(), "\n")[1], "- mcp__big__echo") {
		t.Fatalf("exact name search = %+v, %v", res, err)
	}
}

func TestHTTPServerWithHeaders(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	inner := mcptest.Handler(mcptest.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the manager's cleanup (it holds a stream open)
	t.Setenv("H16_TEST_TOKEN", "tok-123")
	h := newHarness(t)
	raw, _ := json.Marshal(map[string]any{"url": srv.URL, "headers": map[string]string{"Authorization": "Bearer ${H16_TEST_TOKEN}"}, "exposure": "direct"})
	cfg, err := Validate("web", raw)
	if err != nil {
		t.Fatal(err)
	}
	h.apply(Server{Name: "web", Config: cfg, Source: "test"})
	res, err := h.call("mcp__web__echo", map[string]any{"message": "over http"})
	if err != nil || res.ResultText() != "Echo: over http" {
		t.Fatalf("echo = %+v, %v (%+v)", res, err, h.status("web"))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) == 0 || auths[0] != "Bearer tok-123" {
		t.Fatalf("Authorization headers %q", auths)
	}
	if st := h.status("web"); st.Transport != "http" {
		t.Fatalf("status %+v", st)
	}
}

func TestUnsetVariableFails(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("v", map[string]any{"env": map[string]string{"TOKEN": "${H16_SURELY_UNSET_VAR}"}}))
	if st := h.status("v"); st.State != StateFailed || !strings.Contains(st.Error, "H16_SURELY_UNSET_VAR is not set") {
		t.Fatalf("status %+v", st)
	}
}

func TestStopKillsProcessGroup(t *testing.T) {
	h := newHarness(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// A wrapper shell that stays the parent of the server (like npx), and
	// ignores SIGTERM... its group still dies.
	script := fmt.Sprintf("trap '' TERM; %s; echo done >&2", testServerBin)
	h.apply(Server{Name: "w", Source: "test", Config: ServerConfig{Command: "sh", Args: []string{"-c", script}, Env: map[string]string{"MCP_TEST_PID_FILE": pidFile}, Exposure: tools.ExposureDirect}})
	if st := h.status("w"); st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	h.m.Apply(nil, nil) // the server is no longer configured
	if _, ok := h.reg.Get("mcp__w__echo"); ok {
		t.Fatal("tools of a removed server remain")
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("server process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
