package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/mcptest"
	"github.com/atomic-go/atomic/internal/npmpkg"
	"github.com/atomic-go/atomic/internal/testreq"
)

// mcpServerBin is the stdio test server (internal/mcptest).
func mcpServerBin(t *testing.T) string {
	return e2e.BuildPlugin(t, "./internal/mcptest/mcptestserver")
}

func mcpJSON(t *testing.T, servers map[string]any) string {
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func toolCall(id, name string, args map[string]any) map[string]any {
	return map[string]any{"toolCalls": []map[string]any{{"id": id, "name": name, "arguments": args}}}
}

// toolEnd returns the tool_execution_end of a call.
func toolEnd(t *testing.T, recs []e2e.Record, id string) e2e.Record {
	t.Helper()
	for _, r := range ofType(recs, "tool_execution_end") {
		if r["toolCallId"] == id {
			return r
		}
	}
	t.Fatalf("no tool_execution_end for %s: %v", id, e2e.Types(recs))
	return nil
}

func endText(r e2e.Record) string {
	return resultText(obj(r, "result"))
}

func mcpServers(t *testing.T, a *e2e.Agent) map[string]map[string]any {
	resp := a.MustSucceed(map[string]any{"type": "get_mcp_servers"})
	out := map[string]map[string]any{}
	for _, s := range arr(obj(resp, "data"), "servers") {
		m := s.(map[string]any)
		out[m["name"].(string)] = m
	}
	return out
}

func TestMCPToolsResourcesProgressAndEvents(t *testing.T) {
	bin := mcpServerBin(t)
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"mcp.json": mcpJSON(t, map[string]any{
			"test": map[string]any{"command": bin, "exposure": "direct"},
		})},
		Script: []map[string]any{
			toolCall("e1", "mcp__test__echo", map[string]any{"message": "hello mcp"}),
			{"text": "echoed"},
			toolCall("r1", "read_mcp_resource", map[string]any{"server": "test", "uri": "test://readme"}),
			{"text": "read"},
			toolCall("p1", "mcp__test__slow", map[string]any{"steps": 3, "delayMs": 30}),
			{"text": "slow done"},
		},
	})
	// The first prompt waits for the direct server, so its tools are in
	// the very first request.
	recs := a.PromptAndWait("call echo")
	if got := endText(toolEnd(t, recs, "e1")); got != "Echo: hello mcp" {
		t.Fatalf("echo result %q", got)
	}
	reqs := a.FauxRequests()
	if len(reqs) == 0 || !strings.Contains(mustJSON(t, reqs[0]["tools"]), "mcp__test__echo") {
		t.Fatalf("first request's tools: %v", reqs)
	}
	recs = a.PromptAndWait("read the readme")
	if got := endText(toolEnd(t, recs, "r1")); !strings.Contains(got, "Read me: the resource text.") {
		t.Fatalf("resource result %q", got)
	}
	recs = a.PromptAndWait("slow")
	if got := endText(toolEnd(t, recs, "p1")); got != "counted to 3" {
		t.Fatalf("slow result %q", got)
	}
	updates := ofType(recs, "tool_execution_update")
	if len(updates) < 2 || resultText(obj(updates[0], "partialResult")) != "step 1" {
		t.Fatalf("progress updates: %v", updates)
	}
	// get_mcp_servers, mcp_server_changed, mcp_reconnect.
	s := mcpServers(t, a)["test"]
	if s["state"] != "connected" || s["transport"] != "stdio" || s["toolCount"].(float64) < 7 || !strings.HasSuffix(str(s, "source"), "mcp.json") {
		t.Fatalf("server status %v", s)
	}
	if len(ofType(a.Records(0), "mcp_server_changed")) == 0 {
		t.Fatal("no mcp_server_changed event")
	}
	from := a.Len()
	resp := a.MustSucceed(map[string]any{"type": "mcp_reconnect", "name": "test"})
	if str(obj(obj(resp, "data"), "server"), "state") != "connected" {
		t.Fatalf("reconnect: %v", resp)
	}
	var states []string
	for _, r := range ofType(a.Records(from), "mcp_server_changed") {
		states = append(states, str(obj(r, "server"), "state"))
	}
	if strings.Join(states, ",") != "disconnected,connecting,connected" {
		t.Fatalf("states during reconnect: %v", states)
	}
	if r := a.Request(map[string]any{"type": "mcp_reconnect", "name": "nope"}); r["success"] != false {
		t.Fatalf("unknown server: %v", r)
	}
	if r := a.Request(map[string]any{"type": "mcp_reconnect"}); r["success"] != false {
		t.Fatalf("missing name: %v", r)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMCPAbortTimeoutCrashAndNeverStarts(t *testing.T) {
	bin := mcpServerBin(t)
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"mcp.json": mcpJSON(t, map[string]any{
			"t":     map[string]any{"command": bin, "exposure": "direct", "env": map[string]string{"MCP_TEST_CANCEL_FILE": cancelFile}},
			"quick": map[string]any{"command": bin, "exposure": "direct", "timeout": 1},
			"dead":  map[string]any{"command": bin, "timeout": 1, "env": map[string]string{"MCP_TEST_NEVER_START": "1"}},
		})},
		Script: []map[string]any{
			toolCall("h1", "mcp__t__hang", map[string]any{}),
			toolCall("q1", "mcp__quick__hang", map[string]any{}),
			{"text": "after timeout"},
			toolCall("c1", "mcp__t__crash", map[string]any{}),
			{"text": "after crash"},
			toolCall("e1", "mcp__t__echo", map[string]any{"message": "again"}),
			{"text": "reconnected"},
		},
	})
	// Abort in the middle of a call: the request is cancelled on the
	// server too.
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "hang"})
	a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool { return r.Type() == "tool_execution_start" })
	time.Sleep(100 * time.Millisecond) // the request reaches the server
	a.MustSucceed(map[string]any{"type": "abort"})
	end := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool { return r.Type() == "tool_execution_end" })
	if end["isError"] != true {
		t.Fatalf("aborted call: %v", end)
	}
	a.WaitFrom(from, 10*time.Second, isType("agent_settled"))
	waitFile(t, cancelFile, "cancelled")

	// A hanging server times out (timeout 1 s).
	recs := a.PromptAndWait("timeout")
	if got := endText(toolEnd(t, recs, "q1")); !strings.Contains(got, "timed out after 1s") {
		t.Fatalf("timeout result %q", got)
	}
	// A crash in the middle of a call is an error result; the server is
	// shown as disconnected and the next call connects again.
	recs = a.PromptAndWait("crash")
	if got := endText(toolEnd(t, recs, "c1")); !strings.Contains(got, "disconnected") {
		t.Fatalf("crash result %q", got)
	}
	recs = a.PromptAndWait("echo")
	if got := endText(toolEnd(t, recs, "e1")); got != "Echo: again" {
		t.Fatalf("echo after crash %q", got)
	}
	// The server that never starts is reported as failed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := mcpServers(t, a)["dead"]
		if s["state"] == "failed" && strings.Contains(str(s, "error"), "initialize") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never-starting server: %v", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, _ := os.ReadFile(path); strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never got %q", path, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMCPDeferredSearchPath(t *testing.T) {
	bin := mcpServerBin(t)
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"mcp.json": mcpJSON(t, map[string]any{
			"big": map[string]any{"command": bin, "env": map[string]string{"MCP_TEST_EXTRA_TOOLS": "200"}, "description": "Weather stations"},
		})},
		Script: []map[string]any{
			toolCall("s1", "mcp_tool_search", map[string]any{"query": "weather station 42"}),
			toolCall("x1", "mcp__big__extra_42", map[string]any{}),
			{"text": "done"},
		},
	})
	recs := a.PromptAndWait("find the tool")
	if got := endText(toolEnd(t, recs, "s1")); !strings.Contains(got, "mcp__big__extra_42") {
		t.Fatalf("search result %q", got)
	}
	if got := endText(toolEnd(t, recs, "x1")); got != "extra_42 ran" {
		t.Fatalf("loaded tool result %q", got)
	}
	reqs := a.FauxRequests()
	first, second := mustJSON(t, reqs[0]["tools"]), mustJSON(t, reqs[1]["tools"])
	if strings.Contains(first, "mcp__big__") || !strings.Contains(first, "mcp_tool_search") {
		t.Fatalf("the first request declares deferred tools: %.300s", first)
	}
	if !strings.Contains(second, "mcp__big__extra_42") || strings.Contains(second, "mcp__big__extra_41\"") {
		t.Fatalf("the second request's tools: %.300s", second)
	}
	if !strings.Contains(str(reqs[0], "systemPrompt"), "big (Weather stations)") {
		t.Fatalf("system prompt does not list the deferred server")
	}
}

