package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// startWithPlugins starts the agent with test plugins given as -e
// directories; each entry of plugins is the testplugin's flags.
func startWithPlugins(t *testing.T, script []map[string]any, plugins ...[]string) *e2e.Agent {
	t.Helper()
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	dir := t.TempDir()
	var args []string
	for i, p := range plugins {
		pd := e2e.PluginDir(t, dir, fmt.Sprintf("p%d", i), bin, p...)
		args = append(args, "-e", pd)
	}
	return e2e.Start(t, e2e.Options{Args: args, Script: script})
}

// extensionCommands returns the get_commands entries of extensions.
func extensionCommands(t *testing.T, a *e2e.Agent) []any {
	t.Helper()
	var out []any
	for _, c := range a.MustSucceed(map[string]any{"type": "get_commands"})["data"].(map[string]any)["commands"].([]any) {
		if c.(map[string]any)["source"] == "extension" {
			out = append(out, c)
		}
	}
	return out
}

func extErrors(recs []e2e.Record) []e2e.Record {
	var out []e2e.Record
	for _, r := range recs {
		if r.Type() == "extension_error" {
			out = append(out, r)
		}
	}
	return out
}

func toolResults(recs []e2e.Record) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r.Type() != "message_end" {
			continue
		}
		m, _ := r["message"].(map[string]any)
		if m["role"] == "toolResult" {
			out = append(out, m)
		}
	}
	return out
}

func resultText(m map[string]any) string {
	var sb strings.Builder
	blocks, _ := m["content"].([]any)
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok {
			s, _ := bm["text"].(string)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

func bashCall(cmd string) map[string]any {
	return map[string]any{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": cmd}}}}
}

func TestExtensionCancelsNewSession(t *testing.T) {
	a := startWithPlugins(t, nil, []string{"--cancel-new"})
	before := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"]
	r := a.MustSucceed(map[string]any{"type": "new_session"})
	if r["data"].(map[string]any)["cancelled"] != true {
		t.Fatalf("new_session not cancelled: %v", r)
	}
	after := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"]
	if before != after {
		t.Fatal("the session was replaced although cancelled")
	}
}

func TestNewSessionWithoutCancelReplaces(t *testing.T) {
	a := startWithPlugins(t, nil, []string{"--observe", "session_start"})
	before := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"]
	r := a.MustSucceed(map[string]any{"type": "new_session"})
	if r["data"].(map[string]any)["cancelled"] != false {
		t.Fatalf("%v", r)
	}
	after := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"]
	if before == after {
		t.Fatal("session not replaced")
	}
}

func TestBlockAndModifyBashToolCalls(t *testing.T) {
	script := []map[string]any{
		bashCall("echo hello && rm -rf /nonexistent-dir"),
		{"text": "ok"},
		bashCall("echo original"),
		{"text": "done"},
	}
	a := startWithPlugins(t, script, []string{"--block-bash", "rm -rf"}, []string{"--rewrite-bash", "original=rewritten"})
	recs := a.PromptAndWait("first")
	res := toolResults(recs)
	if len(res) != 1 || res[0]["isError"] != true || !strings.Contains(resultText(res[0]), "blocked by testplugin: rm -rf") {
		t.Fatalf("block: %v", res)
	}
	recs = a.PromptAndWait("second")
	res = toolResults(recs)
	if len(res) != 1 || res[0]["isError"] == true || !strings.Contains(resultText(res[0]), "rewritten") {
		t.Fatalf("modify: %v", res)
	}
	// The model saw the blocked reason as the tool result.
	reqs := a.FauxRequests()
	if !strings.Contains(fmt.Sprint(reqs[1]["messages"]), "blocked by testplugin") {
		t.Fatal("the model did not see the block reason")
	}
}

func TestPatchToolResult(t *testing.T) {
	script := []map[string]any{bashCall("echo from-bash"), {"text": "ok"}}
	a := startWithPlugins(t, script, []string{"--patch-result", "bash"})
	recs := a.PromptAndWait("go")
	res := toolResults(recs)
	if len(res) != 1 || !strings.HasPrefix(resultText(res[0]), "patched: ") || !strings.Contains(resultText(res[0]), "from-bash") {
		t.Fatalf("not patched: %v", res)
	}
	if d, _ := res[0]["details"].(map[string]any); d["patchedBy"] != "testplugin" {
		t.Fatalf("details not patched: %v", res[0]["details"])
	}
	var end e2e.Record
	for _, r := range recs {
		if r.Type() == "tool_execution_end" {
			end = r
		}
	}
	if !strings.Contains(fmt.Sprint(end["result"]), "patched: ") {
		t.Fatalf("tool_execution_end not patched: %v", end)
	}
}

func TestPluginCommandDuringStreamingAndCompletions(t *testing.T) {
	script := []map[string]any{{"text": "a slow answer", "chunks": 20, "delayMs": 50}}
	a := startWithPlugins(t, script, []string{"--command", "hello"})
	cmds := extensionCommands(t, a)
	if len(cmds) != 1 {
		t.Fatalf("commands: %v", cmds)
	}
	st := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
	if len(st) != 1 || fmt.Sprint(st[0].(map[string]any)["commands"]) != "[hello]" || st[0].(map[string]any)["name"] != "testplugin" {
		t.Fatalf("get_extensions: %v", st)
	}
	c := cmds[0].(map[string]any)
	if c["name"] != "hello" || c["source"] != "extension" || !strings.HasSuffix(fmt.Sprint(c["path"]), "p0") {
		t.Fatalf("command entry: %v", c)
	}
	comp := a.MustSucceed(map[string]any{"type": "get_command_completions", "commandName": "hello", "argumentPrefix": "g"})
	items := comp["data"].(map[string]any)["completions"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["value"] != "gamma" {
		t.Fatalf("completions: %v", comp)
	}
	none := a.MustSucceed(map[string]any{"type": "get_command_completions", "commandName": "nope", "argumentPrefix": ""})
	if none["data"].(map[string]any)["completions"] != nil {
		t.Fatalf("unknown command completions: %v", none)
	}

	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "tell me"})
	a.WaitType(from, "message_update")
	r := a.Request(map[string]any{"type": "prompt", "message": "/hello during stream"})
	if r["success"] != true {
		t.Fatalf("command while streaming: %v", r)
	}
	msg := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		if r.Type() != "message_end" {
			return false
		}
		m, _ := r["message"].(map[string]any)
		return m["role"] == "custom"
	})
	if !strings.Contains(fmt.Sprint(msg["message"]), "command ran: during stream") {
		t.Fatalf("custom message: %v", msg)
	}
	a.WaitType(from, "agent_end")
	// steer refuses extension commands.
	r = a.Request(map[string]any{"type": "steer", "message": "/hello x"})
	if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "cannot be queued") {
		t.Fatalf("steer: %v", r)
	}
	// A failing command is an extension_error and the agent keeps serving.
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/hello fail"})
	e := a.WaitType(from, "extension_error")
	if e["extensionPath"] != "command:hello" || e["event"] != "command" {
		t.Fatalf("%v", e)
	}
}

