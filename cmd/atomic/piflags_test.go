package main_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

// A script extension with one tool, so that tool selection can be seen in
// what the model is offered.
const extToolScript = `export default function (pi) {
  pi.registerTool({
    name: "ext_lookup",
    label: "Lookup",
    description: "Looks something up",
    parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text: "found" }] }; },
  });
}
`

// offeredTools runs one prompt with args and returns the tool names the
// model was offered.
func offeredTools(t *testing.T, args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	ext := filepath.Join(dir, "ext.js")
	if err := os.WriteFile(ext, []byte(extToolScript), 0o600); err != nil {
		t.Fatal(err)
	}
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: append([]string{"--no-session", "-e", ext}, args...)})
	a.PromptAndWait("hi")
	reqs := a.FauxRequests()
	if len(reqs) == 0 {
		t.Fatalf("%v: no model request; stderr %s", args, a.Stderr())
	}
	var names []string
	tools, _ := reqs[len(reqs)-1]["tools"].([]any)
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		name, _ := m["name"].(string)
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// pi 1.6's tool flags: -nt turns every tool off (extension tools too),
// -nbt only the built-ins, -xt removes by pattern after everything else.
// -nbt was read as "-n bt" (a session named bt) before.
func TestPiToolFlags(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{nil, []string{"bash", "edit", "ext_lookup", "read", "write"}},
		{[]string{"-nt"}, nil},
		{[]string{"--no-tools"}, nil},
		{[]string{"-nbt"}, []string{"ext_lookup"}},
		{[]string{"--no-builtin-tools"}, []string{"ext_lookup"}},
		{[]string{"-xt", "ext_*,bash"}, []string{"edit", "read", "write"}},
		{[]string{"--exclude-tools=*it*"}, []string{"bash", "ext_lookup", "read"}},
		{[]string{"--tools", "read,grep", "-xt", "grep"}, []string{"ext_lookup", "read"}},
	}
	for _, c := range cases {
		if got := offeredTools(t, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("%v: offered %v, want %v", c.args, got, c.want)
		}
	}
}

// A short flag that takes a value is never glued to its value: -nfoo is
// refused instead of naming the session "foo".
func TestGluedShortValueIsRefused(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-nfoo", "-p", "hi"}}, "", limit)
	if res.ExitCode != 2 || !strings.Contains(res.Stderr, "unknown short flag -nfoo") || res.Stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// projectWithTemplate is a project whose one trust-gated resource is a
// prompt template.
func projectWithTemplate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, ".atomic", "prompts", "proj-only.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\ndescription: from the project\n---\nDo it"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func hasCommand(a *e2e.Agent, name string) bool {
	resp := a.MustSucceed(map[string]any{"type": "get_commands"})
	data, _ := resp["data"].(map[string]any)
	cmds, _ := data["commands"].([]any)
	for _, c := range cmds {
		if m, _ := c.(map[string]any); m["name"] == name {
			return true
		}
	}
	return false
}

// -a trusts the project for this run and records nothing; -na ignores a
// recorded trust; --trust-project records it.
func TestPiApproveFlags(t *testing.T) {
	dir := projectWithTemplate(t)
	env := map[string]string{}
	home := t.TempDir()
	env["HOME"] = home
	agentDir := filepath.Join(home, ".atomic", "agent")
	env["ATOMIC_CODING_AGENT_DIR"] = agentDir
	run := func(args ...string) bool {
		a := e2e.Start(t, e2e.Options{Dir: dir, Env: env, Args: append([]string{"--no-session"}, args...)})
		defer func() { a.CloseStdin(); a.Wait(limit) }()
		return hasCommand(a, "proj-only")
	}
	trustFile := filepath.Join(agentDir, "trust.json")
	if run() {
		t.Fatal("an untrusted project's template is listed")
	}
	if !run("-a") {
		t.Fatal("-a: the project's template is not listed")
	}
	if _, err := os.Stat(trustFile); err == nil {
		t.Fatal("-a recorded the trust")
	}
	if !run("--trust-project") {
		t.Fatal("--trust-project: the template is not listed")
	}
	if _, err := os.Stat(trustFile); err != nil {
		t.Fatal("--trust-project recorded nothing")
	}
	if !run() {
		t.Fatal("the recorded trust does not hold")
	}
	if run("-na") || run("--no-approve") {
		t.Fatal("-na: the project's template is listed")
	}
	res := e2e.Run(t, e2e.Options{NoMode: true, Dir: dir, Env: env, Args: []string{"-na", "-a", "-p", "hi"}}, "", limit)
	if res.ExitCode != 2 || !strings.Contains(res.Stderr, "--no-approve cannot be combined") {
		t.Fatalf("-na -a: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

// --api-key gives the chosen model's provider a key for this run only: it
// reaches the provider, and is stored nowhere.
func TestPiAPIKeyFlag(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: "keyed answer"}))
	models := `{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1", "api": "openai-completions",
	  "models": [{"id": "m1", "name": "M1", "contextWindow": 8000, "maxTokens": 1000}]}}}`
	res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, AgentFiles: map[string]string{"models.json": models},
		Args: []string{"--no-session", "--model", "local/m1", "--api-key", "sk-run-only-123", "-p", "hi"}}, "", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "keyed answer") {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-run-only-123" {
		t.Fatalf("requests %d, authorization %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
	if strings.Contains(res.Stderr, "sk-run-only") {
		t.Fatalf("the key is on stderr: %q", res.Stderr)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--api-key", "sk-x", "-p", "hi"}}, "", limit)
	if res.ExitCode != 2 || !strings.Contains(res.Stderr, "--api-key needs a model") || strings.Contains(res.Stderr, "sk-x") {
		t.Fatalf("without --model: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

// --no-mcp connects no server: the configured one is not listed.
func TestPiNoMCPFlag(t *testing.T) {
	mcpJSON := `{"mcpServers": {"never": {"command": "/nonexistent/server"}}}`
	for _, c := range []struct {
		args []string
		want int
	}{{nil, 1}, {[]string{"--no-mcp"}, 0}} {
		a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"mcp.json": mcpJSON}, Args: append([]string{"--no-session"}, c.args...)})
		resp := a.MustSucceed(map[string]any{"type": "get_mcp_servers"})
		data, _ := resp["data"].(map[string]any)
		servers, _ := data["servers"].([]any)
		if len(servers) != c.want {
			t.Errorf("%v: %d servers listed (%v), want %d", c.args, len(servers), resp["data"], c.want)
		}
		a.CloseStdin()
		a.Wait(limit)
	}
}
