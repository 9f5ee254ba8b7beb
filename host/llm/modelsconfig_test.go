package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBuiltinModels(t *testing.T) {
	models := BuiltinModels()
	seen := map[string]bool{}
	providers := map[string]bool{}
	for _, m := range models {
		key := m.Provider + "/" + m.ID
		if seen[key] {
			t.Errorf("duplicate %s", key)
		}
		seen[key] = true
		providers[m.Provider] = true
		if m.Name == "" || m.API == "" || m.BaseURL == "" || m.ContextWindow <= 0 || m.MaxTokens <= 0 || len(m.Input) == 0 {
			t.Errorf("incomplete model %+v", m)
		}
		if m.Cost.Input <= 0 || m.Cost.Output <= 0 {
			t.Errorf("%s has no price", key)
		}
	}
	for _, p := range []string{"anthropic", "openai", "google"} {
		if !providers[p] {
			t.Errorf("no %s models", p)
		}
	}
	if models[0].Provider != "anthropic" {
		t.Errorf("provider order: first is %s", models[0].Provider)
	}
}

func TestModelsConfigApply(t *testing.T) {
	data := `{"providers": {
	  "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions", "apiKey": "ollama",
	    "compat": {"supportsDeveloperRole": false},
	    "models": [{"id": "llama3.1:8b"}, {"id": "qwen3", "reasoning": true, "contextWindow": 40000, "compat": {"thinkingFormat": "qwen"}}]},
	  "anthropic": {"baseUrl": "https://proxy.example/anthropic", "headers": {"x-proxy": "$PROXY_TOKEN"},
	    "modelOverrides": {"claude-haiku-4-5": {"name": "Haiku (proxy)", "cost": {"input": 0.5}}, "nope": {"name": "x"}}},
	  "broken": {"api": "openai-completions", "models": [{"id": "m"}]},
	  "empty": {"baseUrl": "http://x"}
	}}`
	cfg, err := ParseModelsConfig([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Providers[0].Name != "ollama" || cfg.Providers[1].Name != "anthropic" {
		t.Errorf("file order lost: %v, %v", cfg.Providers[0].Name, cfg.Providers[1].Name)
	}
	models, settings, problems := cfg.Apply(BuiltinModels())
	find := func(p, id string) *Model {
		for i := range models {
			if models[i].Provider == p && models[i].ID == id {
				return &models[i]
			}
		}
		return nil
	}
	l := find("ollama", "llama3.1:8b")
	if l == nil || l.Name != "llama3.1:8b" || l.ContextWindow != DefaultContextWindow || l.MaxTokens != DefaultMaxTokens ||
		l.Reasoning || strings.Join(l.Input, ",") != "text" || l.API != APIOpenAICompletions || l.BaseURL != "http://localhost:11434/v1" {
		t.Errorf("defaults: %+v", l)
	}
	if l.CompatBool("supportsDeveloperRole", true) {
		t.Errorf("provider compat not applied: %v", l.Compat)
	}
	q := find("ollama", "qwen3")
	if q == nil || !q.Reasoning || q.ContextWindow != 40000 || q.CompatString("thinkingFormat") != "qwen" || q.CompatBool("supportsDeveloperRole", true) {
		t.Errorf("qwen3: %+v", q)
	}
	h := find("anthropic", "claude-haiku-4-5")
	if h == nil || h.Name != "Haiku (proxy)" || h.Cost.Input != 0.5 || h.Cost.Output != 5 || h.BaseURL != "https://proxy.example/anthropic" || h.Headers["x-proxy"] != "$PROXY_TOKEN" {
		t.Errorf("override: %+v", h)
	}
	if o := find("anthropic", "claude-opus-4-6"); o == nil || o.BaseURL != "https://proxy.example/anthropic" {
		t.Errorf("built-in models of an overridden provider must stay: %+v", o)
	}
	if settings["ollama"].APIKey != "ollama" || !settings["ollama"].Custom || settings["anthropic"].Custom {
		t.Errorf("settings %+v", settings)
	}
	joined := strings.Join(problems, "\n")
	for _, want := range []string{`"broken"`, `"empty" has no models`, `unknown model "nope"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %s:\n%s", want, joined)
		}
	}
	// Headers are never serialised: they may hold secrets.
	b, _ := json.Marshal(h)
	if strings.Contains(string(b), "PROXY_TOKEN") {
		t.Errorf("headers serialised: %s", b)
	}
}

func TestParseModelsConfigErrors(t *testing.T) {
	if _, err := ParseModelsConfig([]byte(`{"providers": [1]}`)); err == nil {
		t.Error("providers array accepted")
	}
	if _, err := ParseModelsConfig([]byte(`{`)); err == nil {
		t.Error("broken JSON accepted")
	}
	cfg, err := ParseModelsConfig([]byte("  "))
	if err != nil || len(cfg.Providers) != 0 {
		t.Errorf("empty file: %v %v", cfg, err)
	}
}

func TestOverflowAndTransient(t *testing.T) {
	overflow := []string{
		"prompt is too long: 213462 tokens > 200000 maximum",
		"This model's maximum context length is 128000 tokens. However, you requested 130000 tokens",
		"Your input exceeds the context window of this model",
		"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
		"the request exceeds the available context size, try increasing it",
		"400 status code (no body)",
		"context_length_exceeded",
	}
	for _, s := range overflow {
		if !IsContextOverflowText(s) {
			t.Errorf("not recognised as overflow: %q", s)
		}
		if IsTransient(nil, s) {
			t.Errorf("overflow classified transient: %q", s)
		}
	}
	for _, s := range []string{"Overloaded", "rate limit exceeded", "connection refused", "terminated", "503 Service Unavailable"} {
		if !IsTransient(nil, s) {
			t.Errorf("not transient: %q", s)
		}
	}
	if IsTransient(&APIError{Status: 400, Message: "invalid tool schema"}, "") || IsTransient(&APIError{Status: 401, Message: "bad key"}, "") {
		t.Error("client errors classified transient")
	}
	if !IsTransient(&APIError{Status: 529, Message: "x"}, "") || !IsTransient(&APIError{Status: 429, Message: "x"}, "") {
		t.Error("529/429 not transient")
	}
	silent := &Message{Role: RoleAssistant, StopReason: StopStop, Usage: Usage{Input: 90000, CacheRead: 40000}}
	if !IsContextOverflow(silent, 128000) || IsContextOverflow(silent, 200000) {
		t.Error("silent overflow rule")
	}
	if got := Redact("key sk-abcdef123 and sk-abcdef123", "sk-abcdef123", ""); got != "key *** and ***" {
		t.Errorf("redact: %q", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	h := map[string]string{"Retry-After": "12"}
	if got := ParseRetryAfter(func(k string) string { return h[k] }); got != 12 {
		t.Errorf("seconds: %v", got)
	}
	h = map[string]string{"Retry-After-Ms": "250", "Retry-After": "12"}
	if got := ParseRetryAfter(func(k string) string { return h[k] }); got != 0.25 {
		t.Errorf("ms: %v", got)
	}
	h = map[string]string{}
	if got := ParseRetryAfter(func(k string) string { return h[k] }); got != 0 {
		t.Errorf("absent: %v", got)
	}
}

// FuzzParseModelsConfig: any models.json content gives a config or an
// error, never a panic, and applying a parsed config never panics.
func FuzzParseModelsConfig(f *testing.F) {
	f.Add([]byte(`{"providers":{"x":{"baseUrl":"http://h","api":"openai-completions","models":[{"id":"m","cost":{"input":1}}]}}}`))
	f.Add([]byte(`{"providers":{"anthropic":{"modelOverrides":{"claude-haiku-4-5":{"maxTokens":5}}}}}`))
	f.Add([]byte(`{"providers":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseModelsConfig(data)
		if err != nil {
			return
		}
		models, _, _ := cfg.Apply(BuiltinModels())
		for _, m := range models {
			if m.ID == "" || m.Provider == "" {
				t.Fatalf("model without id or provider: %+v", m)
			}
		}
	})
}
