package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// context_with_system as in pi 1.6, in every engine: the handler sees the
// request's whole transcript (a leading system message with the prompt
// and the tools as toolsAdded, then the messages), a later handler sees
// the earlier one's output, and what they return is what the model gets:
// the prompt and the tools replayed from the system messages (a later
// system message's text, sections and tool changes included), the other
// messages as returned. Removing the leading system message is reported.
func TestContextWithSystem(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `import { getCurrentSystemPrompt } from "@earendil-works/pi-ai";
export default function (pi: any) {
  pi.on("context_with_system", (e: any, ctx: any) => {
    const head = e.messages[0];
    const names = (head.toolsAdded || []).map((t: any) => t.name).join(",");
    ctx.ui.notify("SEEN " + head.role + " " + names + " " + getCurrentSystemPrompt(e.messages).startsWith("You are"));
    const last = e.messages[e.messages.length - 1];
    return { messages: [
      { role: "system", content: "Custom prompt.", sections: { a: "<a/>", b: "<b/>" }, toolsAdded: head.toolsAdded.filter((t: any) => t.name === "read" || t.name === "bash"), timestamp: 0 },
      last,
      { role: "system", content: "Later note.", sections: { a: null }, toolsRemoved: [{ name: "bash" }], timestamp: 1 },
    ] };
  });
  pi.on("context_with_system", (e: any, ctx: any) => {
    ctx.ui.notify("SECOND " + e.messages.length + " " + e.messages[0].content);
    if (cut) return { messages: e.messages.filter((m: any) => m.role !== "system") };
  });
  let cut = false;
  pi.registerCommand("cut", { handler: async () => { cut = true; } });
}
`
			ext := filepath.Join(dir, "system.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "one"}, {"text": "two"}})
			notices := map[string]string{}
			for _, r := range a.PromptAndWait("first question") {
				if m, _ := r["message"].(string); r.Type() == "extension_ui_request" {
					notices[strings.Fields(m)[0]] = m
				}
			}
			if notices["SEEN"] != "SEEN system read,bash,edit,write true" || notices["SECOND"] != "SECOND 3 Custom prompt." {
				t.Errorf("the handlers saw: %v\n%s", notices, a.Stderr())
			}
			req := a.FauxRequests()[0]
			var tools []string
			for _, tl := range req["tools"].([]any) {
				tools = append(tools, tl.(map[string]any)["name"].(string))
			}
			if req["systemPrompt"] != "Custom prompt.\n\nLater note.\n\n<b/>" || strings.Join(tools, ",") != "read" {
				t.Errorf("the request: prompt %q, tools %v", req["systemPrompt"], tools)
			}
			msgs, _ := json.Marshal(req["messages"])
			if strings.Count(string(msgs), `"role"`) != 1 || !strings.Contains(string(msgs), "first question") {
				t.Errorf("the request's messages: %s", msgs)
			}

			// Without any system message the request has no prompt and no
			// tools, as the handler asked, and the loss is reported.
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/cut"})
			reported := false
			for _, r := range a.PromptAndWait("second question") {
				if e, _ := r["error"].(string); r.Type() == "extension_error" && strings.Contains(e, "leading system message") {
					reported = true
				}
			}
			req = a.FauxRequests()[1]
			if !reported || req["systemPrompt"] != "" || req["tools"] != nil {
				t.Errorf("without system messages: reported %v, prompt %q, tools %v", reported, req["systemPrompt"], req["tools"])
			}
		})
	}
}
