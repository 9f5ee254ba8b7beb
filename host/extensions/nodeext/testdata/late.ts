// Runs in goja and in Node alike: tools registered after load (from
// session_start and from a command) reach the model, pi.setActiveTools
// changes what the next request offers, and terminate: true ends the run
// after the tool batch.
import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.on("session_start", () => {
    pi.registerTool({
      name: "late_tool",
      label: "Late",
      description: "registered from session_start",
      parameters: Type.Object({}),
      async execute() {
        return { content: [{ type: "text", text: "late ok" }], details: {} };
      },
    });
  });
  pi.registerCommand("more", {
    handler: async (_args, ctx) => {
      pi.registerTool({
        name: "final_answer",
        label: "Final",
        description: "ends the run",
        parameters: Type.Object({ answer: Type.String() }),
        async execute(_id, params: any) {
          return { content: [{ type: "text", text: "final: " + params.answer }], details: {}, terminate: true };
        },
      });
      pi.setActiveTools(pi.getActiveTools().filter((t) => t !== "late_tool"));
      ctx.ui.notify(`more: ${pi.getActiveTools().join(",")}`, "info");
    },
  });
  pi.on("tool_call", (e: any) => {
    if (e.toolName === "bash" && String(e.input.command).includes("stop-here")) {
      return { block: true, reason: "stopped", terminate: true };
    }
  });
}
