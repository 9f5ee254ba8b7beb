package rpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// project creates a git work tree holding files (relative path → text).
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, text := range files {
		writeFile(t, filepath.Join(dir, rel), text)
	}
	return dir
}

// trustArgs trust the test project: its files are used only then.
var trustArgs = []string{"--trust-project"}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commands(t *testing.T, a *e2e.Agent) []map[string]any {
	t.Helper()
	r := a.MustSucceed(map[string]any{"type": "get_commands"})
	data, _ := r["data"].(map[string]any)
	list, ok := data["commands"].([]any)
	if !ok {
		t.Fatalf("get_commands data: %v", r["data"])
	}
	var out []map[string]any
	for _, c := range list {
		out = append(out, c.(map[string]any))
	}
	return out
}

func findCommand(cmds []map[string]any, name string) map[string]any {
	for _, c := range cmds {
		if c["name"] == name {
			return c
		}
	}
	return nil
}

// lastUserText is the text of the last user message of a faux request.
func lastUserText(t *testing.T, req map[string]any) string {
	t.Helper()
	texts := userTexts(req)
	if len(texts) == 0 {
		t.Fatalf("no user message in %v", req)
	}
	return texts[len(texts)-1]
}

func userTexts(req map[string]any) []string {
	var out []string
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if msg["role"] != "user" {
			continue
		}
		var sb strings.Builder
		switch c := msg["content"].(type) {
		case string:
			sb.WriteString(c)
		case []any:
			for _, b := range c {
				if blk, ok := b.(map[string]any); ok && blk["type"] == "text" {
					sb.WriteString(fmt.Sprint(blk["text"]))
				}
			}
		}
		out = append(out, sb.String())
	}
	return out
}

// stderrHas waits a little for text on the agent's stderr: it is copied
// from the process independently of stdout, so it may lag behind a
// response.
func stderrHas(a *e2e.Agent, text string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(a.Stderr(), text) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

const reviewTemplate = "---\ndescription: Review the diff\nargument-hint: <file> [focus]\n---\nReview $1 with focus on ${@:2}.\n"
const lintSkill = "---\nname: lint\ndescription: Fix lint errors in Go code.\n---\n\nRun golangci-lint and fix what it reports.\n"

func TestGetCommandsE2E(t *testing.T) {
	dir := project(t, map[string]string{
		".atomic/prompts/review.md":     reviewTemplate,
		".atomic/skills/lint/SKILL.md":  lintSkill,
		".atomic/prompts/not-a-prompt":  "ignored",
		".agents/skills/other/SKILL.md": "---\ndescription: Another skill\n---\nbody",
	})
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: trustArgs})
	cmds := commands(t, a)

	review := findCommand(cmds, "review")
	if review == nil {
		t.Fatalf("review missing from %v", cmds)
	}
	wantPath := filepath.Join(dir, ".atomic", "prompts", "review.md")
	if review["source"] != "prompt" || review["location"] != "project" || review["path"] != wantPath ||
		review["description"] != "Review the diff" || review["argumentHint"] != "<file> [focus]" {
		t.Errorf("review = %v", review)
	}
	info, _ := review["sourceInfo"].(map[string]any)
	if info["path"] != wantPath || info["scope"] != "project" || info["source"] != "auto" || info["origin"] != "top-level" {
		t.Errorf("review sourceInfo = %v", info)
	}
	lint := findCommand(cmds, "skill:lint")
	if lint == nil || lint["source"] != "skill" || lint["location"] != "project" ||
		lint["path"] != filepath.Join(dir, ".atomic", "skills", "lint", "SKILL.md") || lint["description"] != "Fix lint errors in Go code." {
		t.Errorf("skill:lint = %v", lint)
	}
	if findCommand(cmds, "skill:other") == nil {
		t.Errorf(".agents/skills not discovered: %v", cmds)
	}
	if b := findCommand(cmds, "skill:create-skill"); b == nil || b["location"] != "user" {
		t.Errorf("built-in skill: %v", b)
	}
	if findCommand(cmds, "explain") == nil {
		t.Errorf("built-in template missing")
	}
	// Templates first, then skills.
	seenSkill := false
	for _, c := range cmds {
		switch c["source"] {
		case "skill":
			seenSkill = true
		case "prompt":
			if seenSkill {
				t.Errorf("template %v listed after a skill", c["name"])
			}
		default:
			t.Errorf("unexpected source: %v", c)
		}
	}

	r := a.MustSucceed(map[string]any{"type": "get_command_completions", "commandName": "review", "argumentPrefix": "ma"})
	data, _ := r["data"].(map[string]any)
	if v, ok := data["completions"]; !ok || v != nil {
		t.Errorf("completions for a template = %v, want null", r["data"])
	}
	if r := a.Request(map[string]any{"type": "get_command_completions"}); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "commandName") {
		t.Errorf("missing commandName: %v", r)
	}
}

