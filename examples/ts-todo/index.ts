// A todo list in TypeScript, in the reference product's extension style:
// a /todo command, a "todo" tool the model can call (TypeBox parameters),
// and the list kept in the session as custom entries, so that it survives
// a restart and follows the session tree.
//
//   cp -r examples/ts-todo ~/.atomic/agent/extensions/todo
//   atomic --mode rpc            # then: /todo add write the docs
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { StringEnum } from "@mariozechner/pi-ai";
import { Type, type Static } from "@sinclair/typebox";
import { render, type Todo } from "./todos";

const ENTRY = "todo-state";

const TodoParams = Type.Object({
  action: StringEnum(["list", "add", "done", "clear"] as const, { description: "what to do" }),
  text: Type.Optional(Type.String({ description: "the item, for add" })),
  id: Type.Optional(Type.Integer({ minimum: 1, description: "the item number, for done" })),
});

export default function (pi: ExtensionAPI) {
  let todos: Todo[] = [];

  // The list is rebuilt from the session's custom entries (the latest one
  // on the current branch wins).
  const restore = (ctx: ExtensionContext) => {
    todos = [];
    for (const e of ctx.sessionManager.getBranch()) {
      if (e.type === "custom" && e.customType === ENTRY) todos = (e.data as { todos: Todo[] }).todos;
    }
  };
  const save = () => pi.appendEntry(ENTRY, { todos });

  const apply = (p: Static<typeof TodoParams>): string => {
    switch (p.action) {
      case "add": {
        if (!p.text) throw new Error("add needs a text");
        todos.push({ id: todos.length + 1, text: p.text, done: false });
        save();
        return `Added #${todos.length}: ${p.text}`;
      }
      case "done": {
        const t = todos.find((x) => x.id === p.id);
        if (!t) throw new Error(`no todo #${p.id}`);
        t.done = true;
        save();
        return `Done: ${t.text}`;
      }
      case "clear":
        todos = [];
        save();
        return "Cleared";
      default:
        return render(todos);
    }
  };

  pi.on("session_start", async (_event, ctx) => restore(ctx));

  pi.registerTool({
    name: "todo",
    label: "Todo",
    description: "Manage the todo list: list, add (text), done (id), clear",
    parameters: TodoParams,
    async execute(_toolCallId, params, _signal, onUpdate, ctx) {
      restore(ctx);
      onUpdate?.({ content: [{ type: "text", text: `${params.action}...` }] });
      const text = apply(params);
      return { content: [{ type: "text", text }], details: { todos } };
    },
  });

  pi.registerCommand("todo", {
    description: "Todo list: /todo, /todo add <text>, /todo done <n>, /todo clear",
    getArgumentCompletions: (prefix) =>
      ["add", "done", "clear"].filter((a) => a.startsWith(prefix)).map((value) => ({ value, label: value })),
    handler: async (args, ctx) => {
      restore(ctx);
      const [action, ...rest] = args.trim().split(/\s+/);
      try {
        const text =
          action === "add"
            ? apply({ action: "add", text: rest.join(" ") })
            : action === "done"
              ? apply({ action: "done", id: Number(rest[0]) })
              : action === "clear"
                ? apply({ action: "clear" })
                : apply({ action: "list" });
        ctx.ui.notify(text, "info");
        ctx.ui.setWidget("todo", render(todos).split("\n"));
      } catch (err) {
        ctx.ui.notify(String((err as Error).message), "error");
      }
    },
  });
}
