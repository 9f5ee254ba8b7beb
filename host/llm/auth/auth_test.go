package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func newResolver(t *testing.T, env map[string]string) (*Resolver, string) {
	t.Helper()
	dir := t.TempDir()
	r := NewResolver(filepath.Join(dir, "auth.json"), nil)
	r.Values.Getenv = func(k string) string { return env[k] }
	return r, dir
}

func TestPrecedenceAndStatus(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "env-anthropic", "MY_KEY": "from-my-key"}
	r, _ := newResolver(t, env)
	r.SetProviders(map[string]llm.ProviderSettings{
		"anthropic": {Name: "anthropic", APIKey: "models-anthropic"},
		"local":     {Name: "local", APIKey: "$MY_KEY", Custom: true},
		"literal":   {Name: "literal", APIKey: "lit-123456", Custom: true},
		"cmd":       {Name: "cmd", APIKey: "!printf '  from-command\\n'", Custom: true},
		"unset":     {Name: "unset", APIKey: "${NOT_SET}", Custom: true},
	})
	// pi 1.6's order: models.json's apiKey before the environment.
	if k, ok := r.APIKey("anthropic"); !ok || k != "models-anthropic" {
		t.Errorf("models.json should win over the environment: %q %v", k, ok)
	}
	if st := r.Status("anthropic"); st.Source != SourceModelsKey {
		t.Errorf("status %+v", st)
	}
	r.SetProviders(map[string]llm.ProviderSettings{
		"anthropic": {Name: "anthropic", APIKey: "$UNSET_ANTHROPIC"},
		"local":     {Name: "local", APIKey: "$MY_KEY", Custom: true},
		"literal":   {Name: "literal", APIKey: "lit-123456", Custom: true},
		"cmd":       {Name: "cmd", APIKey: "!printf '  from-command\\n'", Custom: true},
		"unset":     {Name: "unset", APIKey: "${NOT_SET}", Custom: true},
	})
	// A models.json variable that is unset leaves the provider's own.
	if k, ok := r.APIKey("anthropic"); !ok || k != "env-anthropic" {
		t.Errorf("environment after an unset models.json variable: %q %v", k, ok)
	}
	if st := r.Status("anthropic"); st.Source != SourceEnvironment || st.Label != "ANTHROPIC_API_KEY" {
		t.Errorf("status %+v", st)
	}
	if err := r.Store("anthropic", "stored-key"); err != nil {
		t.Fatal(err)
	}
	if k, _ := r.APIKey("anthropic"); k != "stored-key" {
		t.Errorf("auth.json should win: %q", k)
	}
	fi, err := os.Stat(r.AuthFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v %v", fi.Mode(), err)
	}
	if k, _ := r.APIKey("local"); k != "from-my-key" {
		t.Errorf("$VAR: %q", k)
	}
	if st := r.Status("local"); st.Source != SourceModelsKey || st.Label != "MY_KEY" {
		t.Errorf("local status %+v", st)
	}
	if k, _ := r.APIKey("literal"); k != "lit-123456" {
		t.Errorf("literal: %q", k)
	}
	if !r.Usable("cmd") || r.Status("cmd").Source != SourceModelsCommand {
		t.Errorf("command provider status %+v", r.Status("cmd"))
	}
	if k, ok := r.APIKey("cmd"); !ok || k != "from-command" {
		t.Errorf("command: %q %v", k, ok)
	}
	if r.Usable("unset") {
		t.Errorf("a provider whose key variable is unset is not usable")
	}
	if r.Usable("openai") {
		t.Errorf("openai has no credentials")
	}
	r.SetKeyless("faux", true)
	if k, ok := r.APIKey("faux"); !ok || k != "" {
		t.Errorf("keyless: %q %v", k, ok)
	}
}

