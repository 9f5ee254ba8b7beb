package jsext_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestCommandWaitsForSessionStart: as in pi, an extension command runs
// only once the start-up session_start handlers have finished (an
// extension sets up there what its commands use). The handler here waits
// for a dialog that is answered only after the command was sent.
func TestCommandWaitsForSessionStart(t *testing.T) {
	a, dialog := startWithSetupDialog(t, `export default function (pi: any) {
  let state = "none";
  pi.on("session_start", async (_e: any, ctx: any) => {
    await ctx.ui.input("setting up");
    state = "ready";
  });
  pi.registerCommand("state", { handler: async (_args: string, ctx: any) => { ctx.ui.notify("state=" + state); } });
}`)
	from := a.Len()
	// The prompt is answered once the command has run, after the dialog.
	a.Send(map[string]any{"type": "prompt", "message": "/state"})
	a.Send(map[string]any{"type": "extension_ui_response", "id": dialog["id"], "value": "ok"})
	got := a.WaitFrom(from, 60*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "notify" })
	if got == nil || got["message"] != "state=ready" {
		t.Fatalf("the command ran before session_start finished: %v\n%s", got, a.Stderr())
	}
}

// TestPromptWaitsForSessionStart: a tool that a session_start handler
// registers is offered in the first model request of a prompt sent while
// the handler still runs (pi handles no command before session_start has
// been handled). The handler waits for a dialog; the test answers it once
// the prompt's run has ended, or after a while if it does not run: a run
// that does not wait ends first and misses the tool.
func TestPromptWaitsForSessionStart(t *testing.T) {
	a, dialog := startWithSetupDialog(t, `export default function (pi: any) {
  pi.on("session_start", async (_e: any, ctx: any) => {
    await ctx.ui.input("setting up");
    pi.registerTool({
      name: "late_echo", label: "late", description: "echoes",
      parameters: { type: "object", properties: {} },
      execute: async () => ({ content: [{ type: "text", text: "late" }] }),
    });
  });
}`)
	from := a.Len()
	a.Send(map[string]any{"type": "prompt", "message": "hello"})
	ended := func(r e2e.Record) bool { return r["type"] == "agent_end" }
	early := a.Within(from, 3*time.Second, ended) != nil
	a.Send(map[string]any{"type": "extension_ui_response", "id": dialog["id"], "value": "ok"})
	if a.WaitFrom(from, 60*time.Second, ended) == nil {
		t.Fatalf("the prompt did not run\n%s", a.Stderr())
	}
	reqs := a.FauxRequests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	if !strings.Contains(fmt.Sprint(reqs[0]["tools"]), "late_echo") {
		t.Fatalf("the first request lacks the tool session_start registered (run ended before the handler: %v): %v", early, reqs[0]["tools"])
	}
}

// TestGetCommandsWaitsForSessionStart: get_commands lists a command that
// a session_start handler registers, when asked while the handler still
// runs (as pi, which answers once session_start has been handled).
func TestGetCommandsWaitsForSessionStart(t *testing.T) {
	a, dialog := startWithSetupDialog(t, `export default function (pi: any) {
  pi.on("session_start", async (_e: any, ctx: any) => {
    await ctx.ui.input("setting up");
    pi.registerCommand("late", { handler: async () => {} });
  });
}`)
	from := a.Len()
	id := a.NewID()
	a.Send(map[string]any{"id": id, "type": "get_commands"})
	answer := func(r e2e.Record) bool { return r["type"] == "response" && r["id"] == id }
	early := a.Within(from, 3*time.Second, answer) != nil
	a.Send(map[string]any{"type": "extension_ui_response", "id": dialog["id"], "value": "ok"})
	got := a.WaitFrom(from, 60*time.Second, answer)
	if !strings.Contains(fmt.Sprint(got["data"]), "name:late") {
		t.Fatalf("get_commands lacks the command session_start registered (answered before the handler ended: %v): %v", early, got["data"])
	}
}

// startWithSetupDialog starts the agent with the script src, whose
// session_start handler opens an input dialog, and returns the dialog.
func startWithSetupDialog(t *testing.T, src string) (*e2e.Agent, e2e.Record) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "setup.ts")
	if err := writeFile(p, src); err != nil {
		t.Fatal(err)
	}
	a := startScripts(t, nil, nil, entry(p, "", nil))
	dialog := a.WaitFrom(0, 60*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "input" })
	return a, dialog
}
