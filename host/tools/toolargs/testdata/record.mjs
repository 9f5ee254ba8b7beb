// Records pi 1.6's answers to the cases of cases.json: node record.mjs
// <node_modules dir holding @earendil-works/pi-ai@1.6.0> > pi16.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
const dir = process.argv[2];
const { validateToolArguments } = await import(pathToFileURL(join(dir, "@earendil-works/pi-ai/dist/utils/validation.js")).href);
const { schemas, cases } = JSON.parse(readFileSync(new URL("./cases.json", import.meta.url), "utf8"));
const out = cases.map(([tool, args]) => {
  const call = { type: "toolCall", id: "c", name: tool, arguments: JSON.parse(args) };
  try {
    return { tool, args, value: validateToolArguments({ name: tool, description: "", parameters: schemas[tool] }, call) };
  } catch (e) {
    return { tool, args, error: e.message };
  }
});
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
