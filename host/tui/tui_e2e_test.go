package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestFirstFrameAndCtrlDExit(t *testing.T) {
	t.Parallel()
	e2e.Binary(t) // built before the clock starts
	start := time.Now()
	s := startScreen(t, e2e.Options{})
	got := s.waitFor("Type a message", "faux/faux-1")
	t.Logf("first frame with the footer %v after the start", time.Since(start)) // a figure, not a check
	s.golden("first_frame", got)
	s.typeText(keyCtrlD)
	if code := s.wait(); code != 0 {
		t.Fatalf("exit status %d, want 0", code)
	}
	if !s.leftAltScreen() {
		t.Fatal("the terminal was left on the alternate screen")
	}
}

func TestStreamedAnswerFromArgument(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{
		Args:   []string{"say hello"},
		Script: []map[string]any{{"text": "Hello **there**, this is a streamed answer.", "chunks": 8}},
	})
	s.waitFor("say hello", "Hello there, this is a streamed answer.")
	got := s.waitGone("Working…")
	s.golden("streamed_answer", got)
}

func TestToolCallWithOutput(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "printf 'one\\ntwo\\n'"}}}},
		{"text": "Both lines printed."},
	}})
	s.waitFor("Type a message")
	s.typeText("run it" + keyEnter)
	s.waitFor("bash $ printf", "  one", "  two", "Both lines printed.")
	got := s.waitGone("Working…")
	s.golden("tool_call", got)
}

func TestSlashCompletion(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("Type a message")
	s.typeText("/se")
	got := s.waitFor("/session", "Show the session's file")
	s.golden("slash_completion", got)
	if strings.Contains(got, "/model") {
		t.Fatalf("/se lists /model:\n%s", got)
	}
	s.typeText(keyEsc) // closes the list, keeps the text
	s.waitGone("Show the session's file")
	s.typeText("s")
	s.waitFor("Show the session's file", "/ses")
	s.typeText(keyTab)
	s.waitGone("Show the session's file")
	s.typeText(keyEnter)
	s.waitFor("Messages: 0 user")
}

func TestEscAbortsRun(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{
		{"text": strings.Repeat("word ", 200), "chunks": 200, "delayMs": 50},
	}})
	s.waitFor("Type a message")
	s.typeText("go" + keyEnter)
	s.waitFor("Working…", "word")
	s.typeText(keyEsc)
	s.waitFor("Aborted")
	s.waitGone("Working…")
}

const dialogExtension = `
export default function (pi) {
  pi.registerCommand("ask", {
    description: "Ask the user",
    handler: async (_args, ctx) => {
      const ok = await ctx.ui.confirm("Proceed?", "Shall we go on?");
      ctx.ui.notify("confirmed: " + ok, "info");
      const pick = await ctx.ui.select("Pick a fruit", ["apple", "banana", "cherry"]);
      ctx.ui.notify("picked: " + pick, "info");
      const name = await ctx.ui.input("Your name?", "a name", { timeout: Number(_args) || undefined });
      ctx.ui.notify("input: " + name, "info");
      const text = await ctx.ui.editor("Edit the text", "prefilled text");
      ctx.ui.notify("editor: " + text, "info");
      ctx.ui.setStatus("ext", "status from ext");
      ctx.ui.setWidget("w", ["widget line"]);
    },
  });
}
`

func dialogOpts(t *testing.T) e2e.Options {
	dir := t.TempDir()
	ext := filepath.Join(dir, "ask.js")
	if err := os.WriteFile(ext, []byte(dialogExtension), 0o600); err != nil {
		t.Fatal(err)
	}
	return e2e.Options{Args: []string{"-e", ext}}
}

func TestExtensionDialogsAnswered(t *testing.T) {
	t.Parallel()
	s := startScreen(t, dialogOpts(t))
	s.waitFor("Type a message")
	s.typeText("/ask" + keyEnter)
	got := s.waitFor("Proceed?", "Shall we go on?", "Yes", "No")
	s.golden("confirm_dialog", got)
	s.typeText("y")
	s.waitFor("Pick a fruit", "apple", "cherry")
	s.typeText(keyDown + keyEnter)
	s.waitFor("picked: banana", "Your name?")
	s.typeText("Ada" + keyEnter)
	s.waitFor("input: Ada", "Edit the text", "prefilled text")
	s.typeText(" more" + keyEnter)
	s.waitFor("editor: prefilled text more", "status from ext", "widget line")
}

func TestExtensionDialogsCancelled(t *testing.T) {
	t.Parallel()
	s := startScreen(t, dialogOpts(t))
	s.waitFor("Type a message")
	s.typeText("/ask 300" + keyEnter) // the input dialog times out after 300 ms
	s.waitFor("Proceed?")
	s.typeText(keyEsc)
	s.waitFor("Pick a fruit")
	s.typeText(keyEsc)
	s.waitFor("picked: undefined")
	s.waitFor("input: undefined", "Edit the text") // nothing typed: the timeout
	s.typeText(keyEsc)
	s.waitFor("editor: undefined")
}

