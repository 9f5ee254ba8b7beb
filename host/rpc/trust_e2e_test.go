package rpc_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// trustProject is a project that supplies one of everything: a context
// file, a skill, a prompt template and settings.
func trustProject(t *testing.T) string {
	return project(t, map[string]string{
		"AGENTS.md":                 "Project rule: answer in haiku.",
		".atomic/skills/x/SKILL.md": "---\ndescription: The project's own skill.\n---\nDo x.",
		".atomic/prompts/t.md":      "---\ndescription: The project's own template\n---\nTemplate body",
		".atomic/settings.json":     `{"steeringMode":"all"}`,
		".atomic/APPEND_SYSTEM.md":  "Appended by the project.",
	})
}

// projectView is what the agent took from the project.
type projectView struct {
	skill, template, context, appendFile bool
	steeringMode                         string
}

func viewOf(t *testing.T, a *e2e.Agent) projectView {
	t.Helper()
	var v projectView
	for _, c := range commands(t, a) {
		switch c["name"] {
		case "skill:x":
			v.skill = true
		case "t":
			v.template = true
		}
	}
	before := len(a.FauxRequests())
	a.PromptAndWait("hi")
	reqs := a.FauxRequests()
	if len(reqs) != before+1 {
		t.Fatalf("faux got %d requests, want %d", len(reqs), before+1)
	}
	sp, _ := reqs[before]["systemPrompt"].(string)
	v.context = strings.Contains(sp, "Project rule: answer in haiku.")
	v.appendFile = strings.Contains(sp, "Appended by the project.")
	st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	v.steeringMode, _ = st["steeringMode"].(string)
	return v
}

func answers(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"text": "ok"}
	}
	return out
}

// An untrusted project supplies nothing; trust_project brings in its
// skills, templates and context files at once (settings from the next
// start), and the recorded trust holds at the next start.
func TestUntrustedProjectSuppliesNothingUntilTrusted(t *testing.T) {
	dir := trustProject(t)
	a := e2e.Start(t, e2e.Options{Dir: dir, Script: answers(3)})
	got := viewOf(t, a)
	if got != (projectView{context: true, steeringMode: "one-at-a-time"}) { // AGENTS.md is read whatever the trust (pi 1.6)
		t.Fatalf("untrusted project was used: %+v", got)
	}

	// What was skipped is named once in the log and in the diagnostics.
	diags := dataOf(t, a.MustSucceed(map[string]any{"type": "get_resource_diagnostics"}))["diagnostics"].([]any)
	skipped := map[string]string{}
	for _, d := range diags {
		d := d.(map[string]any)
		if strings.Contains(d["message"].(string), "not trusted") {
			skipped[d["path"].(string)] = d["resourceType"].(string)
		}
	}
	want := map[string]string{
		filepath.Join(dir, ".atomic", "skills"):           "skill",
		filepath.Join(dir, ".atomic", "prompts"):          "prompt",
		filepath.Join(dir, ".atomic", "APPEND_SYSTEM.md"): "system",
		filepath.Join(dir, ".atomic", "settings.json"):    "settings",
	}
	for p, kind := range want {
		if skipped[p] != kind {
			t.Errorf("diagnostics do not name %s (%s): %v", p, kind, skipped)
		}
	}
	a.MustSucceed(map[string]any{"type": "reload"})
	a.WaitStderr("project files skipped", "project settings skipped")
	if n := strings.Count(a.Stderr(), "project files skipped"); n != 1 {
		t.Errorf("the skipped files were logged %d times, want once:\n%s", n, a.Stderr())
	}
	if !strings.Contains(a.Stderr(), "project settings skipped") {
		t.Errorf("the skipped settings were not logged:\n%s", a.Stderr())
	}

	a.MustSucceed(map[string]any{"type": "trust_project"})
	got = viewOf(t, a)
	if got != (projectView{skill: true, template: true, context: true, appendFile: true, steeringMode: "one-at-a-time"}) {
		t.Fatalf("after trust_project: %+v", got)
	}

	// The trust is recorded: the next start in the same agent dir uses
	// everything, settings included.
	b := e2e.Start(t, e2e.Options{Dir: dir, Script: answers(1), Env: map[string]string{"ATOMIC_CODING_AGENT_DIR": a.AgentDir}})
	if got := viewOf(t, b); got != (projectView{true, true, true, true, "all"}) {
		t.Fatalf("after a restart with recorded trust: %+v", got)
	}
}

func TestTrustProjectFlagTrustsFromTheStart(t *testing.T) {
	dir := trustProject(t)
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--trust-project"}, Script: answers(1)})
	if got := viewOf(t, a); got != (projectView{true, true, true, true, "all"}) {
		t.Fatalf("with --trust-project: %+v", got)
	}
}

func TestDefaultProjectTrustSettings(t *testing.T) {
	dir := trustProject(t)
	always := e2e.Start(t, e2e.Options{Dir: dir, Script: answers(1),
		AgentFiles: map[string]string{"settings.json": `{"defaultProjectTrust":"always"}`}})
	if got := viewOf(t, always); got != (projectView{true, true, true, true, "all"}) {
		t.Fatalf("defaultProjectTrust always: %+v", got)
	}
	// "never" refuses even a recorded trust; the flag still trusts.
	never := e2e.Start(t, e2e.Options{Dir: dir, Script: answers(1),
		AgentFiles: map[string]string{"settings.json": `{"defaultProjectTrust":"never"}`}})
	never.MustSucceed(map[string]any{"type": "trust_project"})
	never2 := e2e.Start(t, e2e.Options{Dir: dir, Script: answers(1), Env: map[string]string{"ATOMIC_CODING_AGENT_DIR": never.AgentDir}})
	if got := viewOf(t, never2); got != (projectView{context: true, steeringMode: "one-at-a-time"}) {
		t.Fatalf("defaultProjectTrust never with a recorded trust: %+v", got)
	}
}
