package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/trust"
)

func newTestRuntime(t *testing.T, opts Options) (*Runtime, string) {
	t.Helper()
	root := t.TempDir()
	cwd := filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	opts.Cwd = cwd
	opts.Settings = &config.Loaded{Paths: config.Paths{AgentDir: filepath.Join(root, "agent"), ProjectDir: filepath.Join(cwd, ".atomic"), Cwd: cwd}}
	rt, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	return rt, cwd
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSystemPromptFollowsToolsAndReload(t *testing.T) {
	rt, cwd := newTestRuntime(t, Options{Trust: trust.FlagRecord})
	first := rt.systemPrompt()
	if strings.Contains(first, "<name>deploy</name>") || !strings.Contains(first, "<name>create-skill</name>") {
		t.Fatalf("initial prompt:\n%s", first)
	}
	writeTestFile(t, filepath.Join(cwd, ".atomic", "skills", "deploy", "SKILL.md"), "---\ndescription: Deploy it\n---\nsteps")
	if p := rt.systemPrompt(); p != first {
		t.Fatalf("prompt changed without a reload")
	}
	if err := rt.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := rt.systemPrompt(); !strings.Contains(p, "<name>deploy</name>") {
		t.Fatalf("reload did not rebuild the prompt:\n%s", p)
	}
	rt.tools.SetActive([]string{"bash"})
	if p := rt.systemPrompt(); strings.Contains(p, "available_skills") || strings.Contains(p, "- read:") {
		t.Fatalf("prompt not rebuilt for the new tools:\n%s", p)
	}
}

func TestProjectTrustSeam(t *testing.T) {
	trusted := false
	rt, cwd := newTestRuntime(t, Options{ProjectTrusted: func() bool { return trusted }})
	writeTestFile(t, filepath.Join(cwd, ".atomic", "prompts", "proj.md"), "project template")
	writeTestFile(t, filepath.Join(cwd, ".atomic", "APPEND_SYSTEM.md"), "project rules")
	writeTestFile(t, filepath.Join(cwd, "AGENTS.md"), "context rules") // read whatever the trust, as pi 1.6
	if err := rt.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	has := func(name string) bool {
		for _, c := range rt.Commands() {
			if c.Name == name {
				return true
			}
		}
		return false
	}
	if has("proj") || strings.Contains(rt.systemPrompt(), "project rules") {
		t.Fatal("untrusted project's files were used")
	}
	if !strings.Contains(rt.systemPrompt(), "context rules") {
		t.Fatal("an untrusted project's AGENTS.md was not read")
	}
	trusted = true
	if err := rt.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !has("proj") || !strings.Contains(rt.systemPrompt(), "project rules") {
		t.Fatal("trusted project's files were not used")
	}
	rt.SetProjectTrust(func() bool { return false })
	_ = rt.Reload(context.Background())
	if has("proj") {
		t.Fatal("SetProjectTrust had no effect")
	}
}

type fakeCommands struct{}

func (fakeCommands) Commands() []SlashCommand {
	return []SlashCommand{{Name: "ext", Description: "from an extension", Source: "ignored", HasArgumentCompletions: true}}
}

func (fakeCommands) Completions(_ context.Context, name, prefix string) ([]Completion, bool) {
	if name != "ext" {
		return nil, false
	}
	return []Completion{{Value: prefix + "1", Label: prefix + "1"}}, true
}

func TestCommandSeams(t *testing.T) {
	rt, _ := newTestRuntime(t, Options{})
	if got := rt.CommandCompletions(context.Background(), "ext", "a"); got != nil {
		t.Fatalf("completions without a provider: %v", got)
	}
	rt.SetCommandProvider(fakeCommands{})
	cmds := rt.Commands()
	if cmds[0].Name != "ext" || cmds[0].Source != "extension" || cmds[1].Source != "prompt" {
		t.Fatalf("extension commands must come first: %+v", cmds[:2])
	}
	if got := rt.CommandCompletions(context.Background(), "ext", "a"); len(got) != 1 || got[0].Value != "a1" {
		t.Fatalf("completions: %v", got)
	}
	if got := rt.CommandCompletions(context.Background(), "review", ""); got != nil {
		t.Fatalf("template completions: %v", got)
	}
	var phases []string
	rt.OnReload(func(_ context.Context, phase string) error { phases = append(phases, phase); return nil })
	rt.SetResourceDiscoverer(func(_ context.Context, reason string) ([]string, []string) {
		dir := t.TempDir()
		writeTestFile(t, filepath.Join(dir, "extra.md"), "from an extension, "+reason)
		return nil, []string{filepath.Join(dir, "extra.md")}
	})
	if start, err := rt.Prompt(PromptInput{Text: "/reload"}); start != nil || err != nil {
		t.Fatalf("/reload: %v %v", start != nil, err)
	}
	if strings.Join(phases, ",") != ReloadShutdown+","+ReloadStart {
		t.Fatalf("reload hooks: %v", phases)
	}
	found := false
	for _, c := range rt.Commands() {
		if c.Name == "extra" && c.Location == "path" && c.SourceInfo.Source == "extension" {
			found = true
		}
	}
	if !found {
		t.Fatal("extension template not discovered")
	}
	if got := rt.expandInput("/extra"); got != "from an extension, reload" {
		t.Fatalf("expansion: %q", got)
	}
}

// A session in another directory (switch_session) is judged by that
// directory's trust, and trust_project trusts the directory the session
// works in.
func TestTrustFollowsTheSessionDirectory(t *testing.T) {
	rt, cwd := newTestRuntime(t, Options{})
	other := filepath.Join(filepath.Dir(cwd), "other")
	writeTestFile(t, filepath.Join(other, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeTestFile(t, filepath.Join(other, ".atomic", "APPEND_SYSTEM.md"), "rules of the other project")
	file := filepath.Join(other, "s.jsonl")
	writeTestFile(t, file, `{"type":"session","version":3,"id":"6c1d3f1e-0000-4000-8000-000000000001","timestamp":"2026-11-30T10:00:00.000Z","cwd":"`+other+`"}`+"\n"+
		`{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`+"\n")
	if cancelled, err := rt.SwitchSession(file); err != nil || cancelled {
		t.Fatalf("switch: %v %v", cancelled, err)
	}
	if rt.Cwd() != other {
		t.Fatalf("cwd %q, want %q", rt.Cwd(), other)
	}
	if strings.Contains(rt.systemPrompt(), "rules of the other project") {
		t.Fatal("an untrusted directory's APPEND_SYSTEM.md was used")
	}
	if _, err := rt.TrustProject(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rt.systemPrompt(), "rules of the other project") {
		t.Fatal("trust_project did not trust the session's directory")
	}
}
