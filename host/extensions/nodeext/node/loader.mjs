// Module hooks of atomic's Node extension host (node:module register), in
// place once an extension is loaded file by file (a bundled one needs
// none, bundle.go):
// the virtual modules (pi packages, TypeBox, Atomic's names), the
// TypeScript files the Go side transformed with esbuild (served at their
// own file URLs, so import.meta.url and relative imports are the
// extension's), the resolutions esbuild found for imports Node would not
// resolve (extensionless paths, .js names of .ts files), and ESM syntax in
// .js files of packages without "type": "module".
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

const VIRTUAL = "atomic-virtual:";
let virtual = {};
const files = new Map(); // source path -> transformed file
const resolves = new Map(); // importer path -> {specifier: path}
const esm = new Set(); // .js files esbuild saw as ESM

export async function initialize(data) {
  virtual = data.virtual || {};
  data.port.on("message", (m) => {
    for (const [k, v] of Object.entries(m.files || {})) files.set(k, v);
    for (const [k, v] of Object.entries(m.resolve || {})) resolves.set(k, Object.assign(resolves.get(k) || {}, v));
    for (const f of m.esm || []) esm.add(f);
    data.port.postMessage({ ack: m.seq });
  });
}

const pathOf = (url) => {
  try {
    const u = new URL(url);
    if (u.protocol !== "file:") return undefined;
    u.search = "";
    return fileURLToPath(u);
  } catch {
    return undefined;
  }
};

export async function resolve(specifier, context, next) {
  if (Object.prototype.hasOwnProperty.call(virtual, specifier)) return { url: VIRTUAL + specifier, shortCircuit: true };
  const parent = context.parentURL && pathOf(context.parentURL);
  if (parent) {
    const m = resolves.get(parent);
    if (m && typeof m[specifier] === "string") return { url: pathToFileURL(m[specifier]).href, shortCircuit: true };
  }
  return next(specifier, context);
}

const ident = /^[A-Za-z_$][\w$]*$/;

// virtualModuleSource is the ES module of a virtual module: the stand-in's
// object as the default export (its default when it is an ES module's)
// and each of its names (keys). Served here, and written by the host as
// the file a bundle imports (host.mjs, bundle.go).
export function virtualModuleSource(name, keys) {
  const names = (keys || []).filter((k) => k !== "default" && k !== "globalThis" && k !== "__atomic_m" && ident.test(k));
  const lines = [`const __atomic_m = globalThis.__atomicVirtualModule(${JSON.stringify(name)});`, "export default (__atomic_m && __atomic_m.__esModule && __atomic_m.default !== undefined ? __atomic_m.default : __atomic_m);"];
  for (const k of names) lines.push(`export const ${k} = __atomic_m[${JSON.stringify(k)}];`);
  return lines.join("\n");
}

export async function load(url, context, next) {
  if (url.startsWith(VIRTUAL)) {
    const name = url.slice(VIRTUAL.length);
    return { format: "module", source: virtualModuleSource(name, virtual[name]), shortCircuit: true };
  }
  const p = pathOf(url);
  if (p) {
    const t = files.get(p);
    if (t) return { format: "module", source: await readFile(t, "utf8"), shortCircuit: true };
    if (esm.has(p)) return { format: "module", source: await readFile(p, "utf8"), shortCircuit: true };
  }
  return next(url, context);
}
