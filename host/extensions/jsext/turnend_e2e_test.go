package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// turn_end as pi 1.6's actionable boundary, in every engine: the event
// names the turn's entries (messageEntryId, toolResultEntryIds) and its
// outcome; a handler that drops the answer from the context
// (context_edit) and adds an instruction (custom_message) with continue
// gets one more request, in which the model sees the instruction and not
// the dropped answer; a tool turn goes on as it would anyway.
func TestTurnEndBoundary(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  let replaced = false;
  pi.on("turn_end", (e: any, ctx: any) => {
    ctx.ui.notify("TURN " + e.turnIndex + " " + e.outcome + " " + (e.messageEntryId ? "id" : "none") + " " + e.toolResultEntryIds.length + " " + e.toolResults.length);
    if (replaced || e.outcome !== "completed" || e.toolResults.length > 0) return;
    replaced = true;
    return {
      entries: [...e.entries,
        { type: "context_edit", targetId: e.messageEntryId, replacement: null },
        { type: "custom_message", customType: "replacement-instruction", content: "Answer again, shorter.", display: false }],
      continue: true,
    };
  });
}
`
			ext := filepath.Join(dir, "turnend.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{bashCall("echo tool-ran"), {"text": "first long answer"}, {"text": "short"}})
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
			a.WaitType(from, "agent_settled")
			var turns []string
			for _, r := range a.Records(from) {
				if m, _ := r["message"].(string); r.Type() == "extension_ui_request" && strings.HasPrefix(m, "TURN ") {
					turns = append(turns, m)
				}
			}
			want := []string{"TURN 0 completed id 1 1", "TURN 1 completed id 0 0", "TURN 2 completed id 0 0"}
			if strings.Join(turns, "|") != strings.Join(want, "|") {
				t.Errorf("turn_end events: %q, want %q", turns, want)
			}
			reqs := a.FauxRequests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3\n%s", len(reqs), a.Stderr())
			}
			b, _ := json.Marshal(reqs[2]["messages"])
			if !strings.Contains(string(b), "Answer again, shorter.") || strings.Contains(string(b), "first long answer") || !strings.Contains(string(b), "tool-ran") {
				t.Errorf("the third request: %s", b)
			}
		})
	}
}
