// A TypeScript extension written the way the reference product's
// extensions are: default-export factory, TypeBox parameters, async
// handlers, type-only imports.
import type { ExtensionAPI, ExtensionContext, ToolCallEvent } from "@mariozechner/pi-coding-agent";
import { Type, type Static } from "@sinclair/typebox";
import { StringEnum } from "@mariozechner/pi-ai";

const TodoParams = Type.Object({
  text: Type.String({ description: "what to do" }),
  priority: Type.Optional(StringEnum(["low", "high"] as const)),
});
type TodoInput = Static<typeof TodoParams>;

interface TodoState {
  items: string[];
}

export default function (pi: ExtensionAPI) {
  const state: TodoState = { items: [] };
  console.log("pi-style extension loading (this must not reach stdout)");

  pi.on("tool_call", async (event: ToolCallEvent, ctx: ExtensionContext) => {
    if (event.toolName !== "bash") return undefined;
    const command = String(event.input.command ?? "");
    if (command.includes("rm -rf")) {
      return { block: true, reason: "pi-style: refusing rm -rf" };
    }
    if (command.includes("deploy")) {
      const ok = await ctx.ui.confirm("Deploy?", command);
      if (!ok) return { block: true, reason: "pi-style: deploy declined" };
    }
    return undefined;
  });

  pi.on("tool_result", async (event) => {
    if (event.toolName !== "bash" || event.isError) return undefined;
    const text = event.content.map((c: any) => c.text ?? "").join("");
    return { content: [{ type: "text", text: text + "[patched by pi-style]" }] };
  });

  pi.on("session_before_switch", async (event) => {
    if (event.reason === "new" && state.items.includes("keep session")) {
      return { cancel: true };
    }
  });

  pi.registerTool({
    name: "todo_add",
    label: "Add todo",
    description: "Add an item to the todo list",
    parameters: TodoParams,
    async execute(toolCallId: string, params: TodoInput, signal, onUpdate) {
      onUpdate?.({ content: [{ type: "text", text: "adding..." }] });
      state.items.push(params.text);
      pi.appendEntry("todo-state", { items: state.items });
      return {
        content: [{ type: "text", text: `added "${params.text}" (${params.priority ?? "low"}); ${state.items.length} item(s)` }],
        details: { items: [...state.items] },
      };
    },
  });

  pi.registerCommand("todo", {
    description: "Show or add todos",
    getArgumentCompletions: (prefix: string) =>
      ["add", "list"].filter((s) => s.startsWith(prefix)).map((value) => ({ value, label: value })),
    handler: async (args: string, ctx) => {
      if (args.startsWith("add ")) {
        state.items.push(args.slice(4));
        pi.appendEntry("todo-state", { items: state.items });
      }
      ctx.ui.notify(`todos: ${state.items.join(", ")}`, "info");
    },
  });
}