func TestMCPProjectTrust(t *testing.T) {
	bin := mcpServerBin(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".atomic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".atomic", "mcp.json"), []byte(mcpJSON(t, map[string]any{
		"proj": map[string]any{"command": bin},
		"user": map[string]any{"enabled": false}, // an override of the user's server
	})), 0o644); err != nil {
		t.Fatal(err)
	}
	user := mcpJSON(t, map[string]any{"user": map[string]any{"command": bin}})
	a := e2e.Start(t, e2e.Options{Dir: dir, AgentFiles: map[string]string{"mcp.json": user}})
	s := mcpServers(t, a)
	if _, ok := s["proj"]; ok || s["user"] == nil || s["user"]["enabled"] != true {
		t.Fatalf("untrusted project's servers used: %v", s)
	}
	a = e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--trust-project"}, AgentFiles: map[string]string{"mcp.json": user}})
	s = mcpServers(t, a)
	if s["proj"] == nil || s["proj"]["scope"] != "project" || s["user"]["enabled"] != false || s["user"]["state"] != "disabled" {
		t.Fatalf("trusted project's servers: %v", s)
	}
}

func TestMCPSecretsNotLeaked(t *testing.T) {
	bin := mcpServerBin(t)
	const secret = "sk-very-secret-4242"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mcptest.Handler(mcptest.Options{})}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = srv.Close()
	})
	a := e2e.Start(t, e2e.Options{
		Args: []string{"--log-level", "debug"},
		Env:  map[string]string{"H16_SECRET": secret},
		AgentFiles: map[string]string{"mcp.json": mcpJSON(t, map[string]any{
			"s":   map[string]any{"command": bin, "exposure": "direct", "env": map[string]string{"MCP_TEST_SECRET": "${H16_SECRET}"}},
			"web": map[string]any{"url": "http://" + ln.Addr().String() + "/mcp", "exposure": "direct", "headers": map[string]string{"Authorization": "Bearer ${H16_SECRET}"}},
		})},
		Script: []map[string]any{
			toolCall("w1", "mcp__web__echo", map[string]any{"message": "over http"}),
			toolCall("c1", "mcp__s__crash", map[string]any{}),
			{"text": "done"},
		},
	})
	recs := a.PromptAndWait("go")
	if got := endText(toolEnd(t, recs, "w1")); got != "Echo: over http" {
		t.Fatalf("http echo %q", got)
	}
	endText(toolEnd(t, recs, "c1"))
	servers := mcpServers(t, a)
	if !strings.Contains(str(servers["s"], "stderrTail"), "secret ***") {
		t.Fatalf("stderr tail: %v", servers["s"])
	}
	sess := a.MustSucceed(map[string]any{"type": "get_state"})
	file := str(obj(sess, "data"), "sessionFile")
	export := filepath.Join(t.TempDir(), "out.html")
	a.MustSucceed(map[string]any{"type": "export_html", "outputPath": export})
	a.CloseStdin()
	a.Wait(20 * time.Second)
	for what, text := range map[string]string{"stdout": string(joinLines(a.RawLines())), "stderr": a.Stderr(), "session": readFile(t, file), "export": readFile(t, export)} {
		if strings.Contains(text, secret) {
			i := strings.Index(text, secret)
			t.Errorf("the secret is in %s: …%s…", what, text[max(0, i-200):min(len(text), i+50)])
		}
	}
	if !strings.Contains(a.Stderr(), "mcp server") {
		t.Fatalf("the log has no MCP lines (is the check looking at the right log?)")
	}
}

