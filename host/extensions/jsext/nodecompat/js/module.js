// node:module: createRequire over the script's require (the same module
// registry; paths resolve from the given file's directory).
"use strict";

const path = require("path");

function createRequire(from) {
  let file = typeof from === "string" ? from : from && from.href;
  if (typeof file !== "string") throw new TypeError("createRequire: expected a path or a file URL");
  if (file.startsWith("file:")) file = require("url").fileURLToPath(file);
  const dir = file.endsWith("/") ? file : path.dirname(file);
  const requireFrom = globalThis.require.__atomicFrom;
  const req = (name) => {
    const n = String(name);
    // A require from that file (packages resolve from its directory,
    // with the "require" condition).
    if (requireFrom) return requireFrom(file, n);
    if (n.startsWith("./") || n.startsWith("../")) return globalThis.require(path.join(dir, n));
    return globalThis.require(n);
  };
  req.resolve = (name) => {
    const n = String(name);
    if (n.startsWith("./") || n.startsWith("../")) return path.join(dir, n);
    const r = globalThis.require.__atomicResolveFrom;
    return r ? r(file, n) : n;
  };
  req.cache = {};
  return req;
}

const builtinModules = ["buffer", "child_process", "crypto", "events", "fs", "fs/promises", "module", "os", "path", "readline", "url", "util"];

module.exports = { createRequire, builtinModules, isBuiltin: (n) => builtinModules.includes(String(n).replace(/^node:/, "")) };
module.exports.default = module.exports;
