// node:module: createRequire over the script's require (the same module
// registry; paths resolve from the given file's directory).
"use strict";

const path = require("path");

function createRequire(from) {
  let file = typeof from === "string" ? from : from && from.href;
  if (typeof file !== "string") throw new TypeError("createRequire: expected a path or a file URL");
  if (file.startsWith("file:")) file = require("url").fileURLToPath(file);
  const dir = file.endsWith("/") ? file : path.dirname(file);
  const req = (name) => {
    const n = String(name);
    if (n.startsWith("./") || n.startsWith("../")) return globalThis.require(path.join(dir, n));
    return globalThis.require(n);
  };
  req.resolve = (name) => {
    const n = String(name);
    return n.startsWith("./") || n.startsWith("../") ? path.join(dir, n) : n;
  };
  req.cache = {};
  return req;
}

const builtinModules = ["buffer", "child_process", "crypto", "events", "fs", "fs/promises", "module", "os", "path", "readline", "url", "util"];

module.exports = { createRequire, builtinModules, isBuiltin: (n) => builtinModules.includes(String(n).replace(/^node:/, "")) };
module.exports.default = module.exports;