func TestPluginToolCalledByModel(t *testing.T) {
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "echo", "arguments": map[string]any{"text": "hi there"}}}},
		{"toolCalls": []map[string]any{{"name": "echo", "arguments": map[string]any{"wrong": 1}}}},
		{"text": "done"},
	}
	a := startWithPlugins(t, script, []string{"--tool", "echo"})
	recs := a.PromptAndWait("use the tool")
	var updates int
	for _, r := range recs {
		if r.Type() == "tool_execution_update" && r["toolName"] == "echo" {
			updates++
		}
	}
	if updates != 2 {
		t.Fatalf("want 2 streamed updates, got %d", updates)
	}
	res := toolResults(recs)
	if len(res) != 2 || resultText(res[0]) != "echo: hi there" || res[0]["isError"] == true {
		t.Fatalf("results: %v", res)
	}
	if res[1]["isError"] != true || !strings.Contains(resultText(res[1]), "Validation failed") {
		t.Fatalf("schema validation: %v", res[1])
	}
	// The tool was offered to the model with its schema.
	tools := fmt.Sprint(a.FauxRequests()[0]["tools"])
	if !strings.Contains(tools, "echo") || !strings.Contains(tools, "Echoes its text") {
		t.Fatalf("tool not offered: %s", tools)
	}
}

