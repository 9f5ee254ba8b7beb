package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// backToSecondQuestion asks two questions, opens /tree and chooses the
// second; the model's next turn answers with next.
func backToSecondQuestion(t *testing.T, next string) *screen {
	t.Helper()
	s := startScreen(t, e2e.Options{Script: []map[string]any{{"text": "answer one"}, {"text": "answer two"}, {"text": next}}})
	s.waitFor("Type a message")
	s.ask("first question", "answer one")
	s.ask("second question", "answer two")
	s.typeText("/tree" + keyEnter)
	s.waitFor("Session tree", "→ ● assistant: answer two", "• user: second question", "• user: first question")
	s.typeText(keyUp + keyEnter)
	return s
}

// /tree moves back to an earlier message; a new prompt from there starts
// a branch, which the tree then shows.
func TestTreeNavigatesAndBranches(t *testing.T) {
	t.Parallel()
	s := backToSecondQuestion(t, "answer three")
	s.waitFor("Summarize the branch you leave?", "→ No summary")
	s.typeText(keyEnter)
	s.waitGone("Summarize the branch")
	got := s.waitGone("answer two")
	if !strings.Contains(got, "answer one") {
		t.Fatalf("the conversation should end after the first answer:\n%s", got)
	}
	s.waitEditor("second question") // its text is back in the editor
	s.typeText(keyCtrlC + "another question" + keyEnter)
	s.waitFor("answer three")
	s.waitGone("Working…")
	s.typeText("/tree" + keyEnter)
	got = s.waitFor("Session tree", "├ user: second question", "└ user: another question", "●   assistant: answer three")
	s.golden("tree_branched", got)
	if strings.Contains(got, "• assistant: answer two") {
		t.Fatalf("the left branch is marked as the current one:\n%s", got)
	}
}

// /trust trusts an untrusted project: its extension's command is there
// at once, and a later run finds the decision.
func TestTrustLoadsTheProject(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	env := func() map[string]string {
		return map[string]string{"HOME": home, "ATOMIC_CODING_AGENT_DIR": filepath.Join(home, ".atomic", "agent")}
	}
	ext := filepath.Join(dir, ".atomic", "extensions", "hello.js")
	if err := os.MkdirAll(filepath.Dir(ext), 0o755); err != nil {
		t.Fatal(err)
	}
	code := `export default function (pi) {
  pi.registerCommand("hello", { description: "Say hello from the project", handler: async (_a, ctx) => ctx.ui.notify("hello from the project", "info") });
}`
	if err := os.WriteFile(ext, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startScreen(t, e2e.Options{Dir: dir, Env: env()})
	s.waitFor("Type a message")
	s.typeText("/ses")
	s.waitFor("Show the session's file") // the command list is loaded
	s.typeText(keyCtrlC + "/hel")
	if got := s.waitEditor("/hel"); strings.Contains(got, "Say hello") {
		t.Fatalf("an untrusted project's command is listed:\n%s", got)
	}
	s.typeText(keyCtrlC + "/trust" + keyEnter)
	s.waitFor("Trust ", "extensions run code with your permissions", "→ Trust it")
	s.typeText(keyEnter)
	s.waitFor("Trusted ", "(1 extensions loaded)")
	s.typeText("/hel")
	s.waitFor("/hello", "Say hello from the project")
	s.typeText(keyCtrlC + "/trust" + keyEnter)
	s.waitFor("This project is trusted")
	s.typeText(keyCtrlD)
	s.wait()

	s = startScreen(t, e2e.Options{Dir: dir, Env: env()})
	s.waitFor("Type a message")
	s.typeText("/hel")
	s.waitFor("Say hello from the project")
}

// /tree with Summarize: the model summarizes the branch left, and the
// summary is an entry where the session moved.
func TestTreeSummarizesTheBranchLeft(t *testing.T) {
	t.Parallel()
	s := backToSecondQuestion(t, "what the left branch did")
	s.waitFor("→ No summary")
	s.typeText(keyDown + keyEnter) // Summarize
	s.waitGone("Summarize the branch")
	s.waitEditor("second question")
	s.waitFor("Summary of the branch left:", "what the left branch did") // in the conversation
	s.typeText(keyCtrlC + "/tree" + keyEnter)
	s.waitFor("→ ● └ branch summary: ") // the model's text, after a preface
}
