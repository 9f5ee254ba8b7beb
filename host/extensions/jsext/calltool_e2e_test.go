package jsext_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ctx.executeTool as pi 1.6's, in every engine: a tool calls a built-in
// tool through the agent's pipeline (the tool_call hook sees and may block
// the nested call), the events carry parentToolCallId and the id
// "<parent>/<n>", failures are isError outcomes, and a tool calling
// itself stops at the depth bound; nothing nested enters the transcript.
func TestToolCallsTools(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			note := filepath.Join(dir, "note.txt")
			if err := os.WriteFile(note, []byte("nested text"), 0o644); err != nil {
				t.Fatal(err)
			}
			src := `export default function (pi: any) {
  pi.on("tool_call", async (e: any) => {
    if (e.toolName === "bash") return { block: true, reason: "no shell here" };
  });
  pi.registerTool({
    name: "outer", description: "calls other tools", parameters: { type: "object", properties: { path: { type: "string" } } },
    async execute(_id: string, params: any, _signal: any, _onUpdate: any, ctx: any) {
      const read = await ctx.executeTool("read", { path: params.path });
      const blocked = await ctx.executeTool("bash", { command: "echo hi" });
      const missing = await ctx.executeTool("nope", {});
      const bad = await ctx.executeTool("read", { path: 42, extra: true });
      const deep = await ctx.executeTool("deep", {});
      const names = ctx.tools.map((t: any) => t.name);
      return { content: [{ type: "text", text: JSON.stringify({
        read: [read.toolCall.id, read.isError, read.result.content[0].text, typeof read.durationMs],
        blocked: [blocked.isError, blocked.result.content[0].text],
        missing: [missing.isError, missing.result.content[0].text],
        bad: bad.isError, deep: [deep.isError, deep.result.content[0].text],
        callable: names.includes("read") && names.includes("outer"),
      }) }], details: {} };
    },
  });
  pi.registerTool({
    name: "deep", description: "calls itself", parameters: { type: "object", properties: {} },
    async execute(_id: string, _p: any, _s: any, _u: any, ctx: any) {
      const r = await ctx.executeTool("deep", {});
      if (r.isError) throw new Error(r.result.content[0].text);
      return r.result;
    },
  });
}
`
			ext := filepath.Join(dir, "calls.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{
				{"toolCalls": []map[string]any{{"id": "c1", "name": "outer", "arguments": map[string]any{"path": note}}}},
				{"text": "done"},
			})
			recs := a.PromptAndWait("go")
			var outer string
			starts := map[string]string{} // id -> parent
			for _, r := range recs {
				switch r.Type() {
				case "tool_execution_start":
					p, _ := r["parentToolCallId"].(string)
					starts[r["toolCallId"].(string)] = p
				case "tool_execution_end":
					if r["toolCallId"] == "c1" {
						b, _ := json.Marshal(r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
						outer, _ = strconv.Unquote(string(b))
					}
				}
			}
			var got struct {
				Read     []any
				Blocked  []any
				Missing  []any
				Bad      bool
				Deep     []any
				Callable bool
			}
			if err := json.Unmarshal([]byte(outer), &got); err != nil {
				t.Fatalf("outer's result %q: %v\n%s", outer, err, a.Stderr())
			}
			if len(got.Read) != 4 || got.Read[0] != "c1/1" || got.Read[1] != false || got.Read[2] != "nested text" || got.Read[3] != "number" {
				t.Errorf("read: %v", got.Read)
			}
			if got.Blocked[0] != true || got.Blocked[1] != "no shell here" {
				t.Errorf("blocked: %v", got.Blocked)
			}
			if got.Missing[0] != true || got.Missing[1] != "Tool nope not found" || !got.Bad || !got.Callable {
				t.Errorf("failures: %s", outer)
			}
			if got.Deep[0] != true || !strings.Contains(got.Deep[1].(string), "nested deeper than 8 levels") {
				t.Errorf("deep: %v", got.Deep)
			}
			if starts["c1/1"] != "c1" || starts["c1/2"] != "c1" || starts["c1/5"] != "c1" || starts["c1/5/1"] != "c1/5" {
				t.Errorf("nested starts: %v", starts)
			}
			msgs := a.MustSucceed(map[string]any{"type": "get_messages"})["data"].(map[string]any)["messages"].([]any)
			var nested map[string]any
			for _, m := range msgs {
				mm := m.(map[string]any)
				if id, _ := mm["toolCallId"].(string); id != "" && id != "c1" {
					t.Errorf("a nested call reached the transcript: %v", m)
				} else if id == "c1" {
					nested, _ = mm["nestedCalls"].(map[string]any)
				}
			}
			// The result message keeps pi's bounded record of the nested
			// calls (every depth; no results).
			calls, _ := nested["calls"].([]any)
			var record []string
			for _, c := range calls {
				cm := c.(map[string]any)
				_, timed := cm["durationMs"]
				record = append(record, cm["id"].(string)+":"+cm["name"].(string)+":"+cm["status"].(string)+":"+strconv.FormatBool(timed))
			}
			first, _ := calls[0].(map[string]any)
			if len(calls) < 6 || nested["complete"] != true || strings.Join(record[:5], ",") != "c1/1:read:ok:true,c1/2:bash:error:false,c1/3:nope:error:false,c1/4:read:error:true,c1/5:deep:error:true" ||
				first["arguments"].(map[string]any)["path"] != note || !strings.Contains(fmt.Sprint(calls[1].(map[string]any)["error"]), "no shell here") {
				t.Errorf("nestedCalls: %v (%v)", record, nested)
			}
		})
	}
}