func TestUIDialogRoundTripAndTimeout(t *testing.T) {
	script := []map[string]any{bashCall("echo confirmed-run"), {"text": "ok"}, bashCall("echo second"), {"text": "ok"}}
	a := startWithPlugins(t, script, []string{"--confirm-bash"})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	req := a.WaitType(from, "extension_ui_request")
	if req["method"] != "confirm" || req["title"] != "Run bash?" || req["message"] != "echo confirmed-run" {
		t.Fatalf("ui request: %v", req)
	}
	if id, _ := req["id"].(string); len(id) != 36 {
		t.Fatalf("id is not a uuid: %v", req["id"])
	}
	a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	a.WaitType(from, "agent_end")
	res := toolResults(a.Records(from))
	if len(res) != 1 || res[0]["isError"] == true || !strings.Contains(resultText(res[0]), "confirmed-run") {
		t.Fatalf("confirmed call: %v", res)
	}

	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "again"})
	req = a.WaitType(from, "extension_ui_request")
	a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "cancelled": true})
	a.WaitType(from, "agent_end")
	res = toolResults(a.Records(from))
	if len(res) != 1 || res[0]["isError"] != true || !strings.Contains(resultText(res[0]), "declined") {
		t.Fatalf("declined call: %v", res)
	}
}

func TestUIDialogTimeoutEnforcedByHost(t *testing.T) {
	script := []map[string]any{bashCall("echo x"), {"text": "ok"}, bashCall("echo y"), {"text": "ok"}}
	a := startWithPlugins(t, script, []string{"--confirm-bash", "--confirm-timeout-ms", "300"})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	req := a.WaitType(from, "extension_ui_request")
	if req["timeout"] != float64(300) {
		t.Fatalf("timeout not passed to the client: %v", req)
	}
	// No answer: the agent resolves the dialog to its default (false).
	start := time.Now()
	a.WaitType(from, "agent_end")
	if time.Since(start) > 5*time.Second {
		t.Fatal("the dialog timeout was not enforced")
	}
	res := toolResults(a.Records(from))
	if len(res) != 1 || !strings.Contains(resultText(res[0]), "declined") {
		t.Fatalf("%v", res)
	}
	// A late answer is ignored, and the agent keeps serving.
	a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	a.MustSucceed(map[string]any{"type": "get_state"})

	// Abort resolves a pending dialog at once.
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "again"})
	a.WaitType(from, "extension_ui_request")
	start = time.Now()
	a.MustSucceed(map[string]any{"type": "abort"})
	if time.Since(start) > 5*time.Second {
		t.Fatal("abort waited for the dialog")
	}
}

func TestPrintModeDialogsResolveToDefaults(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	pd := e2e.PluginDir(t, t.TempDir(), "p", bin, "--confirm-bash")
	script := []map[string]any{bashCall("echo should-not-run"), {"text": "finished"}}
	a := e2e.Start(t, e2e.Options{NoMode: true, RawStdout: true, Args: []string{"-p", "-e", pd, "go"}, Script: script})
	a.CloseStdin() // piped stdin is read to its end first, as pi 1.6 reads it
	start := time.Now()
	if code := a.Wait(20 * time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, a.Stderr())
	}
	if time.Since(start) > 15*time.Second {
		t.Fatal("print mode waited for a dialog")
	}
	reqs := a.FauxRequests()
	if len(reqs) != 2 || !strings.Contains(fmt.Sprint(reqs[1]["messages"]), "the user declined") {
		t.Fatalf("the confirm did not resolve to false: %v", reqs)
	}
	for _, line := range a.RawLines() {
		if bytes.Contains(line, []byte("extension_ui_request")) {
			t.Fatal("print mode emitted a UI request")
		}
	}
}

func TestBeforeAgentStartChangesSystemPromptAndInjects(t *testing.T) {
	a := startWithPlugins(t, []map[string]any{{"text": "ok"}}, []string{"--system-prompt-suffix", "\nEXTRA RULE FROM PLUGIN", "--inject", "injected context"})
	recs := a.PromptAndWait("hello")
	var custom int
	for _, r := range recs {
		if r.Type() == "message_end" && r["message"].(map[string]any)["role"] == "custom" {
			custom++
		}
	}
	if custom != 1 {
		t.Fatalf("want one injected custom message, got %d", custom)
	}
	req := a.FauxRequests()[0]
	if !strings.HasSuffix(fmt.Sprint(req["systemPrompt"]), "EXTRA RULE FROM PLUGIN") {
		t.Fatalf("system prompt: %v", req["systemPrompt"])
	}
	if !strings.Contains(fmt.Sprint(req["messages"]), "injected context") {
		t.Fatalf("injected message not sent: %v", req["messages"])
	}
}

