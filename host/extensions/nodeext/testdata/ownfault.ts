// Fails in its own code: not retried in Node. Every evaluation of the
// file appends a line to marks.txt next to it.
import * as fs from "node:fs";
import * as path from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

fs.appendFileSync(path.join(__dirname, "marks.txt"), "loaded\n");

export default function (pi: ExtensionAPI) {
  pi.registerCommand("early", { description: "registered before the failure", handler: async () => {} });
  throw new Error("my own fault");
}