// The files a tool's nested calls read and changed count in a branch
// summary's file lists, and the HTML export lists the nested calls with
// the calling tool's result.
func TestNestedCallsInSummaryAndExport(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(note, []byte("nested text"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `export default function (pi: any) {
  pi.registerTool({
    name: "outer", description: "reads through another tool", parameters: { type: "object", properties: { path: { type: "string" } } },
    async execute(_id: string, params: any, _signal: any, _onUpdate: any, ctx: any) {
      const r = await ctx.executeTool("read", { path: params.path });
      return { content: [{ type: "text", text: "read " + r.result.content[0].text }], details: {} };
    },
  });
}
`
	ext := filepath.Join(dir, "outer.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startInRuntime(t, "goja", ext, []map[string]any{
		{"text": "first answer"},
		{"toolCalls": []map[string]any{{"id": "c1", "name": "outer", "arguments": map[string]any{"path": note}}}},
		{"text": "done"},
		{"text": "The branch read a note."}, // the summary
	})
	a.PromptAndWait("hello")
	a.PromptAndWait("go")
	entries := a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["entries"].([]any)
	firstAnswer := entries[1].(map[string]any)["id"].(string)
	a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": firstAnswer, "options": map[string]any{"summarize": true}})
	entries = a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["entries"].([]any)
	var summary map[string]any
	var result string // the outer tool's result entry, on the branch left
	for _, e := range entries {
		em := e.(map[string]any)
		if em["type"] == "branch_summary" {
			summary = em
		}
		if m, _ := em["message"].(map[string]any); m != nil && m["toolCallId"] == "c1" {
			result = em["id"].(string)
		}
	}
	if summary == nil || !strings.Contains(fmt.Sprint(summary["summary"]), "<read-files>\n"+note+"\n</read-files>") ||
		fmt.Sprint(summary["details"].(map[string]any)["readFiles"]) != "["+note+"]" {
		t.Fatalf("branch summary %v", summary)
	}
	a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": result})
	out := filepath.Join(dir, "export.html")
	a.MustSucceed(map[string]any{"type": "export_html", "outputPath": out})
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<summary>Nested calls: 1</summary><pre>✓ read {&#34;path&#34;:&#34;"+note+"&#34;}") {
		t.Errorf("the export does not list the nested call:\n%s", page)
	}
}
