// Registers its tools after load (from session_start, as pi's
// dynamic-tools example does) and ends the run with terminate: true.
import { Type } from "@sinclair/typebox";

export default function (pi: any) {
  pi.on("session_start", () => {
    pi.registerTool({
      name: "late_tool",
      label: "Late",
      description: "registered from session_start",
      parameters: Type.Object({}),
      async execute() {
        return { content: [{ type: "text", text: "late ok" }] };
      },
    });
    pi.registerTool({
      name: "final_answer",
      label: "Final",
      description: "ends the run",
      parameters: Type.Object({ answer: Type.String() }),
      async execute(_id: string, params: any) {
        return { content: [{ type: "text", text: "final: " + params.answer }], terminate: true };
      },
    });
  });
  pi.on("tool_call", (e: any) => {
    if (e.toolName === "bash" && String(e.input.command).includes("stop-here")) {
      return { block: true, reason: "stopped", terminate: true };
    }
  });
}
