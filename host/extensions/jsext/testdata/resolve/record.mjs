// Records how Node resolves the cases of cases.json in this fixture tree,
// for import and for require, into node22.json (run with Node 22:
// node record.mjs). TestPackageResolutionAsNode compares the goja
// resolver with the record.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync, unlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const cases = JSON.parse(readFileSync(join(root, "cases.json"), "utf8"));
const rel = (s) => s.split(root + "/").join("").split(pathToFileURL(root).href + "/").join("");
const out = [];
for (const c of cases) {
  const dir = join(root, c.from);
  const probe = join(dir, "__probe.mjs");
  writeFileSync(probe, "export default (s) => import.meta.resolve(s);\n");
  const resolveImport = (await import(pathToFileURL(probe).href)).default;
  unlinkSync(probe);
  const req = createRequire(join(dir, "__probe.cjs"));
  for (const kind of ["import", "require"]) {
    const r = { spec: c.spec, from: c.from, kind };
    try {
      const p = kind === "import" ? resolveImport(c.spec) : req.resolve(c.spec);
      r.path = p.startsWith("file:") ? relative(root, fileURLToPath(p)) : p.startsWith("/") ? relative(root, p) : p;
    } catch (e) {
      r.code = e.code;
      r.message = rel(String(e.message).split("\n")[0]);
    }
    out.push(r);
  }
}
writeFileSync(join(root, "node22.json"), JSON.stringify(out, null, 1) + "\n");
