// Loads in Node only, and esbuild's import graph cannot tell: the
// built-in module comes through createRequire at run time. Every
// evaluation of the file appends a line to marks.txt next to it (a goja
// attempt, then Node).
import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

fs.appendFileSync(path.join(__dirname, "marks.txt"), "loaded\n");

export default function (pi: ExtensionAPI) {
  pi.registerCommand("early", { description: "registered before the failure", handler: async () => {} });
  pi.events.on("fallback-test", () => {});
  const require = createRequire(import.meta.url);
  const { Worker } = require("node:worker_threads");
  pi.registerCommand("wt", {
    description: "Tell whether worker_threads loaded",
    handler: async (_args, ctx) => {
      ctx.ui.notify(`worker ${typeof Worker}`, "info");
    },
  });
}
