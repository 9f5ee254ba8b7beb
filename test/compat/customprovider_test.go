package compat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

// pi 1.6's custom-provider-anthropic example, unchanged, in Node: its own
// streamSimple (the Anthropic SDK it depends on, installed with npm)
// answers the agent's requests; models.json points the provider at the
// local Anthropic server, so no request leaves the machine. The answer
// streams to the client, names the example's provider and model, and the
// server saw the example's request. (In goja the Anthropic SDK stops at
// Blob, which goja lacks: the answer is then an error message.)
func TestPiCustomProviderExample(t *testing.T) {
	pi := Ensure(t, "@earendil-works/pi-coding-agent", PiNextVersion)
	sdk := Ensure(t, "@anthropic-ai/sdk", "0.52.0")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(pi.PackageDir(), "examples", "extensions", "custom-provider-anthropic", "index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(dir, "index.ts")
	if err := os.WriteFile(ext, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// The example's dependency, where Node's resolution looks for it.
	if err := os.MkdirAll(filepath.Join(dir, "node_modules", "@anthropic-ai"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sdk.PackageDir(), filepath.Join(dir, "node_modules", "@anthropic-ai", "sdk")); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Anthropic(llmtest.Turn{Text: "Hello from the custom provider", Chunks: 3, Usage: llmtest.Usage{Input: 11, Output: 4}}))
	models := fmt.Sprintf(`{"providers": {"custom-anthropic": {"baseUrl": %q}, "ghost": {"baseUrl": "http://127.0.0.1:9"}}}`, srv.URL)
	a := e2e.Start(t, e2e.Options{
		Args:       []string{"-e", ext, "--model", "custom-anthropic/claude-sonnet-4-5"},
		Env:        map[string]string{"CUSTOM_ANTHROPIC_API_KEY": "sk-ant-test"},
		AgentFiles: map[string]string{"settings.json": `{"extensionRuntime": "node"}`, "models.json": models},
	})
	deltas := 0
	var answer map[string]any
	for _, r := range a.PromptAndWait("hello") {
		if ev, _ := r["assistantMessageEvent"].(map[string]any); r.Type() == "message_update" && ev["type"] == "text_delta" {
			deltas++
		}
		if r.Type() == "message_end" {
			if m := r["message"].(map[string]any); m["role"] == "assistant" {
				answer = m
			}
		}
	}
	b, _ := json.Marshal(answer)
	if answer == nil || answer["provider"] != "custom-anthropic" || answer["model"] != "claude-sonnet-4-5" || answer["stopReason"] != "stop" {
		t.Fatalf("the answer: %s\n%s", b, a.Stderr())
	}
	if c := answer["content"].([]any); len(c) == 0 || c[len(c)-1].(map[string]any)["text"] != "Hello from the custom provider" {
		t.Errorf("the answer's text: %s", b)
	}
	if deltas < 2 {
		t.Errorf("the client saw %d text deltas", deltas)
	}
	// (The example reads the input tokens of message_start, which the
	// local server's dialect leaves at 0.)
	if u := answer["usage"].(map[string]any); u["output"] != float64(4) {
		t.Errorf("usage: %v", u)
	}
	// models.json's entry for the extension's provider is not warned
	// about (it is known once the extensions have loaded); one for a
	// provider nobody has is.
	stderr := a.WaitStderr(`provider \"ghost\" has no models`)
	if strings.Contains(stderr, `\"custom-anthropic\" has no models`) {
		t.Errorf("models.json's custom-anthropic entry was warned about:\n%s", stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the server saw %d requests", len(reqs))
	}
	var body struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(reqs[0].Body, &body)
	if body.Model != "claude-sonnet-4-5" || reqs[0].Header.Get("x-api-key") != "sk-ant-test" {
		t.Errorf("the request: model %q, key %q", body.Model, reqs[0].Header.Get("x-api-key"))
	}
}
