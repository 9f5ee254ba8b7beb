package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

// pi.registerProvider in every engine, in pi's configuration form: a new
// provider behind a supported API joins get_available_models (its chat
// models only), can be selected and answers through the agent's own
// client with its key from the environment; a provider the agent has
// keeps its models when only its headers change; unregisterProvider
// takes the provider away again.
func TestExtensionRegistersProvider(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: "from acme"}))
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.registerProvider("acme", {
    name: "Acme AI", baseUrl: ` + strconv.Quote(srv.URL) + `, apiKey: "$ACME_TEST_KEY", api: "openai-completions",
    models: [
      { type: "chat", id: "acme-chat", name: "Acme Chat", reasoning: false, input: ["text"],
        cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 8192 },
      { type: "image", id: "acme-image", name: "Acme Image", api: "acme-images", input: ["text"], output: ["image"] },
    ],
  });
  pi.registerProvider("faux", { headers: { "X-Gateway": "on" } });
  pi.registerCommand("drop", { handler: async () => { pi.unregisterProvider("acme"); } });
}
`
			ext := filepath.Join(dir, "provider.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("ACME_TEST_KEY", "acme-secret-key")
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "unused"}})
			a.MustSucceed(map[string]any{"type": "get_extensions"}) // answered once they have loaded
			models := func() map[string]string {
				out := map[string]string{}
				data := a.MustSucceed(map[string]any{"type": "get_available_models"})["data"].(map[string]any)
				for _, m := range data["models"].([]any) {
					mm := m.(map[string]any)
					out[mm["provider"].(string)+"/"+mm["id"].(string)] = mm["name"].(string)
				}
				return out
			}
			// faux keeps its models (only its headers changed): it answers.
			a.PromptAndWait("first")
			if n := len(a.FauxRequests()); n != 1 {
				t.Fatalf("faux got %d requests", n)
			}
			got := models()
			if got["acme/acme-chat"] != "Acme Chat" || got["acme/acme-image"] != "" {
				b, _ := json.Marshal(got)
				t.Fatalf("available models: %s\n%s", b, a.Stderr())
			}
			a.MustSucceed(map[string]any{"type": "set_model", "provider": "acme", "modelId": "acme-chat"})
			var text string
			for _, r := range a.PromptAndWait("hello acme") {
				if r.Type() == "message_end" {
					m := r["message"].(map[string]any)
					if m["role"] == "assistant" {
						b, _ := json.Marshal(m["content"])
						text = string(b)
					}
				}
			}
			if !strings.Contains(text, "from acme") {
				t.Fatalf("the answer: %s\n%s", text, a.Stderr())
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer acme-secret-key" {
				t.Fatalf("requests to the provider: %d %v", len(reqs), reqs)
			}
			// (With process isolation what is registered after loading
			// stays in the child, as docs/extensions.md says.)
			if runtime != "isolated" {
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/drop"})
				if got := models(); got["acme/acme-chat"] != "" {
					t.Errorf("after unregisterProvider: %v", got)
				}
			}
			if !strings.Contains(a.Stderr(), "image and classifier models are not supported") {
				t.Errorf("no warning for the image model:\n%s", a.Stderr())
			}
			if strings.Contains(a.Stderr(), "acme-secret-key") {
				t.Errorf("the key reached the log:\n%s", a.Stderr())
			}
		})
	}
}

// A registration that replaces all the models of a provider the agent
// already has keeps the provider's need for a key: without the key its
// models are not available, with it they are.
func TestExtensionReplacesBuiltinProviderModels(t *testing.T) {
	dir := t.TempDir()
	src := `export default function (pi: any) {
  pi.registerProvider("anthropic", {
    baseUrl: "http://127.0.0.1:9", api: "anthropic-messages",
    models: [{ id: "claude-from-ext", name: "From Ext", reasoning: false, input: ["text"],
      cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, contextWindow: 100000, maxTokens: 4096 }],
  });
}
`
	ext := filepath.Join(dir, "provider.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "sk-ant-test"} {
		t.Run("key="+strconv.FormatBool(key != ""), func(t *testing.T) {
			env := map[string]string{"ANTHROPIC_OAUTH_TOKEN": ""}
			if key != "" {
				env["ANTHROPIC_API_KEY"] = key
			}
			a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}, Env: env, Script: []map[string]any{{"text": "unused"}}})
			a.MustSucceed(map[string]any{"type": "get_extensions"})
			data := a.MustSucceed(map[string]any{"type": "get_available_models"})["data"].(map[string]any)
			var anthropic []string
			for _, m := range data["models"].([]any) {
				mm := m.(map[string]any)
				if mm["provider"] == "anthropic" {
					anthropic = append(anthropic, mm["id"].(string))
				}
			}
			want := []string(nil)
			if key != "" {
				want = []string{"claude-from-ext"}
			}
			if strings.Join(anthropic, ",") != strings.Join(want, ",") {
				t.Fatalf("anthropic models available: %v, want %v\n%s", anthropic, want, a.Stderr())
			}
		})
	}
}

// --model may name a provider an extension registers, as in pi 1.6 (which
// loads extensions before it resolves the model): the agent starts on it;
// a model nobody has still ends start-up with the error.
func TestModelFlagNamesExtensionProvider(t *testing.T) {
	dir := t.TempDir()
	src := `export default function (pi: any) {
  pi.registerProvider("acme", {
    baseUrl: "http://127.0.0.1:9", apiKey: "$ACME_TEST_KEY", api: "openai-completions",
    models: [{ id: "acme-chat", name: "Acme Chat", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 8192 }],
  });
}
`
	ext := filepath.Join(dir, "provider.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, runtime := range []string{"goja", "node"} {
		t.Run(runtime, func(t *testing.T) {
			settings, _ := json.Marshal(map[string]any{"extensionRuntime": runtime})
			a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext, "--model", "acme/acme-chat"}, Env: map[string]string{"ACME_TEST_KEY": "k"},
				AgentFiles: map[string]string{"settings.json": string(settings)}})
			m := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["model"].(map[string]any)
			if m["provider"] != "acme" || m["id"] != "acme-chat" {
				t.Fatalf("the model: %v\n%s", m, a.Stderr())
			}
		})
	}
	cmd, _ := e2e.Command(t, e2e.Options{Args: []string{"-e", ext, "--model", "nosuch/model-x", "-p", "hi"}})
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `model "nosuch/model-x" not found`) {
		t.Fatalf("an unknown model: err %v\n%s", err, out)
	}
}
