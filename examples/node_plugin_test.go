package examples_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/testreq"
)

// TestNodePlugin runs the JavaScript plugin (examples/node-plugin) through
// the agent: it proves the plugin protocol is language-neutral. It needs
// node and npm (to install @grpc/grpc-js) and skips without them.
func TestNodePlugin(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testreq.Missing(t, "node", "node is not on PATH; skipping the Node.js plugin example")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		testreq.Missing(t, "npm", "npm is not on PATH; skipping the Node.js plugin example")
	}
	src, _ := filepath.Abs("node-plugin")
	protoDir, _ := filepath.Abs(filepath.Join("..", "proto"))
	dir := filepath.Join(t.TempDir(), "node-plugin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.js", "package.json", "broker.proto", "atomic-plugin.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
	npm.Dir = dir
	if out, err := npm.CombinedOutput(); err != nil {
		testreq.Missing(t, "npm", "npm install failed (registry unreachable?); skipping the Node.js plugin example: %v\n%s", err, out)
	}

	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "node_upper", "arguments": map[string]any{"text": "quiet words"}}}},
		{"text": "ok"},
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo node-forbidden"}}}},
		{"text": "ok"},
	}
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", dir}, Script: script, Env: map[string]string{"ATOMIC_PROTO_DIR": protoDir}})
	st := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
	if len(st) != 1 || st[0].(map[string]any)["state"] != "loaded" {
		t.Fatalf("node plugin not loaded: %v\n%s", st, a.Stderr())
	}
	cmds := a.MustSucceed(map[string]any{"type": "get_commands"})["data"].(map[string]any)["commands"].([]any)
	if len(cmds) == 0 || cmds[0].(map[string]any)["name"] != "node-hello" || cmds[0].(map[string]any)["source"] != "extension" {
		t.Fatalf("commands: %v", cmds)
	}

	// A tool written in JavaScript, called by the model, with a streamed update.
	recs := a.PromptAndWait("shout")
	var update, result string
	for _, r := range recs {
		switch r.Type() {
		case "tool_execution_update":
			update = fmt.Sprint(r["partialResult"])
		case "tool_execution_end":
			result = fmt.Sprint(r["result"])
		}
	}
	if !strings.Contains(update, "working") || !strings.Contains(result, "QUIET WORDS") {
		t.Fatalf("tool: update %q result %q", update, result)
	}

	// A tool_call hook written in JavaScript.
	recs = a.PromptAndWait("run it")
	blocked := false
	for _, r := range recs {
		if r.Type() == "tool_execution_end" && strings.Contains(fmt.Sprint(r["result"]), "blocked by the Node.js plugin") {
			blocked = true
		}
	}
	if !blocked {
		t.Fatal("the Node.js tool_call hook did not block")
	}

	// A command that calls back into the agent through the broker.
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/node-hello world"})
	msg := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		return r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), "hello from node: world")
	})
	_ = msg
}
