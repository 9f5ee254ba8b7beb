package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/tools"
)

// startWithEnvDump starts a stdio server through a shell that writes its
// environment to a file first, and returns that environment.
func startWithEnvDump(t *testing.T, inherit bool) string {
	t.Helper()
	dump := filepath.Join(t.TempDir(), "env")
	h := newHarness(t)
	h.apply(Server{Name: "e", Source: "test", Config: ServerConfig{
		Command: "sh", Args: []string{"-c", fmt.Sprintf("env > %s; exec %s", dump, testServerBin)},
		Env: map[string]string{"ENTRY_VALUE": "from-entry"}, InheritEnv: inherit, Exposure: tools.ExposureDirect,
	}})
	if st := h.status("e"); st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	return "\n" + string(b)
}

// A provider key in the agent's environment does not reach a stdio
// server; PATH, HOME and the entry's env do.
func TestStdioServerGetsMinimalEnv(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
	t.Setenv("OPENAI_API_KEY", "sk-openai-must-not-leak")
	t.Setenv("LANG", "C.UTF-8")
	env := startWithEnvDump(t, false)
	for _, bad := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "must-not-leak"} {
		if strings.Contains(env, bad) {
			t.Fatalf("the server saw %s:%s", bad, env)
		}
	}
	for _, want := range []string{"\nPATH=", "\nHOME=", "\nLANG=C.UTF-8\n", "\nENTRY_VALUE=from-entry\n"} {
		if !strings.Contains(env, want) {
			t.Fatalf("the server's environment lacks %q:%s", want, env)
		}
	}
}

// "inheritEnv": true passes the whole environment.
func TestStdioServerInheritEnvOptIn(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-passed-on-purpose")
	env := startWithEnvDump(t, true)
	for _, want := range []string{"\nANTHROPIC_API_KEY=sk-ant-passed-on-purpose\n", "\nENTRY_VALUE=from-entry\n"} {
		if !strings.Contains(env, want) {
			t.Fatalf("the server's environment lacks %q:%s", want, env)
		}
	}
	cfg, err := Validate("x", []byte(`{"command":"x","inheritEnv":true}`))
	if err != nil || !cfg.InheritEnv {
		t.Fatalf("inheritEnv parsed as %+v, %v", cfg, err)
	}
	if _, err := Validate("x", []byte(`{"command":"x","inheritEnv":"yes"}`)); err == nil || !strings.Contains(err.Error(), "inheritEnv must be a boolean") {
		t.Fatalf("inheritEnv \"yes\": %v", err)
	}
}