func TestSkillAndTemplateExpansionAtProvider(t *testing.T) {
	dir := project(t, map[string]string{
		".atomic/prompts/review.md":    reviewTemplate,
		".atomic/skills/lint/SKILL.md": lintSkill,
	})
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: trustArgs, Script: []map[string]any{{"text": "ok"}, {"text": "ok"}, {"text": "ok"}}})
	a.PromptAndWait("/skill:lint   fix main.go please ")
	a.PromptAndWait(`/review main.go "error handling" $1 tests`)
	a.PromptAndWait("/nosuch command stays as typed")
	reqs := a.FauxRequests()
	if len(reqs) != 3 {
		t.Fatalf("faux got %d requests", len(reqs))
	}
	skillDir := filepath.Join(dir, ".atomic", "skills", "lint")
	wantSkill := "<skill name=\"lint\" location=\"" + filepath.Join(skillDir, "SKILL.md") + "\">\n" +
		"Relative paths in this skill are resolved against " + skillDir + ".\n\n" +
		"Run golangci-lint and fix what it reports.\n</skill>\n\nfix main.go please"
	if got := lastUserText(t, reqs[0]); got != wantSkill {
		t.Errorf("skill expansion at the provider:\n got %q\nwant %q", got, wantSkill)
	}
	if got, want := lastUserText(t, reqs[1]), "Review main.go with focus on error handling $1 tests."; got != want {
		t.Errorf("template expansion at the provider:\n got %q\nwant %q", got, want)
	}
	if got, want := lastUserText(t, reqs[2]), "/nosuch command stays as typed"; got != want {
		t.Errorf("unknown command: got %q", got)
	}
	// The session keeps the expanded text too.
	r := a.MustSucceed(map[string]any{"type": "get_messages"})
	msgs := r["data"].(map[string]any)["messages"].([]any)
	first := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if first != wantSkill {
		t.Errorf("stored message %q", first)
	}
}

func TestSystemPromptHasSkillsAndContextFiles(t *testing.T) {
	dir := project(t, map[string]string{
		// .agents/skills is searched from the cwd up to the git root.
		".agents/skills/lint/SKILL.md":   lintSkill,
		".agents/skills/manual/SKILL.md": "---\ndescription: Only by command\ndisable-model-invocation: true\n---\nx",
		"AGENTS.md":                      "Use tabs & <not> spaces.",
		"sub/AGENTS.md":                  "Sub rules.",
	})
	a := e2e.Start(t, e2e.Options{Dir: filepath.Join(dir, "sub"), Args: trustArgs, Script: []map[string]any{{"text": "a"}, {"text": "b"}}})
	writeFile(t, filepath.Join(a.AgentDir, "AGENTS.md"), "Global rules from the agent dir.")
	a.MustSucceed(map[string]any{"type": "reload"})
	a.PromptAndWait("hi")
	sp, _ := a.FauxRequests()[0]["systemPrompt"].(string)
	order := []string{
		"<context_file path=\"" + filepath.Join(a.AgentDir, "AGENTS.md") + "\">\nGlobal rules from the agent dir.\n</context_file>",
		"<context_file path=\"" + filepath.Join(dir, "AGENTS.md") + "\">\nUse tabs & <not> spaces.\n</context_file>",
		"<context_file path=\"" + filepath.Join(dir, "sub", "AGENTS.md") + "\">\nSub rules.\n</context_file>",
		"<available_skills>",
		"<name>lint</name>\n    <description>Fix lint errors in Go code.</description>\n    <location>" + filepath.Join(dir, ".agents", "skills", "lint", "SKILL.md") + "</location>",
		"<name>create-skill</name>",
		"</available_skills>",
		"Current working directory: " + filepath.Join(dir, "sub"),
	}
	last := -1
	for _, s := range order {
		i := strings.Index(sp, s)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in the system prompt:\n%s", s, sp)
		}
		last = i
	}
	if strings.Contains(sp, "<name>manual</name>") {
		t.Errorf("a disable-model-invocation skill is listed")
	}

	// Without the read tool there is no skills listing; without context
	// files there is no project context.
	b := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--trust-project", "--tools", "bash", "--no-context-files"}, Script: []map[string]any{{"text": "a"}}})
	b.PromptAndWait("hi")
	sp, _ = b.FauxRequests()[0]["systemPrompt"].(string)
	if strings.Contains(sp, "available_skills") || strings.Contains(sp, "context_file") || strings.Contains(sp, "Use tabs") {
		t.Errorf("system prompt with --tools bash --no-context-files:\n%s", sp)
	}
}

