package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// agent_before_settle as in pi 1.6, in every engine: a handler appends
// entries (a hidden custom message, a custom entry) and asks for one more
// request, which the model gets with the message in its context; a later
// handler sees the earlier one's proposal; the next time nothing is asked
// and the run settles. A proposal that does not validate is reported and
// none of it is appended.
func TestAgentBeforeSettle(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  let reminded = false, bad = false;
  pi.on("agent_before_settle", (e: any) => {
    if (bad) { bad = false; return { entries: [{ type: "custom", customType: "ok" }, { type: "context_edit", targetId: "no-such-entry", replacement: null }] }; }
    if (reminded || e.outcome !== "completed") return;
    reminded = true;
    return { entries: [...e.entries, { type: "custom_message", customType: "review-reminder", content: "Review the final diff.", display: false }], continue: true };
  });
  pi.on("agent_before_settle", (e: any, ctx: any) => {
    if (e.entries.length === 0) return;
    ctx.ui.notify("SECOND " + e.entries.length + " " + e.continue + " " + e.context.llmMessages.length);
    return { entries: [...e.entries, { type: "custom", customType: "settle-note", data: { n: 1 } }] };
  });
  pi.registerCommand("bad", { handler: async () => { bad = true; } });
}
`
			ext := filepath.Join(dir, "settle.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "first answer"}, {"text": "after the reminder"}, {"text": "third"}})
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "do it"})
			a.WaitType(from, "agent_settled")
			recs := a.Records(from)
			settled, starts := 0, 0
			second := ""
			for _, r := range recs {
				switch r.Type() {
				case "agent_settled":
					settled++
				case "agent_start":
					starts++
				case "extension_ui_request":
					if m, _ := r["message"].(string); strings.HasPrefix(m, "SECOND ") {
						second = m
					}
				}
			}
			reqs := a.FauxRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2 (the continuation)\n%s", len(reqs), a.Stderr())
			}
			if b, _ := json.Marshal(reqs[1]["messages"]); !strings.Contains(string(b), "Review the final diff.") {
				t.Errorf("the continuation's messages: %s", b)
			}
			// (llmMessages: the prompt, the answer, the reminder.)
			if second != "SECOND 1 true 3" {
				t.Errorf("the second handler saw %q", second)
			}
			if settled != 1 || starts != 2 {
				t.Errorf("%d agent_start and %d agent_settled, want 2 and 1", starts, settled)
			}
			entries := sessionEntries(t, a)
			if !strings.Contains(entries, `"customType":"review-reminder"`) || !strings.Contains(entries, `"customType":"settle-note"`) {
				t.Errorf("the session: %s", entries)
			}

			// An invalid proposal: reported, nothing appended.
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/bad"})
			reported := false
			from = a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "again"})
			a.WaitType(from, "agent_settled")
			for _, r := range a.Records(from) {
				if e, _ := r["error"].(string); r.Type() == "extension_error" && strings.Contains(e, "no-such-entry") {
					reported = true
				}
			}
			if !reported || strings.Contains(sessionEntries(t, a), `"customType":"ok"`) {
				t.Errorf("invalid proposal: reported %v, session %s", reported, sessionEntries(t, a))
			}
		})
	}
}

// sessionEntries is the session file's text.
func sessionEntries(t *testing.T, a *e2e.Agent) string {
	t.Helper()
	data := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)
	path, _ := data["sessionFile"].(string)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
