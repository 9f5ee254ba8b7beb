// Runs in goja and in Node alike: pi's built-in tool factories give tool
// objects that run the agent's own built-in tools (a bash tool with a
// commandPrefix and a spawnHook, a read tool relative to its cwd).
import {
  createAllTools,
  createBashTool,
  createCodingTools,
  createLsToolDefinition,
  createReadOnlyTools,
  createReadTool,
} from "@mariozechner/pi-coding-agent";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  const bash = createBashTool(process.cwd(), {
    commandPrefix: "PREFIX=yes",
    spawnHook: ({ command, cwd, env }) => ({ command: "echo hooked; " + command, cwd, env: { ...env, FACTORY_HOOK: "1" } }),
  });
  pi.registerTool({ ...bash, name: "my_bash", execute: (id, p, signal, onUpdate) => bash.execute(id, p, signal, onUpdate) });
  const read = createReadTool(process.cwd());
  pi.registerTool({ ...read, name: "my_read" });
  pi.registerCommand("factories", {
    handler: async (_args, ctx) => {
      const names = [
        createCodingTools("/").map((t) => t.name),
        createReadOnlyTools("/").map((t) => t.name),
        Object.keys(createAllTools("/")),
        createLsToolDefinition("/").name,
      ];
      const shown = { description: read.description, parameters: read.parameters, snippet: read.promptSnippet, guidelines: read.promptGuidelines };
      ctx.ui.notify(`factories: ${JSON.stringify(names)} ${JSON.stringify(shown)}`, "info");
    },
  });
}
