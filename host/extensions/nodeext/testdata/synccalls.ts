// Synchronous host calls (pi's getters): the same answers whichever way
// the Node host makes them (the host lane, or its worker thread).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("sync", {
    handler: async (_args, ctx) => {
      const tools = pi.getActiveTools();
      const id = ctx.sessionManager.getSessionId();
      const name = ctx.sessionManager.getSessionName?.() ?? pi.getSessionName?.();
      ctx.ui.notify(`sync tools=${JSON.stringify(tools)} id=${id} name=${name}`, "info");
    },
  });
}
