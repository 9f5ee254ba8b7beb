// Needs Node: node:http, a dynamic import and top-level await.
import * as http from "node:http";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const { Worker } = await import("node:worker_threads");

export default function (pi: ExtensionAPI) {
  pi.registerCommand("pid2", {
    description: "Tell the Node process id",
    handler: async (_args, ctx) => {
      ctx.ui.notify(`pid ${process.pid} ${typeof http.createServer} ${typeof Worker}`, "info");
    },
  });
  pi.registerCommand("die2", {
    description: "Kill the Node process",
    handler: async () => {
      process.kill(process.pid, "SIGKILL");
    },
  });
}