func TestReloadRestartsExtensions(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	record := filepath.Join(t.TempDir(), "events")
	pd := e2e.PluginDir(t, t.TempDir(), "a", bin, "--record", record, "--observe", "session_start,session_shutdown", "--command", "first")
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", pd}})
	if n := len(extensionCommands(t, a)); n != 1 {
		t.Fatalf("commands before reload: %d", n)
	}
	// An extension installed while the agent runs is found by reload.
	e2e.PluginDir(t, filepath.Join(a.AgentDir, "extensions"), "b", bin, "--command", "second")
	a.MustSucceed(map[string]any{"type": "reload"})
	cmds := extensionCommands(t, a)
	if len(cmds) != 2 || cmds[1].(map[string]any)["name"] != "second" {
		t.Fatalf("commands after reload: %v", cmds)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(record)
		if got := strings.Fields(string(b)); strings.Join(got, " ") == "session_start session_shutdown session_start" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lifecycle events: %q", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestInputAndContextHooks(t *testing.T) {
	script := []map[string]any{{"text": "one"}, {"text": "two"}}
	a := startWithPlugins(t, script, []string{"--input-prefix", "[checked] ", "--handle-input", "swallow me", "--context-last-only"})
	a.PromptAndWait("first")
	// A handled prompt is acknowledged and starts no run.
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "swallow me"})
	a.PromptAndWait("second")
	for _, r := range a.Records(from) {
		if r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), "swallow me") {
			t.Fatal("a handled prompt reached the conversation")
		}
	}
	reqs := a.FauxRequests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 model calls, got %d", len(reqs))
	}
	msgs := reqs[1]["messages"].([]any)
	if len(msgs) != 1 || !strings.Contains(fmt.Sprint(msgs[0]), "[checked] second") {
		t.Fatalf("context hook / input transform: %v", msgs)
	}
	// The context hook changes one call only: the session keeps everything.
	all := a.MustSucceed(map[string]any{"type": "get_messages"})["data"].(map[string]any)["messages"].([]any)
	if len(all) != 4 {
		t.Fatalf("messages kept: %d", len(all))
	}
}

func TestExtensionCancelsForkCloneAndSwitch(t *testing.T) {
	record := filepath.Join(t.TempDir(), "events")
	script := []map[string]any{{"text": "one"}, {"text": "two"}}
	a := startWithPlugins(t, script, []string{"--cancel-fork", "--cancel-new", "--record", record})
	a.PromptAndWait("first prompt")
	a.PromptAndWait("second prompt")
	state := func() map[string]any {
		return a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)
	}
	before := state()
	fm := a.MustSucceed(map[string]any{"type": "get_fork_messages"})["data"].(map[string]any)["messages"].([]any)
	if len(fm) != 2 {
		t.Fatalf("fork messages: %v", fm)
	}
	entry := fm[1].(map[string]any)["entryId"]
	r := a.MustSucceed(map[string]any{"type": "fork", "entryId": entry})
	if d := r["data"].(map[string]any); d["cancelled"] != true {
		t.Fatalf("fork not cancelled: %v", r)
	}
	r = a.MustSucceed(map[string]any{"type": "clone"})
	if d := r["data"].(map[string]any); d["cancelled"] != true {
		t.Fatalf("clone not cancelled: %v", r)
	}
	file, _ := before["sessionFile"].(string)
	r = a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": file})
	if d := r["data"].(map[string]any); d["cancelled"] != true {
		t.Fatalf("switch_session not cancelled: %v", r)
	}
	after := state()
	if after["sessionId"] != before["sessionId"] || after["sessionFile"] != before["sessionFile"] {
		t.Fatalf("the session changed: %v -> %v", before, after)
	}
	b, _ := os.ReadFile(record)
	got := string(b)
	for _, want := range []string{"session_before_fork:before", "session_before_fork:at", "session_before_switch"} {
		if !strings.Contains(got, want) {
			t.Fatalf("plugin did not see %s: %q", want, got)
		}
	}
}

func TestSessionLifecycleReasons(t *testing.T) {
	record := filepath.Join(t.TempDir(), "events")
	script := []map[string]any{{"text": "one"}}
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	pd := e2e.PluginDir(t, t.TempDir(), "p", bin, "--record", record, "--observe", "session_start,session_shutdown", "--record-payload")
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", pd}, Script: script})
	a.PromptAndWait("hello")
	a.MustSucceed(map[string]any{"type": "new_session"})
	a.CloseStdin()
	a.Wait(10 * time.Second)
	b, _ := os.ReadFile(record)
	var reasons []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil {
			reasons = append(reasons, fmt.Sprint(ev["type"], ":", ev["reason"]))
		}
	}
	want := "session_start:startup session_shutdown:new session_start:new session_shutdown:quit"
	if strings.Join(reasons, " ") != want {
		t.Fatalf("lifecycle:\n got %v\nwant %s", reasons, want)
	}
}

