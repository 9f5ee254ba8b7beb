package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi's tool registration semantics in every engine: defaultActive: false
// and the exposures other than direct and model-only register a tool
// inactive, codemode tools are callable by other tools while inactive,
// model-only and hidden ones never; getAllTools reports exposure,
// namespace and annotations.
func TestToolExposure(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  const tool = (name: string, extra: any) => pi.registerTool({ name, description: name, parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text: name + " ran" }], details: {} }; }, ...extra });
  tool("quiet", { defaultActive: false });
  tool("modelonly", { exposure: "model-only" });
  tool("lib", { exposure: "codemode", namespace: { name: "libs" }, annotations: { readOnlyHint: true } });
  tool("gone", { exposure: "hidden" });
  tool("seq", { executionMode: "sequential" });
  pi.registerTool({ name: "outer", description: "outer", parameters: { type: "object", properties: {} },
    async execute(_i: string, _p: any, _s: any, _u: any, ctx: any) {
      const calls: any = {};
      for (const n of ["lib", "modelonly", "gone", "quiet", "seq"]) {
        const r = await ctx.executeTool(n, {});
        calls[n] = r.isError ? "error" : r.result.content[0].text;
      }
      const all: any = {};
      for (const t of pi.getAllTools()) all[t.name] = [t.exposure, t.namespace ? t.namespace.name : null, t.annotations ? t.annotations.readOnlyHint : null];
      return { content: [{ type: "text", text: JSON.stringify({ calls, active: pi.getActiveTools(), all }) }], details: {} };
    } });
}
`
			ext := filepath.Join(dir, "exposure.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{
				{"toolCalls": []map[string]any{{"id": "c1", "name": "outer", "arguments": map[string]any{}}}},
				{"text": "done"},
			})
			var text string
			for _, r := range a.PromptAndWait("go") {
				if r.Type() == "tool_execution_end" && r["toolCallId"] == "c1" {
					text = r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
				}
			}
			var got struct {
				Calls  map[string]string
				Active []string
				All    map[string][]any
			}
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("%q: %v\n%s", text, err, a.Stderr())
			}
			want := map[string]string{"lib": "lib ran", "modelonly": "error", "gone": "error", "quiet": "error", "seq": "seq ran"}
			for k, v := range want {
				if got.Calls[k] != v {
					t.Errorf("executeTool(%q): %q, want %q", k, got.Calls[k], v)
				}
			}
			active := "," + strings.Join(got.Active, ",") + ","
			for _, n := range []string{"modelonly", "seq", "outer"} {
				if !strings.Contains(active, ","+n+",") {
					t.Errorf("%s is not active: %v", n, got.Active)
				}
			}
			for _, n := range []string{"quiet", "lib", "gone"} {
				if strings.Contains(active, ","+n+",") {
					t.Errorf("%s is active: %v", n, got.Active)
				}
			}
			if l := got.All["lib"]; len(l) != 3 || l[0] != "codemode" || l[1] != "libs" || l[2] != true {
				t.Errorf("getAllTools lib: %v", l)
			}
			if got.All["read"][0] != "direct" || got.All["gone"][0] != "hidden" {
				t.Errorf("getAllTools: %v", got.All)
			}
		})
	}
}
