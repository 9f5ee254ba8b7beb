// node:url: the WHATWG URL and URLSearchParams (the URL standard's parser
// in Go, whatwgurl.go) plus the file URL helpers.
"use strict";

const native = require("atomic:url");

const FIELDS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
const state = Symbol("url");
const owner = Symbol("owner");
const list = Symbol("list");
const update = Symbol("update");

function setParts(u, parts) {
  const s = u[state];
  for (let i = 0; i < FIELDS.length; i++) s[FIELDS[i]] = parts[i];
}

class URL {
  constructor(input, base) {
    if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
    Object.defineProperty(this, state, { value: {}, enumerable: false });
    setParts(this, native.parse(String(input), base === undefined ? undefined : String(base)));
    this[state].params = null;
  }
  static canParse(input, base) {
    return native.canParse(String(input), base === undefined ? undefined : String(base));
  }
  static parse(input, base) {
    try {
      return new URL(input, base);
    } catch {
      return null;
    }
  }
  get searchParams() {
    const s = this[state];
    if (!s.params) {
      s.params = new URLSearchParams(s.search);
      s.params[owner] = this;
    }
    return s.params;
  }
  toString() {
    return this[state].href;
  }
  toJSON() {
    return this[state].href;
  }
  get [Symbol.toStringTag]() {
    return "URL";
  }
}
for (const name of FIELDS) {
  const desc = {
    enumerable: true,
    configurable: true,
    get() {
      return this[state][name];
    },
  };
  if (name !== "origin") {
    desc.set = function (v) {
      const s = this[state];
      setParts(this, native.set(s.href, name, String(v)));
      if (s.params && (name === "href" || name === "search")) s.params[list] = pairs(s.search);
    };
  }
  Object.defineProperty(URL.prototype, name, desc);
}

function pairs(query) {
  const flat = native.parseQuery(query.startsWith("?") ? query.slice(1) : query);
  const out = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

// The application/x-www-form-urlencoded byte serializer.
function formEncode(s) {
  return encodeURIComponent(s)
    .replace(/%20/g, "+")
    .replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

function toUSV(v) {
  return String(v).toWellFormed ? String(v).toWellFormed() : String(v);
}

class URLSearchParams {
  constructor(init) {
    Object.defineProperty(this, list, { value: [], writable: true, enumerable: false });
    Object.defineProperty(this, owner, { value: null, writable: true, enumerable: false });
    if (init === undefined || init === null) return;
    if (typeof init === "object" || typeof init === "function") {
      if (typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const p = [...pair];
          if (p.length !== 2) throw new TypeError("Each query pair must be an iterable [name, value] tuple");
          this[list].push([toUSV(p[0]), toUSV(p[1])]);
        }
      } else {
        for (const k of Object.keys(init)) this[list].push([toUSV(k), toUSV(init[k])]);
      }
      return;
    }
    this[list] = pairs(toUSV(init));
  }
  [update]() {
    const u = this[owner];
    if (!u) return;
    const q = this.toString();
    const s = u[state];
    setParts(u, native.set(s.href, "search", q));
  }
  get size() {
    return this[list].length;
  }
  append(name, value) {
    this[list].push([toUSV(name), toUSV(value)]);
    this[update]();
  }
  delete(name, value) {
    name = toUSV(name);
    this[list] = this[list].filter(([k, v]) => k !== name || (value !== undefined && v !== toUSV(value)));
    this[update]();
  }
  get(name) {
    name = toUSV(name);
    const p = this[list].find(([k]) => k === name);
    return p ? p[1] : null;
  }
  getAll(name) {
    name = toUSV(name);
    return this[list].filter(([k]) => k === name).map(([, v]) => v);
  }
  has(name, value) {
    name = toUSV(name);
    return this[list].some(([k, v]) => k === name && (value === undefined || v === toUSV(value)));
  }
  set(name, value) {
    name = toUSV(name);
    value = toUSV(value);
    const i = this[list].findIndex(([k]) => k === name);
    if (i < 0) this[list].push([name, value]);
    else {
      this[list][i][1] = value;
      this[list] = this[list].filter(([k], j) => j <= i || k !== name);
    }
    this[update]();
  }
  sort() {
    // Stable, by UTF-16 code units.
    const byUnits = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    this[list] = this[list].map((p, i) => [p, i]).sort((a, b) => byUnits(a[0][0], b[0][0]) || a[1] - b[1]).map(([p]) => p);
    this[update]();
  }
  forEach(fn, thisArg) {
    for (const [k, v] of this[list]) fn.call(thisArg, v, k, this);
  }
  *entries() {
    for (const [k, v] of this[list]) yield [k, v];
  }
  *keys() {
    for (const [k] of this[list]) yield k;
  }
  *values() {
    for (const [, v] of this[list]) yield v;
  }
  [Symbol.iterator]() {
    return this.entries();
  }
  toString() {
    return this[list].map(([k, v]) => formEncode(k) + "=" + formEncode(v)).join("&");
  }
  get [Symbol.toStringTag]() {
    return "URLSearchParams";
  }
}

function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  e.code = code;
  return e;
}

function fileURLToPath(u) {
  let url = u;
  if (typeof u === "string") url = new URL(u);
  else if (!(u instanceof URL) && !(u && typeof u.href === "string" && typeof u.protocol === "string")) {
    throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "path" argument must be of type string or an instance of URL');
  }
  if (url.protocol !== "file:") throw nodeError(TypeError, "ERR_INVALID_URL_SCHEME", "The URL must be of scheme file");
  if (url.hostname !== "" && url.hostname !== "localhost") {
    throw nodeError(TypeError, "ERR_INVALID_FILE_URL_HOST", `File URL host must be "localhost" or empty on ${require("os").platform()}`);
  }
  const p = url.pathname;
  if (/%2f/i.test(p)) throw nodeError(TypeError, "ERR_INVALID_FILE_URL_PATH", "File URL path must not include encoded / characters");
  return decodeURIComponent(p);
}

function pathToFileURL(p) {
  const path = require("path");
  const s = String(p);
  let abs = path.resolve(s);
  if (s.endsWith("/") && !abs.endsWith("/")) abs += "/";
  const esc = abs.replace(/[%\\\n\r\t#?]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"));
  return new URL("file://" + esc);
}

// url.format(URL, options) as Node has it; anything else is its string.
function format(u, options) {
  if (!(u instanceof URL)) return u && typeof u === "object" && typeof u.href === "string" ? u.href : String(u);
  const o = Object.assign({ auth: true, fragment: true, search: true, unicode: false }, options);
  let out = u.protocol;
  if (u.host !== "" || u.protocol === "file:") {
    out += "//";
    if (o.auth && (u.username || u.password)) out += u.username + (u.password ? ":" + u.password : "") + "@";
    out += o.unicode ? native.domainToUnicode(u.hostname) + (u.port ? ":" + u.port : "") : u.host;
  }
  out += u.pathname;
  if (o.search) out += u.search;
  if (o.fragment) out += u.hash;
  return out;
}

module.exports = {
  URL,
  URLSearchParams,
  domainToASCII: (d) => native.domainToASCII(String(d)),
  domainToUnicode: (d) => native.domainToUnicode(String(d)),
  fileURLToPath,
  pathToFileURL,
  format,
  parse: (s) => new URL(s),
};
module.exports.default = module.exports;