func TestPluginToolReplacesBuiltin(t *testing.T) {
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"text": "not a shell"}}}},
		{"text": "done"},
	}
	a := startWithPlugins(t, script, []string{"--tool", "bash"})
	res := toolResults(a.PromptAndWait("go"))
	if len(res) != 1 || resultText(res[0]) != "echo: not a shell" {
		t.Fatalf("the built-in bash ran instead of the extension's: %v", res)
	}
	tools := fmt.Sprint(a.FauxRequests()[0]["tools"])
	if strings.Count(tools, "name:bash") != 1 || !strings.Contains(tools, "Echoes its text") {
		t.Fatalf("tools offered: %s", tools)
	}
}

func TestExtensionFlagFromTheCommandLine(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	pd := e2e.PluginDir(t, t.TempDir(), "p", bin, "--command", "hello")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", pd}, "command ran: greet hello"},
		{[]string{"-e", pd, "--greeting=bonjour"}, "command ran: greet bonjour"},
	} {
		a := e2e.Start(t, e2e.Options{Args: c.args})
		from := a.Len()
		a.MustSucceed(map[string]any{"type": "prompt", "message": "/hello greet"})
		a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
			return r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), c.want)
		})
	}
}

func TestUserBashHandledByExtension(t *testing.T) {
	a := startWithPlugins(t, nil, []string{"--user-bash", "deploy"})
	r := a.MustSucceed(map[string]any{"type": "bash", "command": "echo deploy now"})
	d := r["data"].(map[string]any)
	if d["output"] != "handled by testplugin: echo deploy now" || d["exitCode"] != float64(0) {
		t.Fatalf("%v", d)
	}
	r = a.MustSucceed(map[string]any{"type": "bash", "command": "echo plain"})
	if out := r["data"].(map[string]any)["output"]; !strings.Contains(fmt.Sprint(out), "plain") || strings.Contains(fmt.Sprint(out), "testplugin") {
		t.Fatalf("%v", r)
	}
}

func TestModelSelectReachesExtensions(t *testing.T) {
	record := filepath.Join(t.TempDir(), "events")
	a := startWithPlugins(t, nil, []string{"--record", record, "--record-payload", "--observe", "model_select,thinking_level_select"})
	a.MustSucceed(map[string]any{"type": "get_extensions"}) // loaded (events before that reach no one)
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "faux", "modelId": "faux-2"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(record)
		if strings.Contains(string(b), `"type":"model_select"`) && strings.Contains(string(b), `"source":"set"`) && strings.Contains(string(b), `faux-2`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("model_select not delivered: %q", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExtensionCancelsOrWritesCompaction(t *testing.T) {
	script := []map[string]any{}
	for i := 0; i < 5; i++ {
		script = append(script, map[string]any{"text": fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i)})
	}
	a := startWithPlugins(t, script, []string{"--compact-text", "cancel"})
	for i := 0; i < 5; i++ {
		from := a.Len()
		a.PromptAndWait(fmt.Sprintf("request %d", i))
		a.WaitType(from, "agent_settled")
	}
	r := a.Request(map[string]any{"type": "compact"})
	if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "ancel") {
		t.Fatalf("compaction not cancelled: %v", r)
	}

	b := startWithPlugins(t, script, []string{"--compact-text", "summary written by the extension"})
	for i := 0; i < 5; i++ {
		from := b.Len()
		b.PromptAndWait(fmt.Sprintf("request %d", i))
		b.WaitType(from, "agent_settled")
	}
	r = b.MustSucceed(map[string]any{"type": "compact"})
	d := r["data"].(map[string]any)
	if d["rung"] != "extension" || !strings.Contains(fmt.Sprint(d["compactedText"]), "summary written by the extension") {
		t.Fatalf("%v", d)
	}
}

func TestExtensionAsksForCompaction(t *testing.T) {
	a := startWithPlugins(t, nil, []string{"--command", "hello"})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/hello compact"})
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		return r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), "compact error: Nothing to compact")
	})
}
