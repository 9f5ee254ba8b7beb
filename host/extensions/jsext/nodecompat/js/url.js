// node:url: WHATWG URL (goja_nodejs) plus the file URL helpers.
"use strict";

const base = require("atomic:url");

function fileURLToPath(u) {
  const url = typeof u === "string" ? new base.URL(u) : u;
  if (!url || url.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
  if (url.hostname !== "" && url.hostname !== "localhost") throw new TypeError("File URL host must be \"localhost\" or empty");
  const p = url.pathname;
  if (/%2f/i.test(p)) throw new TypeError("File URL path must not include encoded / characters");
  return decodeURIComponent(p);
}

function pathToFileURL(p) {
  let abs = String(p);
  if (!abs.startsWith("/")) abs = require("path").resolve(abs);
  const enc = abs.split("/").map((seg) => encodeURIComponent(seg)).join("/");
  return new base.URL("file://" + enc);
}

function format(u) {
  if (u && typeof u === "object" && typeof u.href === "string") return u.href;
  return String(u);
}

module.exports = {
  URL: base.URL,
  URLSearchParams: base.URLSearchParams,
  domainToASCII: base.domainToASCII,
  domainToUnicode: base.domainToUnicode,
  fileURLToPath,
  pathToFileURL,
  format,
  parse: (s) => new base.URL(s),
};
module.exports.default = module.exports;
