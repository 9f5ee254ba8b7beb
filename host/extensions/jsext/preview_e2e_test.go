package jsext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The context preview of the actionable boundaries (turn_end,
// agent_before_settle) lists pi 1.6's contextEntries, in goja and Node:
// the branch's entries with the messages each gives, the proposal so far
// applied (a custom message as an entry at the end, of role custom as the
// agent keeps it; a context edit changing its target's messages).
func TestBoundaryContextEntries(t *testing.T) {
	ext := filepath.Join(t.TempDir(), "preview.ts")
	if err := os.WriteFile(ext, []byte(previewExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, runtime := range []string{"goja", "node"} {
		t.Run(runtime, func(t *testing.T) {
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "the answer"}})
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "hello"})
			a.WaitType(from, "agent_settled")
			var turn, settle string
			for _, r := range a.Records(from) {
				m, _ := r["message"].(string)
				switch {
				case strings.HasPrefix(m, "TURN "):
					turn = m
				case strings.HasPrefix(m, "SETTLE "):
					settle = m
				}
			}
			// (The session starts with its model and thinking level.)
			if !strings.HasSuffix(turn, "message/user:1,message/assistant:1,message/note:1") || strings.Contains(turn, "!noid") {
				t.Errorf("turn_end's contextEntries: %q\n%s", turn, a.Stderr())
			}
			if !strings.HasSuffix(settle, "message/user:1,message/assistant:1,message/note:1,context_edit:0 hello->EDITED") {
				t.Errorf("agent_before_settle's contextEntries: %q\n%s", settle, a.Stderr())
			}
		})
	}
}

const previewExtension = `export default function (pi: any) {
  const describe = (ce: any[]) => ce.map((p: any) => p.sourceEntry.type + (p.sourceEntry.message ? "/" + (p.sourceEntry.message.customType || p.sourceEntry.message.role) : "") + ":" + p.messages.length + (p.sourceEntry.id ? "" : "!noid")).join(",");
  pi.on("turn_end", () => ({ entries: [{ type: "custom_message", customType: "note", content: "a note", display: false }] }));
  pi.on("turn_end", (e: any, ctx: any) => { ctx.ui.notify("TURN " + describe(e.context.contextEntries)); });
  let edited = false;
  pi.on("agent_before_settle", (e: any) => {
    if (edited) return;
    edited = true;
    const first = e.context.contextEntries.find((p: any) => p.sourceEntry.type === "message" && p.sourceEntry.message.role === "user");
    return { entries: [{ type: "context_edit", targetId: first.sourceEntry.id, replacement: { content: "EDITED" } }] };
  });
  pi.on("agent_before_settle", (e: any, ctx: any) => {
    if (e.entries.length === 0) return;
    const first = e.context.contextEntries.find((p: any) => p.sourceEntry.type === "message" && p.sourceEntry.message.role === "user");
    const text = first.messages.map((m: any) => typeof m.content === "string" ? m.content : m.content.map((b: any) => b.text).join("")).join("|");
    ctx.ui.notify("SETTLE " + describe(e.context.contextEntries) + " " + first.sourceEntry.message.content[0].text + "->" + text);
  });
}
`
