// Session control from commands (ctx.newSession, fork, switchSession,
// navigateTree, reload), run in goja and in Node alike. Every command
// reports through ctx.ui.notify: "<command>: <what happened>".
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  let veto = false;
  const seen: string[] = [];
  pi.on("session_start", (event, ctx) => {
    seen.push(`start:${event.reason}`);
    if (event.reason === "reload") ctx.ui.notify("reloaded: session_start reload", "info");
  });
  pi.on("session_shutdown", (event) => {
    seen.push(`shutdown:${event.reason}`);
  });
  pi.on("session_before_switch", () => (veto ? { cancel: true } : undefined));
  pi.on("session_before_fork", () => (veto ? { cancel: true } : undefined));
  pi.on("session_before_tree", () => (veto ? { cancel: true } : undefined));

  const staleText = (fn: () => unknown) => {
    try {
      fn();
      return "live";
    } catch (e) {
      return String((e as Error).message).includes("stale") ? "stale" : `error ${(e as Error).message}`;
    }
  };
  const replaced = (name: string, ctx: any, oldId: string) => async (next: any) => {
    const id = next.sessionManager.getSessionId();
    next.ui.notify(
      `${name}: withSession new=${id !== oldId} old ctx ${staleText(() => ctx.sessionManager.getSessionId())}` +
        ` new ctx ${staleText(() => next.sessionManager.getSessionId())} seen ${seen.join(",")}`,
      "info",
    );
    seen.length = 0;
  };

  pi.registerCommand("veto", {
    handler: async (args, ctx) => {
      veto = args === "on";
      ctx.ui.notify(`veto: ${veto}`, "info");
    },
  });
  pi.registerCommand("new", {
    handler: async (_args, ctx) => {
      const oldId = ctx.sessionManager.getSessionId();
      seen.length = 0;
      const r = await ctx.newSession({ parentSession: ctx.sessionManager.getSessionFile(), withSession: replaced("new", ctx, oldId) });
      pi.sendMessage({ customType: "note", content: `new: result ${JSON.stringify(r)}`, display: true });
    },
  });
  pi.registerCommand("fork", {
    handler: async (args, ctx) => {
      const [id, position] = args.split(" ");
      const oldId = ctx.sessionManager.getSessionId();
      seen.length = 0;
      const r = await ctx.fork(id, { position: (position || "before") as "before" | "at", withSession: replaced("fork", ctx, oldId) });
      pi.sendMessage({ customType: "note", content: `fork: result ${JSON.stringify(r)}`, display: true });
    },
  });
  pi.registerCommand("switch", {
    handler: async (args, ctx) => {
      const oldId = ctx.sessionManager.getSessionId();
      seen.length = 0;
      let r;
      try {
        r = await ctx.switchSession(args, { withSession: replaced("switch", ctx, oldId) });
      } catch (e) {
        ctx.ui.notify(`switch: failed ${(e as Error).message}`, "error");
        return;
      }
      pi.sendMessage({ customType: "note", content: `switch: result ${JSON.stringify(r)}`, display: true });
    },
  });
  pi.registerCommand("nav", {
    handler: async (args, ctx) => {
      const r = await ctx.navigateTree(args, { label: "here" });
      ctx.ui.notify(`nav: result ${JSON.stringify(r)} leaf ${ctx.sessionManager.getLeafId()}`, "info");
    },
  });
  pi.registerCommand("rl", {
    handler: async (_args, ctx) => {
      await ctx.reload();
    },
  });
}
