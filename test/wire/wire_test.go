// Package wire holds the black-box scenario that produces the fields of
// the protocol's records (sdk/rpcwire) which the other suites have no
// reason to: signatures of content blocks, scoped models, a model's
// compat options, every kind of extension dialog, a forked session in the
// session list. With ATOMIC_WIRE_RECORD set (.ci/run) every line it reads
// counts towards internal/wirecov's check; its own assertions make it a
// test worth running alone too.
package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

const extension = `export default function (pi) {
  pi.registerCommand("wire", {
    description: "opens every kind of dialog",
    getArgumentCompletions: (prefix) => [{ value: "alpha", label: "alpha", description: "the first" }],
    handler: async (_args, ctx) => {
      // The terminal's own: no-ops over RPC, as in pi (never sent).
      ctx.ui.setWorkingMessage("working hard");
      ctx.ui.setHeader(() => ({ render: () => ["a header"], invalidate() {} }));
      ctx.ui.setFooter(() => ({ render: () => ["a footer"], invalidate() {} }));
      ctx.ui.setStatus("wire-key", "status text");
      ctx.ui.setEditorText("editor text");
      const name = await ctx.ui.input("Name?", "a placeholder");
      const body = await ctx.ui.editor("Edit", "prefilled text");
      ctx.ui.notify("answered " + name + " " + body, "info");
    },
  });
}
`

const models = `{"providers": {"wirelab": {
  "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "not-a-real-key",
  "models": [{"id": "wire-model", "contextWindow": 32000, "maxTokens": 4096,
              "compat": {"supportsDeveloperRole": false}, "thinkingLevels": ["xhigh"]}]}}}`

func data(t *testing.T, r e2e.Record) map[string]any {
	t.Helper()
	d, ok := r["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data: %v", r)
	}
	return d
}

