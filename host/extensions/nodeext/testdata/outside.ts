// pi-ai's complete() from a timer a command started (outside any call):
// the request goes through this extension's own host connection, even in
// a process that loaded other extensions after it.
import { complete } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("ask", {
    description: "Ask the model from a timer",
    handler: async (_args, ctx) => {
      const model = ctx.model;
      await new Promise<void>((resolve) =>
        setTimeout(async () => {
          const m = await complete(model, { messages: [{ role: "user", content: "hi", timestamp: 0 }] });
          ctx.ui.notify("answer " + m.content.map((b: any) => b.text || "").join(""), "info");
          resolve();
        }, 0),
      );
    },
  });
}