func TestReferenceAuthShapeAndLogout(t *testing.T) {
	r, _ := newResolver(t, map[string]string{"OPENAI_API_KEY": "env-openai"})
	content := `{"openai": {"type": "api_key", "key": "sk-stored"}, "google": {"type":"oauth","access":"x","refresh":"y","expires":1}, "other": "plain"}`
	if err := os.WriteFile(r.AuthFile, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, _ := r.APIKey("openai"); k != "sk-stored" {
		t.Errorf("stored key: %q", k)
	}
	if k, _ := r.APIKey("other"); k != "plain" {
		t.Errorf("plain string entry: %q", k)
	}
	if r.Usable("google") {
		t.Errorf("an OAuth entry cannot be used")
	}
	removed, err := r.Logout("openai")
	if err != nil || !removed {
		t.Fatalf("logout: %v %v", removed, err)
	}
	if st := r.Status("openai"); st.Source != SourceEnvironment || st.Label != "OPENAI_API_KEY" {
		t.Errorf("after logout: %+v", st)
	}
	data, _ := os.ReadFile(r.AuthFile)
	if strings.Contains(string(data), "sk-stored") || !strings.Contains(string(data), "oauth") {
		t.Errorf("auth.json after logout: %s", data)
	}
	if removed, _ := r.Logout("openai"); removed {
		t.Errorf("second logout removed something")
	}
}

func TestHeadersAndCommandFailure(t *testing.T) {
	r, _ := newResolver(t, map[string]string{"TOKEN": "tok-abcdef"})
	r.SetProviders(map[string]llm.ProviderSettings{"p": {Name: "p", AuthHeader: true}})
	m := llm.Model{Provider: "p", Headers: map[string]string{"X-Token": "$TOKEN", "X-Lit": "v", "X-Bad": "!exit 3"}}
	h := r.Headers(m, "the-key")
	if h["X-Token"] != "tok-abcdef" || h["X-Lit"] != "v" || h["Authorization"] != "Bearer the-key" {
		t.Errorf("headers %v", h)
	}
	if _, ok := h["X-Bad"]; ok {
		t.Errorf("failed command header kept")
	}
	if _, err := r.Values.Resolve("!echo secret-output; exit 1"); err == nil || strings.Contains(err.Error(), "secret-output") {
		t.Errorf("command failure must not echo output: %v", err)
	}
}

func TestValuesExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "USER_1": "ann"}
	v := &Values{Getenv: func(k string) string { return env[k] }}
	for raw, want := range map[string]string{
		"Bearer ${TOKEN}": "Bearer s3cret", "$TOKEN": "s3cret", "a$USER_1-b": "aann-b",
		"cost $$5": "cost $5", "$!x": "!x", "${not valid}": "${not valid}", "tail$": "tail$", "plain": "plain",
		"!echo hi": "hi",
	} {
		got, err := v.Expand(raw)
		if err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	if _, err := v.Expand("x ${MISSING} $OTHER"); err == nil || !strings.Contains(err.Error(), "MISSING, OTHER") {
		t.Errorf("missing variables: %v", err)
	}
}

// A stored credential's "env" object comes before the process environment
// for that provider (pi 1.6), for its key variables and models.json's.
func TestStoredEnvObject(t *testing.T) {
	r, _ := newResolver(t, map[string]string{"GROQ_API_KEY": "process-groq", "LOCAL_TOKEN": "process-token"})
	r.SetProviders(map[string]llm.ProviderSettings{
		"local": {Name: "local", APIKey: "$LOCAL_TOKEN", Custom: true},
	})
	content := `{"local": {"type": "api_key", "key": "", "env": {"LOCAL_TOKEN": "stored-token"}}, "groq": {"type": "api_key", "env": {"GROQ_API_KEY": "stored-groq"}}}`
	if err := os.WriteFile(r.AuthFile, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, _ := r.APIKey("local"); k != "stored-token" {
		t.Errorf("models.json $VAR through the stored env: %q", k)
	}
	if k, _ := r.APIKey("groq"); k != "stored-groq" {
		t.Errorf("the provider's variable through the stored env: %q", k)
	}
	if k, _ := r.APIKey("openai"); k != "" {
		t.Errorf("another provider sees nothing: %q", k)
	}
}