func joinLines(lines [][]byte) []byte {
	var out []byte
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// pi.registerMcpServer from a script in the agent's process, from an
// isolated script (over the plugin protocol's RegisterMcpServer, which Go
// plugins use too), and from a session_start handler.
func TestMCPExtensionRegistersServer(t *testing.T) {
	for _, tc := range []struct{ name, isolation, when string }{ // isolation: "", "process" or "node" (the Node runtime)
		{"in-process", "", "factory"},
		{"isolated", "process", "factory"},
		{"isolated-session-start", "process", "session_start"},
		{"node", "node", "factory"},
	} {
		t.Run(tc.name, func(t *testing.T) { testExtensionRegistersServer(t, tc.isolation, tc.when) })
	}
}

func testExtensionRegistersServer(t *testing.T, isolation, when string) {
	bin := mcpServerBin(t)
	dir := t.TempDir()
	ext := filepath.Join(dir, "reg.js")
	call := `pi.registerMcpServer("fromext", { command: ` + mustJSON(t, bin) + `, exposure: "direct" });`
	if when == "session_start" {
		call = `pi.on("session_start", () => { ` + call + ` });`
	}
	src := `module.exports = function (pi) { ` + call + ` };`
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := e2e.Options{
		Args:   []string{"-e", ext},
		Script: []map[string]any{toolCall("e1", "mcp__fromext__echo", map[string]any{"message": "ext"}), {"text": "ok"}},
	}
	if isolation == "node" {
		if _, err := exec.LookPath("node"); err != nil {
			testreq.Missing(t, "node", "node is not on PATH (.ci/run installs Debian's nodejs)")
		}
		b, err := json.Marshal(map[string]any{"extensionRuntime": "node"})
		if err != nil {
			t.Fatal(err)
		}
		opts.AgentFiles = map[string]string{"settings.json": string(b)}
	} else if isolation != "" {
		b, err := json.Marshal(map[string]any{"extensions": []map[string]any{{"path": ext, "isolation": isolation}}})
		if err != nil {
			t.Fatal(err)
		}
		opts.Args = nil
		opts.AgentFiles = map[string]string{"settings.json": string(b)}
	}
	a := e2e.Start(t, opts)
	// Wait until the server is registered and connected: session_start is
	// a notification (the prompt does not wait for its handlers), and on a
	// loaded machine the server may take longer to start than the first
	// prompt's bounded wait for direct servers; that bound is not what
	// this test is about.
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := mcpServers(t, a)["fromext"]
		if s != nil && s["state"] == "connected" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server was never registered and connected: %v", mcpServers(t, a))
		}
		time.Sleep(20 * time.Millisecond)
	}
	recs := a.PromptAndWait("go")
	if got := endText(toolEnd(t, recs, "e1")); got != "Echo: ext" {
		t.Fatalf("echo %q", got)
	}
	s := mcpServers(t, a)["fromext"]
	if s["scope"] != "extension" || !strings.HasPrefix(str(s, "source"), "extension:") {
		t.Fatalf("status %v", s)
	}
}

