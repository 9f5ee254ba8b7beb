package tui_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

const keyUp = "\x1b[A"

// editorText is the text between the two rules around the editor.
func editorText(screen string) string {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if strings.HasPrefix(l, "────") {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return "<no editor>"
	}
	a, b := rules[len(rules)-2], rules[len(rules)-1]
	return strings.TrimSpace(strings.Join(lines[a+1:b], "\n"))
}

// waitEditor waits until the editor holds want.
func (s *screen) waitEditor(want string) string {
	s.t.Helper()
	return s.waitUntil(fmt.Sprintf("the editor holding %q", want), func(got string) bool { return editorText(got) == want })
}

// The history: ↑ on the first line shows older prompts, ↓ newer ones and
// then the draft; it is kept per project across runs.
func TestEditorHistory(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	env := func() map[string]string {
		return map[string]string{"HOME": home, "ATOMIC_CODING_AGENT_DIR": filepath.Join(home, ".atomic", "agent")}
	}
	s := startScreen(t, e2e.Options{Dir: dir, Env: env(), Script: []map[string]any{{"text": "answer one"}, {"text": "answer two"}}})
	s.waitFor("Type a message")
	s.ask("first prompt", "answer one")
	s.ask("second prompt", "answer two")
	s.typeText("draft")
	s.waitEditor("draft")
	s.typeText(keyUp) // the cursor is not at the start: it goes there first
	s.typeText(keyUp)
	s.waitEditor("second prompt")
	s.typeText(keyUp)
	s.waitEditor("first prompt")
	s.typeText(keyUp) // the oldest: stays
	s.typeText(keyDown)
	s.waitEditor("second prompt")
	s.typeText(keyDown)
	s.waitEditor("draft")
	s.typeText(keyCtrlC + keyCtrlD)
	if code := s.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}

	// Another run in the same project has the history; one elsewhere not.
	s = startScreen(t, e2e.Options{Dir: dir, Env: env()})
	s.waitFor("Type a message")
	s.typeText(keyUp)
	s.waitEditor("second prompt")
	s = startScreen(t, e2e.Options{Dir: t.TempDir(), Env: env()})
	s.waitFor("Type a message")
	s.typeText(keyUp + "x")
	s.waitEditor("x")
}

// @ completes the project's paths, .gitignore respected.
func TestAtPathCompletion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"src/main.go": "package main\n", "src/util.go": "package main\n", "README.md": "# hi\n",
		"debug.log": "noise\n", ".gitignore": "*.log\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	s := startScreen(t, e2e.Options{Dir: dir, Script: []map[string]any{{"text": "seen"}}})
	s.waitFor("Type a message")
	s.typeText("look at @mai")
	got := s.waitFor("→ src/main.go")
	if strings.Contains(got, "util.go") {
		t.Fatalf("@mai lists util.go:\n%s", got)
	}
	s.typeText(keyTab)
	s.waitEditor("look at @src/main.go")
	s.typeText("and @debug")
	got = s.waitEditor("look at @src/main.go and @debug")
	if strings.Contains(got, "debug.log") {
		t.Fatalf("an ignored file is offered:\n%s", got)
	}
	s.typeText(keyCtrlC + "@sr")
	s.waitFor("→ src/")
	s.typeText(keyTab) // a directory: no space, its entries next
	s.waitFor("→ src/main.go", "src/util.go")
	s.waitEditor("@src/")
}

// A large paste shows as a marker, deleted whole, and is sent as the
// text.
func TestLargePasteCollapsed(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{{"text": "got the paste"}}})
	s.waitFor("Type a message")
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprintf("pasted line %d", i))
	}
	s.typeText("see ")
	s.typeText("\x1b[200~" + strings.Join(lines, "\n") + "\x1b[201~")
	s.waitEditor("see [paste #1 +20 lines]")
	s.typeText("\x7f") // backspace takes the marker whole
	s.waitEditor("see")
	s.typeText("\x1b[200~" + strings.Join(lines, "\n") + "\x1b[201~")
	s.waitEditor("see [paste #2 +20 lines]")
	s.typeText(keyEnter)
	s.waitFor("got the paste", "pasted line 20")
	rec, err := os.ReadFile(s.env.Record)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rec), `pasted line 1\npasted line 2`) || strings.Contains(string(rec), "[paste #1") {
		t.Fatalf("the model was not sent the pasted text:\n%s", rec)
	}
}

// keybindings.json replaces an action's keys; what it gets wrong is named
// in one warning.
func TestKeybindingsFile(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{AgentFiles: map[string]string{"keybindings.json": `{
  "$schema": "https://pi.dev/schemas/keybindings.schema.json",
  "app.exit": "ctrl+q",
  "app.bogus": "x",
  "app.thinking.toggle": ["ctrl+"],
  "app.editor.external": "ctrl+g"
}`}})
	got := s.waitFor("keybindings.json", "Type a message")
	for _, want := range []string{"unknown action app.bogus", `app.thinking.toggle: bad key "ctrl+"`, "not supported by atomic yet, ignored: app.editor.external"} {
		if !strings.Contains(strings.ReplaceAll(got, "\n", " "), want) {
			t.Errorf("the warning does not say %q:\n%s", want, got)
		}
	}
	s.typeText("/hotkeys" + keyEnter)
	s.waitFor("Commands:")
	s.typeText(strings.Repeat("\x1b[5~", 6)) // pgup: the list's start
	s.waitFor("ctrl+q                     quit (on an empty editor)")
	s.typeText(keyCtrlD) // no longer quits
	s.typeText("\x11")   // ctrl+q
	if code := s.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}

// /reload reads keybindings.json again.
func TestReloadReadsKeybindings(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("Type a message")
	if err := os.WriteFile(filepath.Join(s.env.AgentDir, "keybindings.json"), []byte(`{"app.exit": "ctrl+q", "app.nope": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s.typeText("/reload" + keyEnter)
	s.waitFor("unknown action app.nope")
	s.typeText("\x11") // ctrl+q
	if code := s.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}