func TestSIGTERMRestoresTerminal(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("Type a message")
	s.mu.Lock()
	alt := s.emu.IsAltScreen()
	s.mu.Unlock()
	if !alt {
		t.Fatal("the UI is not on the alternate screen")
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wait()
	if !s.leftAltScreen() {
		t.Fatal("the terminal was left on the alternate screen after SIGTERM")
	}
}

func TestSteerWhileStreaming(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "sleep 3; echo slept"}}}},
		{"text": "steered answer"},
	}})
	s.waitFor("Type a message")
	s.typeText("start" + keyEnter)
	s.waitFor("bash $ sleep")
	s.typeText("change course" + keyEnter)
	// Queued above the editor while the tool runs, then delivered.
	s.waitFor("Steer: change course")
	got := s.waitFor("▌ change course", "steered answer")
	if strings.Contains(got, "Steer: change course") {
		t.Fatalf("the delivered steer is still listed as queued:\n%s", got)
	}
}

func TestEditShowsDiff(t *testing.T) {
	t.Parallel()
	opts := e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "edit", "arguments": map[string]any{
			"path": "notes.txt", "oldText": "old line", "newText": "new line",
		}}}},
		{"text": "Edited."},
	}}
	opts.Dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(opts.Dir, "notes.txt"), []byte("first\nold line\nlast\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startScreen(t, opts)
	s.waitFor("Type a message")
	s.typeText("edit it" + keyEnter)
	s.waitFor("edit notes.txt", "-old line", "+new line", "Edited.")
}

func TestModelPicker(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("faux/faux-1")
	s.typeText("/model" + keyEnter)
	s.waitFor("Choose a model", "faux/faux-2")
	s.typeText("faux-2")
	got := s.waitFor("→ faux/faux-2")
	if strings.Contains(got, "  faux/faux-1") {
		t.Fatalf("the filter kept faux-1:\n%s", got)
	}
	s.typeText(keyEnter)
	s.waitGone("Choose a model")
	s.waitFor("faux/faux-2")
}

func TestResizeRedraws(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("Type a message")
	s.mu.Lock()
	s.emu.Resize(60, 20)
	s.mu.Unlock()
	if err := pty.Setsize(s.ptm, &pty.Winsize{Rows: 20, Cols: 60}); err != nil {
		t.Fatal(err)
	}
	// The footer's cost is right-aligned at the new width (a screen only
	// cut to 60 columns would have lost it).
	s.waitUntil("the footer drawn for 60 columns", func(screen string) bool {
		for _, l := range strings.Split(screen, "\n") {
			if strings.HasPrefix(l, "faux/faux-1") && strings.HasSuffix(l, "$0.000") && utf8.RuneCountInString(l) == 60 {
				return true
			}
		}
		return false
	})
}

// Thinking is shown (hideThinkingBlock false, as pi's default); Ctrl+T
// hides it; hideThinkingBlock true starts hidden.
func TestThinkingToggle(t *testing.T) {
	t.Parallel()
	script := []map[string]any{{"thinking": "pondering the request", "text": "The answer."}}
	s := startScreen(t, e2e.Options{Script: script})
	s.waitFor("Type a message")
	s.typeText("think" + keyEnter)
	s.waitFor("pondering the request", "The answer.")
	s.typeText("\x14") // ctrl+t
	got := s.waitFor("Thinking… (ctrl+t to show)", "The answer.")
	if strings.Contains(got, "pondering") {
		t.Fatalf("thinking shown after ctrl+t:\n%s", got)
	}

	s = startScreen(t, e2e.Options{Script: script, AgentFiles: map[string]string{"settings.json": `{"hideThinkingBlock": true}`}})
	s.waitFor("Type a message")
	s.typeText("think" + keyEnter)
	got = s.waitFor("Thinking… (ctrl+t to show)", "The answer.")
	if strings.Contains(got, "pondering") {
		t.Fatalf("thinking shown with hideThinkingBlock:\n%s", got)
	}
}

func TestLongStreamedAnswer(t *testing.T) {
	t.Parallel()
	// 2,000 deltas: the screen keeps up and ends with the whole answer.
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "line %d of the long answer\n\n", i)
	}
	b.WriteString("the very end")
	s := startScreen(t, e2e.Options{Script: []map[string]any{{"text": b.String(), "chunks": 2000}}})
	s.waitFor("Type a message")
	s.typeText("long" + keyEnter)
	s.waitFor("line 399 of the long answer", "the very end")
	s.waitGone("Working…")
}

