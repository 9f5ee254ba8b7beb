// Uses a global goja lacks (a ReferenceError there), not an import.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  const channel = new MessageChannel();
  pi.registerCommand("channel", {
    description: "Tell whether MessageChannel exists",
    handler: async (_args, ctx) => {
      ctx.ui.notify(`channel ${typeof channel.port1}`, "info");
    },
  });
}