// The official reference servers from npm, over stdio.
func TestMCPReferenceServers(t *testing.T) {
	const version = "2026.8.31"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var dirs []string
	for _, name := range []string{"@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem"} {
		inst, err := npmpkg.Ensure(ctx, name, version)
		if errors.Is(err, npmpkg.ErrUnreachable) {
			testreq.Missing(t, "npm", "the MCP reference servers: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, inst.PackageDir())
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello from the filesystem server"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := e2e.Start(t, e2e.Options{
		Dir: work,
		AgentFiles: map[string]string{"mcp.json": mcpJSON(t, map[string]any{
			"everything": map[string]any{"command": "node", "args": []string{filepath.Join(dirs[0], "dist", "index.js"), "stdio"}, "exposure": "direct"},
			"fs":         map[string]any{"command": "node", "args": []string{filepath.Join(dirs[1], "dist", "index.js"), "."}, "toolExposure": map[string]string{"read_text_file": "direct"}},
		})},
		Script: []map[string]any{
			toolCall("e1", "mcp__everything__echo", map[string]any{"message": "reference"}),
			toolCall("f1", "mcp__fs__read_text_file", map[string]any{"path": filepath.Join(work, "notes.txt")}),
			toolCall("r1", "list_mcp_resources", map[string]any{"server": "everything"}),
			{"text": "done"},
		},
	})
	recs := a.PromptAndWait("use the reference servers")
	if got := endText(toolEnd(t, recs, "e1")); !strings.Contains(got, "reference") {
		t.Fatalf("everything echo %q", got)
	}
	if got := endText(toolEnd(t, recs, "f1")); got != "hello from the filesystem server" {
		t.Fatalf("filesystem read %q (%v)", got, mcpServers(t, a)["fs"])
	}
	if got := endText(toolEnd(t, recs, "r1")); !strings.Contains(got, `"uri":`) {
		t.Fatalf("resources %q", got)
	}
}

// pi.getMcpServers lists what extensions registered (pi's
// {name, config, extensionPath}), a name another extension registered is
// refused, and pi.unregisterMcpServer takes the server away; in goja and
// in Node.
func TestMCPExtensionUnregistersAndLists(t *testing.T) {
	for _, runtime := range []string{"goja", "node"} {
		t.Run(runtime, func(t *testing.T) {
			if runtime == "node" {
				if _, err := exec.LookPath("node"); err != nil {
					testreq.Missing(t, "node", "node is not on PATH (.ci/run installs Debian's nodejs)")
				}
			}
			bin := mcpServerBin(t)
			dir := t.TempDir()
			owner := filepath.Join(dir, "owner.js")
			other := filepath.Join(dir, "other.js")
			srcs := map[string]string{
				owner: `module.exports = function (pi) {
  pi.registerMcpServer("fromext", { command: ` + mustJSON(t, bin) + `, exposure: "direct" });
  pi.registerCommand("servers", { handler: async (_a, ctx) => {
    ctx.ui.notify("servers " + JSON.stringify(pi.getMcpServers().map((s) => [s.name, s.config.exposure, require("path").basename(s.extensionPath)])));
  } });
  pi.registerCommand("drop", { handler: async () => { pi.unregisterMcpServer("fromext"); } });
};`,
				other: `module.exports = function (pi) {
  pi.registerCommand("steal", { handler: async (_a, ctx) => {
    pi.unregisterMcpServer("fromext"); // not its own: left alone
    try { pi.registerMcpServer("fromext", { command: "true" }); ctx.ui.notify("steal taken"); }
    catch (e) { ctx.ui.notify("steal refused: " + e.message); }
  } });
};`,
			}
			for p, src := range srcs {
				if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, _ := json.Marshal(map[string]any{"extensionRuntime": runtime})
			a := e2e.Start(t, e2e.Options{Args: []string{"-e", owner, "-e", other}, AgentFiles: map[string]string{"settings.json": string(b)}})
			notice := func(command, prefix string) string {
				from := a.Len()
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/" + command})
				r := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
					m, _ := r["message"].(string)
					return r.Type() == "extension_ui_request" && strings.HasPrefix(m, prefix)
				})
				return r["message"].(string)
			}
			if got := notice("servers", "servers "); got != `servers [["fromext","direct","owner.js"]]` {
				t.Errorf("getMcpServers: %s", got)
			}
			if got := notice("steal", "steal "); !strings.Contains(got, "refused") || !strings.Contains(got, "registered by another extension") {
				t.Errorf("another extension's name: %s", got)
			}
			if mcpServers(t, a)["fromext"] == nil {
				t.Fatalf("the server went: %v", mcpServers(t, a))
			}
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/drop"})
			if s := mcpServers(t, a)["fromext"]; s != nil {
				t.Errorf("after unregisterMcpServer: %v", s)
			}
			if got := notice("servers", "servers "); got != "servers []" {
				t.Errorf("getMcpServers after: %s", got)
			}
		})
	}
}
