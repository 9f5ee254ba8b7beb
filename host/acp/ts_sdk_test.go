package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/npmpkg"
	"github.com/atomic-go/atomic/internal/testreq"
)

// The official TypeScript SDK, pinned: the editor side of TestTSSDKEditor.
const tsSDK, tsSDKVersion = "@agentclientprotocol/sdk", "2.4.0"

// TestTSSDKEditor drives the agent from the official TypeScript SDK
// (testdata/editor.mjs): initialize, new, a text prompt, a bash tool call
// with streamed updates, an edit with a diff, a config option, list, an
// unknown session, close.
func TestTSSDKEditor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runTSEditor(t, "editor.mjs", e2e.Options{Dir: dir, Script: []map[string]any{
		{"text": "hello from faux", "chunks": 3},
		{"toolCalls": []map[string]any{{"name": "bash", "id": "ts-bash", "arguments": map[string]any{"command": "echo ts-$((6*7))"}}}},
		{"text": "ran"},
		{"toolCalls": []map[string]any{{"name": "edit", "id": "ts-edit", "arguments": map[string]any{"path": "f.txt", "oldText": "two", "newText": "three"}}}},
		{"text": "edited"},
	}})
	var text strings.Builder
	var bashDone, diff, streamed bool
	for _, u := range out.Updates {
		switch u["sessionUpdate"] {
		case "agent_message_chunk":
			if c, ok := u["content"].(map[string]any); ok {
				text.WriteString(c["text"].(string))
			}
		case "tool_call":
			streamed = streamed || (u["toolCallId"] == "ts-bash" && u["kind"] == "execute")
		case "tool_call_update":
			b, _ := json.Marshal(u)
			if u["toolCallId"] == "ts-bash" && u["status"] == "completed" && strings.Contains(string(b), "ts-42") {
				bashDone = true
			}
			if u["toolCallId"] == "ts-edit" && strings.Contains(string(b), `"type":"diff"`) && strings.Contains(string(b), `"newText":"three"`) {
				diff = true
			}
		}
	}
	if !strings.HasPrefix(text.String(), "hello from faux") || !streamed || !bashDone || !diff {
		t.Fatalf("text %q, tool_call %v, bash result %v, diff %v\nupdates: %v", text.String(), streamed, bashDone, diff, out.Updates)
	}
	for _, step := range []string{"prompt", "bash", "edit"} {
		if !strings.Contains(string(out.Steps[step]), `"stopReason":"end_turn"`) {
			t.Errorf("%s: %s", step, out.Steps[step])
		}
	}
	if !strings.Contains(string(out.Steps["config"]), `"currentValue":"high"`) {
		t.Errorf("config: %s", out.Steps["config"])
	}
	if !strings.Contains(string(out.Steps["list"]), `"sessions":[{`) {
		t.Errorf("list: %s", out.Steps["list"])
	}
	if !strings.Contains(string(out.Steps["unknown"]), `"code":-32602`) {
		t.Errorf("unknown session: %s", out.Steps["unknown"])
	}
}

// tsResult is what a TypeScript editor script (testdata/*.mjs) saw.
type tsResult struct {
	Steps   map[string]json.RawMessage `json:"steps"`
	Fatal   string                     `json:"fatal"`
	Updates []map[string]any           `json:"updates"`
	Buffers map[string]string          `json:"buffers"`
	Log     map[string][]any           `json:"log"`
}

// runTSEditor runs testdata/<script> (on the pinned TypeScript SDK)
// against the agent started with opts (the script gets the binary, the
// working directory, its output file and the agent's arguments), and
// returns what it saw.
func runTSEditor(t *testing.T, script string, opts e2e.Options) tsResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	inst, err := npmpkg.Ensure(ctx, tsSDK, tsSDKVersion)
	if errors.Is(err, npmpkg.ErrUnreachable) {
		testreq.Missing(t, "npm", "the TypeScript ACP SDK %s@%s: %v", tsSDK, tsSDKVersion, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	opts.NoMode = true
	cmd, _ := e2e.Command(t, opts)
	work := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, script), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(inst.Dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(work, "out.json")
	node := exec.CommandContext(ctx, "node", append([]string{filepath.Join(work, script), cmd.Path, cmd.Dir, outPath}, cmd.Args[1:]...)...)
	node.Dir = work
	node.Env = cmd.Env
	combined, err := node.CombinedOutput()
	if err != nil {
		t.Fatalf("editor: %v\n%s", err, combined)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatalf("no results: %v\n%s", err, combined)
	}
	var out tsResult
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Fatal != "" {
		t.Fatalf("editor failed: %s\n%s", out.Fatal, combined)
	}
	return out
}

// TestTSSDKClientBackends: an editor on the TypeScript SDK that offers its
// buffers, terminals and form elicitation, with acp.useClientFs and
// acp.useClientTerminal on: read and edit go through fs/*, bash through
// terminal/*, an extension's input dialog through elicitation/create
// (scoped to the session, as the schema requires).
func TestTSSDKClientBackends(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(t.TempDir(), "ask.ts")
	if err := os.WriteFile(ext, []byte(askExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"toolCalls": []map[string]any{{"name": name, "id": id, "arguments": args}}}
	}
	out := runTSEditor(t, "backends.mjs", e2e.Options{Dir: dir, Args: []string{"--mode", "acp", "-e", ext},
		AgentFiles: map[string]string{"settings.json": `{"acp": {"useClientFs": true, "useClientTerminal": true}}`},
		Script: []map[string]any{
			call("r", "read", map[string]any{"path": "f.txt"}), {"text": "read"},
			call("e", "edit", map[string]any{"path": "f.txt", "oldText": "unsaved", "newText": "edited"}), {"text": "edited"},
			call("b", "bash", map[string]any{"command": "echo ts-term-$((6*7))"}), {"text": "ran"},
			call("a", "ask", map[string]any{}), {"text": "asked"},
		}})
	for _, step := range []string{"read", "edit", "bash", "ask"} {
		if !strings.Contains(string(out.Steps[step]), `"stopReason":"end_turn"`) {
			t.Errorf("%s: %s", step, out.Steps[step])
		}
	}
	results := map[string]string{}
	var terminal bool
	for _, u := range out.Updates {
		if u["sessionUpdate"] == "tool_call_update" && (u["status"] == "completed" || u["status"] == "failed") {
			b, _ := json.Marshal(u)
			results[u["toolCallId"].(string)] = string(b)
			terminal = terminal || (u["toolCallId"] == "b" && strings.Contains(string(b), `"type":"terminal"`))
		}
	}
	if !strings.Contains(results["r"], "unsaved buffer") || !strings.Contains(results["b"], "ts-term-42") || !terminal ||
		!strings.Contains(results["a"], `input=\"Ada\"`) {
		t.Fatalf("results %v", results)
	}
	if got := out.Buffers[filepath.Join(dir, "f.txt")]; got != "edited buffer\n" {
		t.Fatalf("buffer %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "on disk\n" {
		t.Fatalf("the disk changed: %q", b)
	}
	if len(out.Log["created"]) != 1 || len(out.Log["released"]) != 1 || len(out.Log["elicitations"]) != 2 {
		t.Fatalf("client log %v", out.Log)
	}
	el, _ := out.Log["elicitations"][0].(map[string]any)
	if el["sessionId"] == "" || el["sessionId"] == nil || el["toolCallId"] != "a" || el["mode"] != "form" {
		t.Fatalf("elicitation %v", el)
	}
}
