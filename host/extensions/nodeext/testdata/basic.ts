import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import * as http from "node:http";

const mod = await import("node:os");

export default function (pi: ExtensionAPI) {
  pi.registerCommand("hello", {
    description: "Say hello",
    handler: async (args: string, ctx) => {
      ctx.ui.notify(`hello ${args} from ${typeof http.createServer} ${typeof mod.platform}`, "info");
    },
  });
  pi.registerTool({
    name: "greet",
    label: "Greet",
    description: "Greets someone",
    parameters: Type.Object({ name: Type.String({ description: "who" }) }),
    async execute(id: string, params: { name: string }) {
      return { content: [{ type: "text", text: `Hello, ${params.name}!` }], details: { n: 1 } };
    },
  });
  pi.on("tool_call", async (event) => {
    if (event.toolName === "bash") return { block: true, reason: "no bash from node" };
  });
}
