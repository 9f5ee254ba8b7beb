package jsext

import (
	"strings"
	"testing"
	"time"
)

func TestLoadTypeScriptAndHandle(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("guard.ts", `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";

interface Decision { block: boolean; reason?: string }

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx): Promise<Decision | undefined> => {
    if (event.toolName === "bash" && String(event.input.command).includes("rm -rf")) {
      return { block: true, reason: "dangerous in " + ctx.cwd };
    }
    return undefined;
  });
  pi.registerTool({
    name: "greet", label: "Greet", description: "Say hello",
    parameters: Type.Object({ name: Type.String(), loud: Type.Optional(Type.Boolean()) }),
    async execute(id, params) { return { content: [{ type: "text", text: "hi " + params.name }] }; },
  });
}
`)
	if got := s.Events(); len(got) != 1 || got[0] != "tool_call" {
		t.Fatalf("events = %v", got)
	}
	res, err := handle(t, s, "tool_call", map[string]any{"toolCallId": "1", "toolName": "bash", "input": map[string]any{"command": "rm -rf /"}}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res, `"block":true`) || !strings.Contains(res, h.dir) {
		t.Fatalf("result = %s", res)
	}
	res, err = handle(t, s, "tool_call", map[string]any{"toolCallId": "2", "toolName": "bash", "input": map[string]any{"command": "ls"}}, 5*time.Second)
	if err != nil || res != "" {
		t.Fatalf("result = %q, %v", res, err)
	}
	tools := s.Tools()
	if len(tools) != 1 || string(tools[0].Parameters) != `{"type":"object","properties":{"name":{"type":"string"},"loud":{"type":"boolean"}},"required":["name"]}` {
		t.Fatalf("tools = %+v", tools)
	}
}
