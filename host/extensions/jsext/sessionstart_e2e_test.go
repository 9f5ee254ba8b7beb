package jsext_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestCommandWaitsForSessionStart: as in pi, an extension command runs
// only once the start-up session_start handlers have finished (an
// extension sets up there what its commands use). The handler here waits
// for a dialog that is answered only after the command was sent.
func TestCommandWaitsForSessionStart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "setup.ts")
	if err := writeFile(p, `export default function (pi: any) {
  let state = "none";
  pi.on("session_start", async (_e: any, ctx: any) => {
    await ctx.ui.input("setting up");
    state = "ready";
  });
  pi.registerCommand("state", { handler: async (_args: string, ctx: any) => { ctx.ui.notify("state=" + state); } });
}`); err != nil {
		t.Fatal(err)
	}
	a := startScripts(t, nil, nil, entry(p, "", nil))
	dialog := a.WaitFrom(0, 60*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "input" })
	if dialog == nil {
		t.Fatalf("no session_start dialog\n%s", a.Stderr())
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/state"})
	a.Send(map[string]any{"type": "extension_ui_response", "id": dialog["id"], "value": "ok"})
	got := a.WaitFrom(from, 60*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "notify" })
	if got == nil || got["message"] != "state=ready" {
		t.Fatalf("the command ran before session_start finished: %v\n%s", got, a.Stderr())
	}
}
