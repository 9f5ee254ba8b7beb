// Runs in goja and in Node alike: the runtime-choice tests load it under
// both and compare the events.
import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  let calls = 0;
  pi.registerCommand("count", {
    description: "Show how many tools ran",
    handler: async (args, ctx) => {
      ctx.ui.notify(`count ${args}: ${calls} in ${ctx.sessionManager.getSessionName() ?? "unnamed"}`, "info");
    },
  });
  pi.registerTool({
    name: "shout",
    label: "Shout",
    description: "Upper-cases a text",
    parameters: Type.Object({ text: Type.String({ description: "what to shout" }), times: Type.Optional(Type.Number()) }),
    async execute(_id, params, _signal, onUpdate) {
      calls++;
      onUpdate?.({ content: [{ type: "text", text: "working" }] });
      return { content: [{ type: "text", text: params.text.toUpperCase().repeat(params.times ?? 1) }], details: { calls } };
    },
  });
  pi.on("tool_call", async (event) => {
    if (event.toolName === "bash" && String(event.input.command).includes("rm -rf")) {
      return { block: true, reason: "both: no rm -rf" };
    }
  });
  pi.on("tool_result", async (event) => {
    if (event.toolName === "shout") return { content: [{ type: "text", text: event.content[0].text + "!" }] };
  });
}
