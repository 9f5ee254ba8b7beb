package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The notification events of pi 1.6 that tell an extension what the agent
// did around it, in every engine: agent_settled after a run, the span of a
// dialog waiting for the user (ui_prompt_start, ui_prompt_end, overlapping
// dialogs in one span), mcp_servers_change when a server is registered or
// removed after start-up (with every registered server), and
// session_compact_failed for a compaction that could not be made.
func TestNotificationEvents(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  for (const name of ["agent_settled", "ui_prompt_start", "ui_prompt_end", "mcp_servers_change", "session_compact_failed"]) {
    pi.on(name, async (e: any, ctx: any) => { ctx.ui.notify("EV " + name + " " + JSON.stringify(e)); });
  }
  pi.registerCommand("ask", { handler: async (_a: string, ctx: any) => {
    await Promise.all([ctx.ui.confirm("Sure?", "first"), ctx.ui.input("Name?")]);
    ctx.ui.notify("asked");
  } });
  pi.registerCommand("mcp-add", { handler: async () => { pi.registerMcpServer("probe", { url: "http://127.0.0.1:9/mcp" }); } });
  pi.registerCommand("mcp-drop", { handler: async () => { pi.unregisterMcpServer("probe"); } });
}
`
			ext := filepath.Join(dir, "notices.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "done"}})
			a.MustSucceed(map[string]any{"type": "get_extensions"})
			// waitEvent waits for the extension's notice of an event and
			// returns its payload.
			waitEvent := func(from int, name string) map[string]any {
				t.Helper()
				r := a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool {
					m, _ := r["message"].(string)
					return r.Type() == "extension_ui_request" && strings.HasPrefix(m, "EV "+name+" ")
				})
				var p map[string]any
				if err := json.Unmarshal([]byte(strings.TrimPrefix(r["message"].(string), "EV "+name+" ")), &p); err != nil {
					t.Fatal(err)
				}
				return p
			}
			count := func(from int, name string) int {
				n := 0
				for _, r := range a.Records(from) {
					if m, _ := r["message"].(string); r.Type() == "extension_ui_request" && strings.HasPrefix(m, "EV "+name+" ") {
						n++
					}
				}
				return n
			}

			from := a.Len()
			a.PromptAndWait("hello")
			if p := waitEvent(from, "agent_settled"); p["aborted"] != false {
				t.Errorf("agent_settled: %v", p)
			}

			// Two dialogs at once: one span, from the first to the last.
			from = a.Len()
			a.Send(map[string]any{"type": "prompt", "message": "/ask"})
			var dialogs []e2e.Record
			a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool {
				if m, _ := r["method"].(string); r.Type() == "extension_ui_request" && (m == "confirm" || m == "input") {
					dialogs = append(dialogs, r)
				}
				return len(dialogs) == 2
			})
			start := waitEvent(from, "ui_prompt_start")
			if start["reason"] != "ui_prompt" || (start["kind"] != "confirm" && start["kind"] != "input") {
				t.Errorf("ui_prompt_start: %v", start)
			}
			for _, d := range dialogs {
				a.Send(map[string]any{"type": "extension_ui_response", "id": d["id"], "cancelled": true})
			}
			end := waitEvent(from, "ui_prompt_end")
			if end["kind"] != start["kind"] || end["title"] != start["title"] {
				t.Errorf("ui_prompt_end %v does not close ui_prompt_start %v", end, start)
			}
			a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool { return r["message"] == "asked" })
			if s, e := count(from, "ui_prompt_start"), count(from, "ui_prompt_end"); s != 1 || e != 1 {
				t.Errorf("%d ui_prompt_start and %d ui_prompt_end for two overlapping dialogs, want one span", s, e)
			}

			// (With process isolation a server registered from a command
			// stays in the child, as docs/extensions.md says.)
			if runtime != "isolated" {
				from = a.Len()
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/mcp-add"})
				added := waitEvent(from, "mcp_servers_change")
				servers, _ := added["servers"].([]any)
				if len(servers) != 1 || servers[0].(map[string]any)["name"] != "probe" {
					t.Errorf("mcp_servers_change after registering: %v", added)
				}
				from = a.Len()
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/mcp-drop"})
				if removed := waitEvent(from, "mcp_servers_change"); len(removed["servers"].([]any)) != 0 {
					t.Errorf("mcp_servers_change after removing: %v", removed)
				}
			}

			// Nothing to compact yet beyond one exchange: the compaction
			// fails, and the extension is told.
			from = a.Len()
			a.Send(map[string]any{"id": "c", "type": "compact"})
			failed := waitEvent(from, "session_compact_failed")
			if failed["reason"] != "manual" || failed["aborted"] != false || failed["errorMessage"] == "" || failed["willRetry"] != false || failed["fromExtension"] != false {
				t.Errorf("session_compact_failed: %v", failed)
			}
		})
	}
}
