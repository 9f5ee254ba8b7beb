package jsext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// before_agent_start's systemPromptOptions and ctx.getSystemPromptOptions()
// as in pi 1.6, in every engine: a handler changes the options in place
// (a guideline, a section, a tool's snippet, the selected tools) and the
// run's prompt is built from them; a later handler's systemPrompt shows
// the change; the selected tools become the active tools; the options a
// command reads name the tools, the working directory and the context
// files.
func TestSystemPromptOptions(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.on("before_agent_start", (e: any) => {
    const o = e.systemPromptOptions;
    o.promptGuidelines.push("Always mention the ticket number.");
    o.sections.ticket = "Ticket: ABC-123";
    o.toolSnippets.bash = "Run shell commands (custom snippet)";
    o.selectedTools = o.selectedTools.filter((n: string) => n !== "write");
  });
  pi.on("before_agent_start", (e: any, ctx: any) => {
    ctx.ui.notify("LATER " + e.systemPrompt.includes("ABC-123"));
  });
  pi.registerCommand("opts", { handler: async (_a: string, ctx: any) => {
    const o = ctx.getSystemPromptOptions();
    ctx.ui.notify("OPTS " + o.selectedTools.join(",") + " " + (typeof o.cwd) + " " + Array.isArray(o.contextFiles) + " " + Array.isArray(o.skills));
  } });
}
`
			ext := filepath.Join(dir, "prompt.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "ok"}})
			later := ""
			for _, r := range a.PromptAndWait("hi") {
				if m, _ := r["message"].(string); strings.HasPrefix(m, "LATER ") {
					later = m
				}
			}
			if later != "LATER true" {
				t.Errorf("the later handler: %q", later)
			}
			req := a.FauxRequests()[0]
			prompt, _ := req["systemPrompt"].(string)
			for _, want := range []string{"- Always mention the ticket number.", "<ticket>\nTicket: ABC-123\n</ticket>", "- bash: Run shell commands (custom snippet)"} {
				if !strings.Contains(prompt, want) {
					t.Errorf("the prompt lacks %q:\n%s", want, prompt)
				}
			}
			if strings.Contains(prompt, "- write:") {
				t.Errorf("write is still listed:\n%s", prompt)
			}
			var tools []string
			for _, tl := range req["tools"].([]any) {
				tools = append(tools, tl.(map[string]any)["name"].(string))
			}
			if strings.Join(tools, ",") != "read,bash,edit" {
				t.Errorf("tools of the request: %v", tools)
			}
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/opts"})
			got := ""
			for _, r := range a.Records(from) {
				if m, _ := r["message"].(string); strings.HasPrefix(m, "OPTS ") {
					got = m
				}
			}
			if got != "OPTS read,bash,edit string true true" {
				t.Errorf("ctx.getSystemPromptOptions(): %q", got)
			}
		})
	}
}
