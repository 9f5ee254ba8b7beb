// Records pi 1.6's answers for the model references of cases.json:
//   node22 record.mjs <pi-coding-agent dir> > pi-1.6.0.json
// (Node 22; pi installed with npm install @earendil-works/pi-coding-agent@1.6.0).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pi = process.argv[2];
const resolver = await import(pathToFileURL(join(pi, "dist/core/model-resolver.js")).href);
const tui = await import(pathToFileURL(join(pi, "..", "pi-tui", "dist", "fuzzy.js")).href);
const cases = JSON.parse(readFileSync(new URL("./cases.json", import.meta.url), "utf8"));
const key = (m) => (m ? `${m.provider}/${m.id}` : undefined);
const out = { refs: [], cli: [], scopes: [], filters: [] };
for (const c of cases.refs) {
  const usable = new Set(c.usable ?? cases.models.map((m) => m.provider));
  const r = resolver.resolveModelReference(
    { text: c.text, provider: c.provider, thinkingSuffix: c.suffix, fuzzy: c.fuzzy },
    cases.models,
    (p) => usable.has(p),
  );
  out.refs.push({
    status: r.status,
    model: key(r.model),
    candidates: r.candidates?.map(key),
    usableCount: r.usableCount,
    thinkingLevel: r.thinkingLevel,
    warning: r.warning,
    target: r.target && {
      provider: r.target.provider,
      first: key(r.target.providerModels[0]),
      modelText: r.target.modelText,
      modelId: r.target.modelId,
      thinkingLevel: r.target.thinkingLevel,
    },
  });
}
for (const patterns of cases.scopes) {
  const r = resolver.resolveModelScopeFromModels(patterns, cases.models);
  out.scopes.push({
    models: r.scopedModels.map((s) => [key(s.model), s.thinkingLevel ?? ""]),
    warnings: r.diagnostics.map((d) => d.message),
  });
}
for (const q of cases.filters) {
  out.filters.push(tui.fuzzyFilter(cases.models, q, (m) => `${m.provider} ${m.id}`).map(key));
}
console.log(JSON.stringify(out, null, 1));
