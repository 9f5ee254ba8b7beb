package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// message_end returning {message} replaces the finished message, as in
// pi 1.6, in every engine: the client's message_end, the session and the
// next model request carry the replacement; a later handler sees the
// earlier one's; a replacement of another role is refused with an
// extension_error and the message stays as it was.
func TestMessageEndReplacesTheMessage(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.on("message_end", (e: any) => {
    if (e.message.role === "assistant") return { message: { ...e.message, content: [{ type: "text", text: "replaced answer" }] } };
    if (e.message.role === "user") return { message: { ...e.message, role: "assistant" } };
  });
  pi.on("message_end", (e: any) => {
    if (e.message.role !== "assistant") return;
    const t = e.message.content[0].text;
    return { message: { ...e.message, content: [{ type: "text", text: t + " (seen by the second)" }] } };
  });
}
`
			ext := filepath.Join(dir, "replace.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "original answer"}, {"text": "second"}})
			var ends []string
			var roleError bool
			for _, r := range a.PromptAndWait("first") {
				switch r.Type() {
				case "message_end":
					b, _ := json.Marshal(r["message"])
					ends = append(ends, string(b))
				case "extension_error":
					roleError = roleError || strings.Contains(r["error"].(string), "must keep the role")
				}
			}
			const want = "replaced answer (seen by the second)"
			if len(ends) != 2 || !strings.Contains(ends[0], `"role":"user"`) || !strings.Contains(ends[1], want) || strings.Contains(ends[1], "original") {
				t.Fatalf("message_end events: %v\n%s", ends, a.Stderr())
			}
			if !roleError {
				t.Errorf("no extension_error for the replacement of another role")
			}
			msgs := a.MustSucceed(map[string]any{"type": "get_messages"})["data"].(map[string]any)["messages"].([]any)
			if b, _ := json.Marshal(msgs); !strings.Contains(string(b), want) {
				t.Errorf("the session: %s", b)
			}
			a.PromptAndWait("again")
			reqs := a.FauxRequests()
			if b, _ := json.Marshal(reqs[len(reqs)-1]); !strings.Contains(string(b), want) || strings.Contains(string(b), "original answer") {
				t.Errorf("the next request: %s", b)
			}
		})
	}
}