func TestEditorClearAndCtrlCQuit(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("Type a message")
	s.typeText("draft one")
	s.waitFor("draft one")
	s.typeText(keyCtrlC) // clears
	s.waitGone("draft one")
	s.typeText("draft two")
	s.waitFor("draft two")
	s.typeText(keyEsc + keyEsc) // twice on an idle editor: clears
	s.waitGone("draft two")
	s.typeText(keyCtrlC)
	s.waitFor("Press ctrl+c again to quit")
	s.typeText(keyCtrlC)
	if code := s.wait(); code != 0 {
		t.Fatalf("exit status %d, want 0", code)
	}
}

func TestNewAndResume(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{
		{"text": "answer one"}, {"text": "answer two"},
	}})
	s.waitFor("Type a message")
	s.ask("older session prompt", "answer one")
	s.typeText("/new" + keyEnter)
	s.waitGone("answer one")
	s.ask("newer session prompt", "answer two")
	s.typeText("/resume" + keyEnter)
	got := s.waitFor("Resume a session", "older session prompt", "→ newer session prompt")
	if strings.Index(got, "→ newer session prompt") > strings.Index(got, "  older session prompt") {
		t.Fatalf("sessions not newest first:\n%s", got)
	}
	s.typeText(keyDown + keyEnter)
	s.waitGone("Resume a session")
	got = s.waitFor("▌ older session prompt", "answer one")
	if strings.Contains(got, "answer two") {
		t.Fatalf("the resumed session shows the other one's answer:\n%s", got)
	}
}

func TestFork(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{{"text": "answer one"}, {"text": "answer two"}}})
	s.waitFor("Type a message")
	s.ask("first question", "answer one")
	s.ask("second question", "answer two")
	s.typeText("/fork" + keyEnter)
	s.waitFor("Fork from a message", "→ second question", "  first question")
	s.typeText(keyEnter)
	s.waitGone("Fork from a message")
	got := s.waitGone("answer two")
	if !strings.Contains(got, "answer one") || strings.Contains(got, "▌ second question") {
		t.Fatalf("the fork should end after the first answer, with the second question in the editor:\n%s", got)
	}
	s.waitFor("second question") // back in the editor
}

func TestToolOutputExpands(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "seq -f 'row %g' 1 12"}}}},
		{"text": "Twelve rows."},
	}})
	s.waitFor("Type a message")
	s.typeText("rows" + keyEnter)
	got := s.waitFor("row 12", "… 4 more lines, 12 in all (ctrl+o to expand)", "Twelve rows.")
	if strings.Contains(got, "row 4\n") {
		t.Fatalf("collapsed output shows its first lines:\n%s", got)
	}
	s.typeText("\x0f") // ctrl+o
	s.waitFor("  row 1\n", "  row 4\n", "row 12")
	s.waitGone("more lines")
}

func TestRetryCountsDown(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{
		Script:     []map[string]any{{"error": "overloaded", "status": 529}, {"text": "Recovered."}},
		AgentFiles: map[string]string{"settings.json": `{"retry": {"enabled": true, "maxRetries": 2, "baseDelayMs": 2000}}`},
	})
	s.waitFor("Type a message")
	s.typeText("try" + keyEnter)
	s.waitFor("retrying in 2s (attempt 1 of 2)")
	s.waitFor("retrying in 1s (attempt 1 of 2)")
	s.waitFor("Recovered.")
}

func TestInputEventSourceIsInteractive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ext := filepath.Join(dir, "src.js")
	code := `export default function (pi) {
  pi.on("input", async (event, ctx) => {
    ctx.ui.notify("source: " + event.source, "info");
    return { action: "continue" };
  });
}`
	if err := os.WriteFile(ext, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startScreen(t, e2e.Options{Args: []string{"-e", ext}})
	s.waitFor("Type a message")
	s.typeText("hello" + keyEnter)
	s.waitFor("source: interactive")
}

// -r opens the session picker first; the chosen session is shown.
func TestResumeFlagOpensThePicker(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	env := func() map[string]string {
		return map[string]string{"HOME": home, "ATOMIC_CODING_AGENT_DIR": filepath.Join(home, ".atomic", "agent")}
	}
	s := startScreen(t, e2e.Options{Dir: dir, Env: env(), Script: []map[string]any{{"text": "answer from before"}}})
	s.waitFor("Type a message")
	s.ask("an earlier prompt", "answer from before")
	s.typeText(keyCtrlD)
	if code := s.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	s = startScreen(t, e2e.Options{Dir: dir, Env: env(), Args: []string{"-r"}})
	s.waitFor("Resume a session", "an earlier prompt")
	s.typeText(keyEnter)
	s.waitGone("Resume a session")
	s.waitFor("answer from before")
}