func TestRecordsTheOtherSuitesLeaveOut(t *testing.T) {
	dir := t.TempDir()
	ext := filepath.Join(dir, "wire.js")
	if err := os.WriteFile(ext, []byte(extension), 0o644); err != nil {
		t.Fatal(err)
	}
	a := e2e.Start(t, e2e.Options{
		Args: []string{"-e", ext, "--provider", "faux", "--model", "faux-1"},
		AgentFiles: map[string]string{
			"models.json":   models,
			"settings.json": `{"enabledModels": ["faux/faux-1:high", "wirelab/*"]}`,
		},
		Script: []map[string]any{
			{"thinking": "let me think", "thinkingSignature": "sig-thinking", "redactedThinking": true,
				"text": "calling", "textSignature": "sig-text",
				"toolCalls":         []map[string]any{{"name": "read", "arguments": map[string]any{"path": "missing.txt"}}},
				"toolCallSignature": "sig-call"},
			{"text": "done"},
		},
	})

	// Signatures and redacted thinking, as providers attach them.
	recs := a.PromptAndWait("hello")
	var final map[string]any
	for _, r := range recs {
		if r.Type() == "message_end" {
			if m := r["message"].(map[string]any); m["role"] == "assistant" && final == nil {
				final = m
			}
		}
	}
	blocks, _ := json.Marshal(final["content"])
	for _, want := range []string{`"redacted":true`, `"thinkingSignature":"sig-thinking"`, `"textSignature":"sig-text"`, `"thoughtSignature":"sig-call"`} {
		if !strings.Contains(string(blocks), want) {
			t.Errorf("the first assistant message lacks %s: %s", want, blocks)
		}
	}
	a.WaitType(0, "agent_settled")

	// The cycling scope (with a level), a model's compat options.
	cat := data(t, a.MustSucceed(map[string]any{"type": "get_available_models"}))
	scoped, _ := cat["scopedModels"].([]any)
	if len(scoped) != 2 || scoped[0].(map[string]any)["thinkingLevel"] != "high" {
		t.Errorf("scopedModels %v", cat["scopedModels"])
	}
	catJSON, _ := json.Marshal(cat)
	if !strings.Contains(string(catJSON), `"compat":{"supportsDeveloperRole":false}`) {
		t.Errorf("no compat in %s", catJSON)
	}
	lo := data(t, a.MustSucceed(map[string]any{"type": "logout_provider", "provider": "wirelab"}))
	if _, ok := lo["scopedModels"]; !ok {
		t.Errorf("logout_provider without scopedModels: %v", lo)
	}

	// Completions with a description; every dialog of the command.
	comp := data(t, a.MustSucceed(map[string]any{"type": "get_command_completions", "commandName": "wire", "argumentPrefix": ""}))
	if c, _ := comp["completions"].([]any); len(c) != 1 || c[0].(map[string]any)["description"] != "the first" {
		t.Errorf("completions %v", comp)
	}
	from := a.Len()
	// The prompt of a command is answered when the command has finished
	// (after its dialogs), as pi 1.6 answers it.
	a.Send(map[string]any{"id": "wire-cmd", "type": "prompt", "message": "/wire"})
	seen := map[string]e2e.Record{}
	for _, method := range []string{"setStatus", "set_editor_text", "input", "editor"} {
		r := a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool { return r.Type() == "extension_ui_request" && r["method"] == method })
		seen[method] = r
		if method == "input" || method == "editor" {
			a.Send(map[string]any{"type": "extension_ui_response", "id": r["id"], "value": method + "-answer"})
		}
	}
	a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool {
		return r.Type() == "extension_ui_request" && r["method"] == "notify" && r["message"] == "answered input-answer editor-answer"
	})
	if r := a.WaitResponse(from, "wire-cmd"); r["success"] != true {
		t.Errorf("the command's prompt: %v", r)
	}
	for _, r := range a.Records(from) {
		if m := r["method"]; r.Type() == "extension_ui_request" && (m == "setWorkingMessage" || m == "setHeader" || m == "setFooter") {
			t.Errorf("RPC mode sent the terminal's own %v: %v", m, r)
		}
	}
	if seen["input"]["placeholder"] != "a placeholder" || seen["editor"]["prefill"] != "prefilled text" ||
		seen["setStatus"]["statusKey"] != "wire-key" || seen["setStatus"]["statusText"] != "status text" ||
		seen["set_editor_text"]["text"] != "editor text" {
		t.Errorf("dialogs %v", seen)
	}

	// A direct bash command whose output is cut keeps the whole of it in a
	// file, named in the recorded message.
	bash := data(t, a.MustSucceed(map[string]any{"type": "bash", "command": "seq 1 30000"}))
	if bash["truncated"] != true || bash["fullOutputPath"] == nil {
		t.Errorf("bash %v", bash)
	}
	if msgs, _ := json.Marshal(data(t, a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"]); !strings.Contains(string(msgs), `"fullOutputPath":`) {
		t.Errorf("the bash message lacks fullOutputPath: %s", msgs)
	}

	// A branch summary, seen as a message of the context.
	all := data(t, a.MustSucceed(map[string]any{"type": "get_entries"}))["entries"].([]any)
	var firstAnswer string
	for _, e := range all {
		if m, _ := e.(map[string]any)["message"].(map[string]any); m["role"] == "assistant" {
			firstAnswer = e.(map[string]any)["id"].(string)
			break
		}
	}
	a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": firstAnswer, "options": map[string]any{"summarize": true}})
	msgs, _ := json.Marshal(data(t, a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"])
	for _, want := range []string{`"role":"branchSummary"`, `"summary":`} {
		if !strings.Contains(string(msgs), want) {
			t.Errorf("get_messages lacks %s: %s", want, msgs)
		}
	}

	// A fork is listed with the session it came from.
	forks := data(t, a.MustSucceed(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
	if len(forks) == 0 {
		t.Fatal("nothing to fork from")
	}
	a.MustSucceed(map[string]any{"type": "fork", "entryId": forks[0].(map[string]any)["entryId"]})
	a.PromptAndWait("in the fork") // the new file is written with its first message
	list, _ := json.Marshal(data(t, a.MustSucceed(map[string]any{"type": "list_sessions"}))["sessions"])
	if !strings.Contains(string(list), `"parentSession":`) {
		t.Errorf("no forked session in %s", list)
	}
}