func TestSystemPromptFiles(t *testing.T) {
	dir := project(t, map[string]string{
		".atomic/SYSTEM.md":        "You are the project's own agent.",
		".atomic/APPEND_SYSTEM.md": "Always answer in French.",
	})
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: trustArgs, Script: []map[string]any{{"text": "a"}}})
	a.PromptAndWait("hi")
	sp, _ := a.FauxRequests()[0]["systemPrompt"].(string)
	if !strings.HasPrefix(sp, "You are the project's own agent.\n\nAlways answer in French.") || strings.Contains(sp, "Available tools") {
		t.Errorf("SYSTEM.md / APPEND_SYSTEM.md:\n%s", sp)
	}
	b := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--trust-project", "--system-prompt", "Flag prompt.", "--append-system-prompt", "Flag append."}, Script: []map[string]any{{"text": "a"}}})
	b.PromptAndWait("hi")
	sp, _ = b.FauxRequests()[0]["systemPrompt"].(string)
	if !strings.HasPrefix(sp, "Flag prompt.\n\nFlag append.") || strings.Contains(sp, "French") {
		t.Errorf("flags should win over the files:\n%s", sp)
	}
}

func TestSteerAndFollowUpExpansion(t *testing.T) {
	dir := project(t, map[string]string{
		".atomic/prompts/review.md":    reviewTemplate,
		".atomic/skills/lint/SKILL.md": lintSkill,
	})
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: trustArgs, Script: []map[string]any{
		{"text": "first turn streams slowly", "chunks": 8, "delayMs": 150}, {"text": "second"}, {"text": "third"},
	}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "start"})
	a.WaitType(from, "message_update")
	a.MustSucceed(map[string]any{"type": "steer", "message": "/skill:lint now"})
	q := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "queue_update" })
	steering, _ := q["steering"].([]any)
	if len(steering) != 1 || !strings.HasPrefix(fmt.Sprint(steering[0]), `<skill name="lint"`) {
		t.Errorf("queue_update after steer: %v", q)
	}
	a.MustSucceed(map[string]any{"type": "follow_up", "message": "/review x.go speed"})
	a.WaitType(from, "agent_end")
	reqs := a.FauxRequests()
	if len(reqs) != 3 {
		t.Fatalf("faux got %d requests", len(reqs))
	}
	texts := userTexts(reqs[2])
	joined := strings.Join(texts, "\n---\n")
	if !strings.Contains(joined, "<skill name=\"lint\"") || !strings.Contains(joined, "</skill>\n\nnow") ||
		!strings.Contains(joined, "Review x.go with focus on speed.") || strings.Contains(joined, "/review") || strings.Contains(joined, "/skill:") {
		t.Errorf("queued messages at the provider:\n%s", joined)
	}
}

func TestReloadE2E(t *testing.T) {
	dir := project(t, map[string]string{".atomic/prompts/review.md": reviewTemplate})
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: trustArgs, Script: []map[string]any{{"text": "slow", "chunks": 10, "delayMs": 200}}})
	if findCommand(commands(t, a), "later") != nil {
		t.Fatal("later exists before it was written")
	}
	writeFile(t, filepath.Join(dir, ".atomic", "prompts", "later.md"), "Added later")
	writeFile(t, filepath.Join(a.AgentDir, "skills", "fresh", "SKILL.md"), "---\ndescription: Fresh skill\n---\nbody")
	if err := os.Remove(filepath.Join(dir, ".atomic", "prompts", "review.md")); err != nil {
		t.Fatal(err)
	}
	r := a.MustSucceed(map[string]any{"type": "reload"})
	if _, has := r["data"]; has {
		t.Errorf("reload data: %v", r["data"])
	}
	cmds := commands(t, a)
	if findCommand(cmds, "later") == nil || findCommand(cmds, "skill:fresh") == nil {
		t.Errorf("reload did not pick up new files: %v", cmds)
	}
	if c := findCommand(cmds, "review"); c != nil && c["location"] == "project" {
		t.Errorf("a deleted template survived the reload")
	}

	// "/reload" as a prompt reloads without running the model.
	writeFile(t, filepath.Join(dir, ".atomic", "prompts", "latest.md"), "Added last")
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/reload"})
	if findCommand(commands(t, a), "latest") == nil {
		t.Errorf("/reload did not reload")
	}
	if n := len(a.FauxRequests()); n != 0 {
		t.Errorf("/reload reached the model (%d requests)", n)
	}

	// While a run is in flight, reload is refused with a clear error.
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	a.WaitType(from, "message_update")
	r = a.Request(map[string]any{"type": "reload"})
	if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "Cannot reload while the agent is running") {
		t.Errorf("reload while streaming: %v", r)
	}
	a.MustSucceed(map[string]any{"type": "abort"})
}

