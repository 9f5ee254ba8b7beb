// node:util: format, inspect, promisify and a few helpers.
"use strict";

const base = require("atomic:nodeutil");

function inspect(v, opts) {
  if (typeof v === "string") return opts && opts.quote === false ? v : JSON.stringify(v);
  if (typeof v === "function") return `[Function: ${v.name || "anonymous"}]`;
  if (v instanceof Error) return v.stack || String(v);
  try {
    const seen = new WeakSet();
    return JSON.stringify(v, (_k, x) => {
      if (typeof x === "bigint") return x.toString() + "n";
      if (typeof x === "function") return `[Function: ${x.name || "anonymous"}]`;
      if (x && typeof x === "object") {
        if (seen.has(x)) return "[Circular]";
        seen.add(x);
      }
      return x;
    }, opts && opts.compact === false ? 2 : undefined);
  } catch (e) {
    return String(v);
  }
}

const custom = Symbol.for("nodejs.util.promisify.custom");
function promisify(fn) {
  if (typeof fn !== "function") throw new TypeError('The "original" argument must be of type function');
  if (fn[custom]) return fn[custom];
  return function (...args) {
    return new Promise((resolve, reject) => {
      fn.call(this, ...args, (err, ...values) => {
        if (err) reject(err);
        else resolve(values.length > 1 ? values : values[0]);
      });
    });
  };
}
promisify.custom = custom;

function callbackify(fn) {
  return function (...args) {
    const cb = args.pop();
    fn.apply(this, args).then((v) => cb(null, v), (e) => cb(e));
  };
}

function inherits(ctor, superCtor) {
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
  Object.setPrototypeOf(ctor, superCtor);
}

const types = {
  isPromise: (v) => v instanceof Promise,
  isDate: (v) => v instanceof Date,
  isRegExp: (v) => v instanceof RegExp,
  isNativeError: (v) => v instanceof Error,
};

module.exports = {
  format: base.format,
  inspect,
  promisify,
  callbackify,
  inherits,
  types,
  isDeepStrictEqual: (a, b) => JSON.stringify(a) === JSON.stringify(b),
  deprecate: (fn) => fn,
  TextEncoder: globalThis.TextEncoder,
  TextDecoder: globalThis.TextDecoder,
};
