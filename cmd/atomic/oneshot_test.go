package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// A models.json with two providers that need no network: what --model,
// --models and --list-models resolve against.
const modelsJSON = `{"providers": {
  "lab": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k1",
    "models": [
      {"id": "lab-sonnet-4-5", "name": "Lab Sonnet", "contextWindow": 200000, "maxTokens": 64000, "reasoning": true, "input": ["text", "image"]},
      {"id": "lab-sonnet-4-5-20250929", "contextWindow": 200000, "maxTokens": 64000},
      {"id": "lab-mini", "contextWindow": 131072, "maxTokens": 8192}]},
  "other": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k2",
    "models": [{"id": "lab-mini", "contextWindow": 32000, "maxTokens": 4096}]}}}`

func TestListModels(t *testing.T) {
	files := map[string]string{"models.json": modelsJSON}
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--list-models", "sonnet"}, AgentFiles: files}, "", limit)
	want := "provider  model                    context  max-out  thinking  images\n" +
		"lab       lab-sonnet-4-5           200K     64K      yes       yes   \n" +
		"lab       lab-sonnet-4-5-20250929  200K     64K      no        no    \n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", res.ExitCode, res.Stdout, want, res.Stderr)
	}
	// 131072 is 131.1K as pi writes it; sorted by provider.
	res = e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--list-models=mini"}, AgentFiles: files}, "", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "lab       lab-mini  131.1K   8.2K     no        no    \nother     lab-mini  32K      4.1K") {
		t.Fatalf("exit %d stdout:\n%s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--list-models", "zzzz"}, AgentFiles: files}, "", limit)
	if res.ExitCode != 0 || res.Stdout != "No models matching \"zzzz\"\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--list-models", "a", "b"}, AgentFiles: files}, "", limit)
	if res.ExitCode != 2 || !strings.Contains(res.Stderr, "--list-models takes one search") {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestModelFlagResolvesAsPi(t *testing.T) {
	files := map[string]string{"models.json": modelsJSON}
	for _, c := range []struct {
		args []string
		code int
		err  string // in stderr
		out  string // in stdout (get_state's answer)
	}{
		{[]string{"-p", "--model", "nosuch-model", "hi"}, 1, `model "nosuch-model" not found`, ""},
		{[]string{"-p", "--model", "lab-sonet", "hi"}, 1, "closest: lab/lab-sonnet-4-5", ""},
		{[]string{"-p", "--provider", "nosuch", "--model", "x", "hi"}, 1, `unknown provider "nosuch"`, ""},
		{[]string{"-p", "--provider", "lab", "hi"}, 1, "--provider requires --model", ""},
		// A fragment: the alias beats the dated id; ":high" is the level.
		{[]string{"--mode", "rpc", "--model", "sonnet:high"}, 0, "", `"id":"lab-sonnet-4-5","name":"Lab Sonnet"`},
		// The same id on two providers with keys: which one is for the user to say.
		{[]string{"-p", "--model", "lab-mini", "hi"}, 1, `model "lab-mini" is ambiguous across providers: lab/lab-mini, other/lab-mini. More than one matching provider has credentials. Use --provider or provider/model`, ""},
		{[]string{"--mode", "rpc", "--model", "other/lab-mini"}, 0, "", `"id":"lab-mini","name":"lab-mini","api":"openai-completions","provider":"other"`},
		{[]string{"--mode", "rpc", "--provider", "OTHER", "--model", "mini"}, 0, "", `"provider":"other"`},
		// An id the catalog lacks on a known provider: a custom id, said once.
		{[]string{"--mode", "rpc", "--model", "lab/lab-new"}, 0, `Model \"lab-new\" not found for provider \"lab\". Using custom model id.`, `"id":"lab-new"`},
		// --models: the scope's first model starts the session.
		{[]string{"--mode", "rpc", "--models", "nosuch,lab-sonnet-4-5:low"}, 0, `No models match pattern \"nosuch\"`, `"id":"lab-sonnet-4-5","name":"Lab Sonnet","api":"openai-completions","provider":"lab","baseUrl":"http://127.0.0.1:9/v1","reasoning":true,"input":["text","image"],"contextWindow":200000,"maxTokens":64000,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}},"thinkingLevel":"low"`},
	} {
		stdin := ""
		if c.out != "" {
			stdin = `{"type":"get_state","id":"1"}` + "\n"
		}
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: c.args, AgentFiles: files}, stdin, limit)
		if res.ExitCode != c.code || !strings.Contains(res.Stderr, c.err) || !strings.Contains(res.Stdout, c.out) {
			t.Errorf("%v: exit %d (want %d)\nstdout %s\nstderr %s", c.args, res.ExitCode, c.code, res.Stdout, res.Stderr)
		}
	}
}

func TestExportSessionFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	lines := `{"type":"session","version":3,"id":"01a24617-f733-7a91-8c40-de6b065cf487","timestamp":"2026-12-05T12:05:05.459Z","cwd":"/elsewhere"}
{"type":"message","id":"06dc5643","parentId":null,"timestamp":"2026-12-05T12:05:05.467Z","message":{"role":"user","content":[{"type":"text","text":"a question of export"}],"timestamp":1796472305467}}
`
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	// Without an output: atomic-session-<name>.html in the working directory.
	res := e2e.Run(t, e2e.Options{NoMode: true, Dir: dir, Args: []string{"--export", "s1.jsonl"}}, "", limit)
	page := filepath.Join(dir, "atomic-session-s1.html")
	if res.ExitCode != 0 || res.Stdout != "Exported to: "+page+"\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "a question of export") {
		t.Fatalf("page: %v", err)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true, Dir: dir, Args: []string{"--export", file, "sub/out.html"}}, "", limit)
	if res.ExitCode != 0 || res.Stdout != "Exported to: "+filepath.Join(dir, "sub", "out.html")+"\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if after, _ := os.ReadFile(file); string(after) != lines {
		t.Fatalf("the session file changed:\n%s", after)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--export", "nosuch.jsonl"}, 1, "File not found: " + filepath.Join(dir, "nosuch.jsonl")},
		{[]string{"--export", "atomic-session-s1.html"}, 1, "is not a session file"},
		{[]string{"--export", "s1.jsonl", "a.html", "b.html"}, 2, "at most one output path"},
	} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Dir: dir, Args: c.args}, "", limit)
		if res.ExitCode != c.code || res.Stdout != "" || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q", c.args, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}