func TestResourceProblemsAreDiagnosticsNotCrashes(t *testing.T) {
	skills := ".atomic/skills/"
	dir := project(t, map[string]string{
		skills + "good/SKILL.md":    "---\ndescription: A good skill\n---\nGood body.",
		skills + "broken/SKILL.md":  "---\nname: broken\ndescription: [unclosed\n---\nx",
		skills + "caps/SKILL.md":    "---\nname: MySkill\ndescription: Capitals\n---\nx",
		skills + "long/SKILL.md":    "---\ndescription: " + strings.Repeat("w", 5000) + "\n---\nx",
		skills + "nodesc/SKILL.md":  "---\nname: nodesc\n---\nx",
		skills + "twin-a/SKILL.md":  "---\nname: twin\ndescription: First\n---\nx",
		skills + "twin-b/SKILL.md":  "---\nname: twin\ndescription: Second\n---\nx",
		skills + "dir/SKILL.md/.x":  "a directory named SKILL.md cannot be read",
		".atomic/prompts/quote.md":  "Quoted: [$1] [$2]",
		".atomic/prompts/broken.md": "---\ndescription: \"open\n---\nx",
	})
	root := filepath.Join(dir, ".atomic", "skills")
	if err := os.Symlink(root, filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: trustArgs, Script: []map[string]any{{"text": "fine"}, {"text": "fine"}}})
	r := a.MustSucceed(map[string]any{"type": "get_resource_diagnostics"})
	diags, _ := r["data"].(map[string]any)["diagnostics"].([]any)
	has := func(typ, rel, text string) bool {
		for _, d := range diags {
			m := d.(map[string]any)
			if m["type"] == typ && m["path"] == filepath.Join(dir, rel) && strings.Contains(fmt.Sprint(m["message"]), text) {
				return true
			}
		}
		return false
	}
	for _, want := range []struct{ typ, rel, text string }{
		{"error", skills + "broken/SKILL.md", "invalid YAML"},
		{"warning", skills + "caps/SKILL.md", "lower-case"},
		{"warning", skills + "long/SKILL.md", "5000 characters"},
		{"error", skills + "nodesc/SKILL.md", "description is missing"},
		{"collision", skills + "twin-b/SKILL.md", "already taken"},
		{"error", skills + "dir/SKILL.md", "cannot read"},
		{"warning", skills + "loop", "symbolic link loop"},
		{"error", ".atomic/prompts/broken.md", "invalid YAML"},
	} {
		if !has(want.typ, want.rel, want.text) {
			t.Errorf("no %s diagnostic for %s (%q) in %v", want.typ, want.rel, want.text, diags)
		}
	}
	if !stderrHas(a, "resource problem") {
		t.Errorf("diagnostics not logged:\n%s", a.Stderr())
	}
	cmds := commands(t, a)
	for _, name := range []string{"skill:good", "skill:MySkill", "skill:long", "skill:twin", "quote"} {
		if findCommand(cmds, name) == nil {
			t.Errorf("%s did not load", name)
		}
	}
	a.PromptAndWait(`/quote "unterminated argument`) // an unclosed quote is text (pi 1.6)
	if got := lastUserText(t, a.FauxRequests()[0]); got != "Quoted: [\"unterminated] [argument]" {
		t.Errorf("unterminated quote: %q", got)
	}
	if !stderrHas(a, "unterminated quote") {
		t.Errorf("unterminated quote not logged:\n%s", a.Stderr())
	}
	// Still serving.
	a.PromptAndWait("/skill:twin")
	if got := lastUserText(t, a.FauxRequests()[1]); !strings.Contains(got, "twin-a") {
		t.Errorf("first twin should win: %q", got)
	}
}

func TestSkillAndTemplateFlags(t *testing.T) {
	dir := project(t, map[string]string{
		".atomic/prompts/review.md":    reviewTemplate,
		".atomic/skills/lint/SKILL.md": lintSkill,
		"extra/only/SKILL.md":          "---\ndescription: From the flag\n---\nbody",
		"extra/tpl.md":                 "From the flag template",
	})
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{
		"--trust-project", "--no-skills", "--no-prompt-templates", "--skill", "extra/only", "--prompt-template", filepath.Join(dir, "extra", "tpl.md"),
	}})
	cmds := commands(t, a)
	var names []string
	for _, c := range cmds {
		names = append(names, fmt.Sprint(c["name"]))
		if c["location"] != "path" {
			t.Errorf("%v: location %v, want path", c["name"], c["location"])
		}
		if info, _ := c["sourceInfo"].(map[string]any); info["scope"] != "temporary" {
			t.Errorf("%v: sourceInfo %v", c["name"], info)
		}
	}
	if strings.Join(names, ",") != "tpl,skill:only" {
		t.Errorf("commands with --no-skills --no-prompt-templates: %v", names)
	}
}
