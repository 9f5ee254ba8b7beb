// node:fs (and node:fs/promises): the synchronous, promise and callback
// forms of the common file operations, run by Go.
"use strict";

const n = require("atomic:fs");

const names = ["readFile", "writeFile", "appendFile", "mkdir", "readdir", "stat", "lstat", "unlink", "rmdir", "rm", "rename", "copyFile", "realpath", "readlink", "symlink", "chmod", "access", "mkdtemp"];

const promises = {};
const fs = { promises };
for (const name of names) {
  fs[name + "Sync"] = n[name];
  promises[name] = (...args) => {
    try {
      return n[name + "Async"](...args);
    } catch (e) {
      return Promise.reject(e); // a bad or refused argument
    }
  };
  fs[name] = function (...args) {
    const cb = typeof args[args.length - 1] === "function" ? args.pop() : undefined;
    const p = promises[name](...args);
    if (cb) p.then((v) => cb(null, v), (e) => cb(e));
    else p.catch(() => {});
  };
}
fs.existsSync = (p) => n.exists(String(p));
fs.exists = (p, cb) => cb(n.exists(String(p)));
fs.realpathSync.native = fs.realpathSync;
fs.constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, COPYFILE_EXCL: 1 };
promises.constants = fs.constants;
for (const name of ["createReadStream", "createWriteStream", "watch", "watchFile", "openSync", "open"]) {
  fs[name] = () => {
    throw new Error(`fs.${name}() is not available to extensions: use readFile/writeFile (sync or promise forms)`);
  };
}
promises.open = fs.open;
fs.default = fs;
promises.default = promises;
module.exports = fs;
