// Globals a script expects from Node and that goja lacks, installed once
// per runtime before the script runs. `native` is the Go side.
(function (native, web) {
  "use strict";
  const g = globalThis;
  // lazyGlobals(names, make) defines globals made on first use: the first
  // read of one calls make(), which returns them all by name.
  const lazyGlobals = web.lazyGlobals;
  g.global = g;
  // goja has no Symbol.asyncIterator; esbuild's lowered for await uses
  // this registered symbol in its place.
  if (!Symbol.asyncIterator) Object.defineProperty(Symbol, "asyncIterator", { value: Symbol.for("Symbol.asyncIterator") });
  g.queueMicrotask = (fn) => {
    Promise.resolve().then(fn);
  };
  g.btoa = (s) => native.btoa(String(s));
  g.atob = (s) => native.atob(String(s));
  // SharedArrayBuffer and Atomics. A script runs on one thread (no
  // workers), so shared memory is ordinary memory and nothing can notify a
  // waiter: Atomics.wait with a timeout sleeps (in short native steps, so a
  // deadline can still interrupt it); without one it would never return
  // and throws instead.
  class SharedArrayBuffer extends ArrayBuffer {
    get [Symbol.toStringTag]() {
      return "SharedArrayBuffer";
    }
  }
  g.SharedArrayBuffer = SharedArrayBuffer;
  const sleepSync = (ms) => {
    const end = Date.now() + ms;
    for (let left = ms; left > 0; left = end - Date.now()) native.sleepMs(Math.min(left, 20));
  };
  const rmw = (f) => (ta, i, v) => {
    const old = ta[i];
    ta[i] = f(old, v);
    return old;
  };
  g.Atomics = {
    load: (ta, i) => ta[i],
    store: (ta, i, v) => {
      ta[i] = v;
      return ta[i];
    },
    add: rmw((a, b) => a + b),
    sub: rmw((a, b) => a - b),
    and: rmw((a, b) => a & b),
    or: rmw((a, b) => a | b),
    xor: rmw((a, b) => a ^ b),
    exchange: rmw((_a, b) => b),
    compareExchange: (ta, i, expected, replacement) => {
      const old = ta[i];
      if (old === ta.constructor.of(expected)[0]) ta[i] = replacement;
      return old;
    },
    isLockFree: (n) => n === 1 || n === 2 || n === 4 || n === 8,
    notify: () => 0,
    wait: (ta, i, value, timeout) => {
      if (ta[i] !== ta.constructor.of(value)[0]) return "not-equal";
      const ms = timeout === undefined ? Infinity : Number(timeout);
      if (!(ms < Infinity)) throw new Error("Atomics.wait without a timeout would never return: nothing can notify in atomic's script runtime");
      if (ms > 0) sleepSync(ms);
      return "timed-out";
    },
    waitAsync: (ta, i, value, timeout) => {
      if (ta[i] !== ta.constructor.of(value)[0]) return { async: false, value: "not-equal" };
      const ms = timeout === undefined ? Infinity : Number(timeout);
      if (!(ms < Infinity)) return { async: true, value: new Promise(() => {}) };
      return { async: true, value: new Promise((resolve) => setTimeout(() => resolve("timed-out"), ms)) };
    },
  };
  Object.defineProperty(g.Atomics, Symbol.toStringTag, { value: "Atomics" });
  // DOMException and structuredClone, made on first use.
  lazyGlobals(["DOMException", "structuredClone"], () => {
    // DOMException (the names and legacy codes Node's has).
    const domCodes = {
      IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5, NoModificationAllowedError: 7,
      NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14,
      InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
      QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
    };
    class DOMException extends Error {
      constructor(message = "", name = "Error") {
        super(String(message));
        Object.defineProperty(this, "name", { value: String(name), configurable: true, writable: true, enumerable: false });
      }
      get code() {
        return domCodes[this.name] || 0;
      }
    }
    for (const [name, code] of Object.entries(domCodes)) {
      const constName = name.replace(/Error$/, "").replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c).toUpperCase() + "_ERR";
      Object.defineProperty(DOMException, constName, { value: code, enumerable: true });
    }

    // structuredClone: the structured clone algorithm (cycles and shared
    // references kept; Date, RegExp, Map, Set, ArrayBuffer, views, Error,
    // boxed primitives; other objects as plain objects of their own
    // enumerable properties). Functions, symbols and the like are a
    // DataCloneError.
    const typedArrays = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];
    const errorTypes = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
    const uncloneable = (v) => {
      let what;
      try {
        what = typeof v === "function" ? Function.prototype.toString.call(v) : typeof v === "symbol" ? v.toString() : `#<${v.constructor && v.constructor.name ? v.constructor.name : "Object"}>`;
      } catch {
        what = "The value";
      }
      return new DOMException(`${what} could not be cloned.`, "DataCloneError");
    };
    const tag = (v) => Object.prototype.toString.call(v).slice(8, -1);
    const structuredClone = function structuredClone(value) {
      if (arguments.length === 0) {
        const e = new TypeError('The "value" argument must be specified');
        e.code = "ERR_MISSING_ARGS";
        throw e;
      }
      const seen = new Map();
      const clone = (v) => {
        if (typeof v === "function" || typeof v === "symbol") throw uncloneable(v);
        if (v === null || typeof v !== "object") return v;
        if (seen.has(v)) return seen.get(v);
        let out;
        const keep = (o) => (seen.set(v, o), o);
        switch (tag(v)) {
          case "Date":
            return keep(new Date(v.getTime()));
          case "RegExp":
            return keep(new RegExp(v.source, v.flags));
          case "Boolean":
            return keep(new Boolean(v.valueOf()));
          case "Number":
            return keep(new Number(v.valueOf()));
          case "String":
            return keep(new String(v.valueOf()));
          case "BigInt":
            return keep(Object(v.valueOf()));
          case "ArrayBuffer":
          case "SharedArrayBuffer":
            return keep(v.slice(0));
          case "DataView":
            return keep(new DataView(clone(v.buffer), v.byteOffset, v.byteLength));
          case "Map":
            out = keep(new Map());
            for (const [k, x] of v) out.set(clone(k), clone(x));
            return out;
          case "Set":
            out = keep(new Set());
            for (const x of v) out.add(clone(x));
            return out;
          case "Error": {
            const C = errorTypes[v.name] || Error;
            out = keep(Object.create(C.prototype));
            for (const k of ["message", "stack"]) if (typeof v[k] === "string") Object.defineProperty(out, k, { value: v[k], writable: true, configurable: true });
            if ("cause" in v) Object.defineProperty(out, "cause", { value: clone(v.cause), writable: true, configurable: true });
            return out;
          }
          case "Array":
            out = keep(new Array(v.length));
            break;
          case "Object":
          case "Arguments":
            out = keep({});
            break;
          default: {
            const T = typedArrays.find((C) => v instanceof C);
            if (T) return keep(new T(clone(v.buffer), v.byteOffset, v.length));
            if (typeof v.then === "function" || tag(v) !== "Object") throw uncloneable(v);
            out = keep({});
          }
        }
        for (const k of Object.keys(v)) out[k] = clone(v[k]);
        return out;
      };
      return clone(value);
    };
    return { DOMException, structuredClone };
  });

  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(s) {
      return new Uint8Array(native.utf8Encode(s === undefined ? "" : String(s)));
    }
  }
  class TextDecoder {
    get encoding() {
      return "utf-8";
    }
    decode(b) {
      if (b === undefined) return "";
      return native.utf8Decode(b instanceof ArrayBuffer ? b : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    }
  }
  g.TextEncoder = TextEncoder;
  g.TextDecoder = TextDecoder;

  Object.defineProperty(g, "Buffer", {
    configurable: true,
    enumerable: false,
    get() {
      const B = require("buffer").Buffer;
      Object.defineProperty(g, "Buffer", { value: B, configurable: true, writable: true, enumerable: false });
      return B;
    },
  });
  lazyGlobals(["URL", "URLSearchParams"], () => require("url"));
  // Intl for the root locale (js/intl.js, intl.go), and the toLocale…
  // methods and localeCompare on it.
  let intl = null;
  const getIntl = () => intl || (intl = web.module("intl.js")(web));
  lazyGlobals(["Intl"], () => ({ Intl: getIntl() }));
  // (Assignments: the built-in properties exist, so they stay
  // non-enumerable.)
  // (The formatters for no locale and no options are kept: sorting with
  // localeCompare calls it many times.)
  let plainNumber = null;
  let plainCollator = null;
  Number.prototype.toLocaleString = BigInt.prototype.toLocaleString = function toLocaleString(locales, options) {
    if (locales === undefined && options === undefined) {
      plainNumber = plainNumber || new (getIntl().NumberFormat)();
      return plainNumber.format(this.valueOf());
    }
    return new (getIntl().NumberFormat)(locales, options).format(this.valueOf());
  };
  const dateLocale = (defaults) =>
    function (locales, options) {
      const t = this.getTime();
      return Number.isNaN(t) ? "Invalid Date" : getIntl().DateTimeFormat(locales, options, defaults).format(t);
    };
  Date.prototype.toLocaleString = dateLocale("all");
  Date.prototype.toLocaleDateString = dateLocale("date");
  Date.prototype.toLocaleTimeString = dateLocale("time");
  String.prototype.localeCompare = function localeCompare(that, locales, options) {
    if (this === null || this === undefined) throw new TypeError("String.prototype.localeCompare called on null or undefined");
    if (locales === undefined && options === undefined) {
      plainCollator = plainCollator || new (getIntl().Collator)().compare;
      return plainCollator(this, that);
    }
    return new (getIntl().Collator)(locales, options).compare(String(this), String(that));
  };
  // fetch over Go's HTTP client (js/fetch.js, fetch.go).
  lazyGlobals(["fetch", "Headers", "Request", "Response"], () => web.module("fetch.js")(web, native));

  // console (made on first use): log/info/debug/warn/error come from
  // goja_nodejs (to the agent's log); the rest map onto them.
  Object.defineProperty(g, "console", {
    configurable: true,
    enumerable: false,
    get() {
      const c = makeConsole();
      Object.defineProperty(g, "console", { value: c, configurable: true, writable: true, enumerable: false });
      return c;
    },
    set(v) {
      Object.defineProperty(g, "console", { value: v, configurable: true, writable: true, enumerable: false });
    },
  });
  const makeConsole = () => {
    const c = require("console");
    const counts = new Map();
    const timers = new Map();
    c.trace = (...a) => c.log(...a);
    c.dir = (v) => c.log(v);
    c.table = (v) => c.log(JSON.stringify(v));
    c.group = (...a) => {
      if (a.length) c.log(...a);
    };
    c.groupCollapsed = c.group;
    c.groupEnd = () => {};
    c.assert = (cond, ...a) => {
      if (!cond) c.error("Assertion failed", ...a);
    };
    c.count = (label = "default") => {
      const n = (counts.get(label) || 0) + 1;
      counts.set(label, n);
      c.log(`${label}: ${n}`);
    };
    c.countReset = (label = "default") => counts.delete(label);
    c.time = (label = "default") => timers.set(label, Date.now());
    c.timeLog = (label = "default", ...a) => c.log(`${label}: ${Date.now() - (timers.get(label) || Date.now())}ms`, ...a);
    c.timeEnd = (label = "default") => {
      c.timeLog(label);
      timers.delete(label);
    };
    return c;
  };

  // process: the parts scripts use. exit() must not end the agent.
  const stream = (level) => ({
    write(s) {
      native.log(level, String(s).replace(/\n$/, ""));
      return true;
    },
    isTTY: false,
    columns: 80,
    rows: 24,
    on() {},
  });
  // process is made on first use.
  const makeProcess = () => ({
    env: native.environ(),
    argv: ["atomic", native.scriptPath],
    execArgv: [],
    argv0: "atomic",
    execPath: native.execPath,
    pid: native.pid,
    ppid: 0,
    platform: native.platform,
    arch: native.arch,
    version: "v20.0.0",
    versions: { node: "20.0.0", atomic: native.version },
    release: { name: "node" },
    title: "atomic",
    cwd: () => native.cwd(),
    chdir: () => {
      throw new Error("process.chdir() is not available to extensions");
    },
    exit: (code) => {
      throw new Error(`process.exit(${code === undefined ? "" : code}) is not available to extensions; the agent keeps running`);
    },
    nextTick: (fn, ...args) => {
      Promise.resolve().then(() => fn(...args));
    },
    hrtime: Object.assign(
      (prev) => {
        const ns = native.nanotime();
        let s = Math.floor(ns / 1e9);
        let n = ns % 1e9;
        if (prev) {
          s -= prev[0];
          n -= prev[1];
          if (n < 0) {
            s--;
            n += 1e9;
          }
        }
        return [s, n];
      },
      { bigint: () => BigInt(Math.floor(native.nanotime())) },
    ),
    uptime: () => native.nanotime() / 1e9,
    memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }),
    stdout: stream("info"),
    stderr: stream("warn"),
    stdin: { on() {}, isTTY: false },
    emit() {
      return false;
    },
    emitWarning: (w) => native.log("warn", String(w)),
  });
  Object.defineProperty(g, "process", {
    configurable: true,
    enumerable: false,
    get() {
      const p = makeProcess();
      p.on = p.once = p.off = () => p;
      Object.defineProperty(g, "process", { value: p, configurable: true, writable: true, enumerable: false });
      return p;
    },
    set(v) {
      Object.defineProperty(g, "process", { value: v, configurable: true, writable: true, enumerable: false });
    },
  });



  // Modules with top-level await register their completion here; the
  // factory runs once every one (also those they load) has finished.
  g.__atomicPending = [];
  g.__atomicSettled = () => {
    const wait = () => {
      const p = g.__atomicPending.splice(0);
      return p.length ? Promise.all(p).then(wait) : undefined;
    };
    return wait();
  };

  const allowed = new Set(["__esModule", "default", "then", "toJSON", "constructor", "inspect", "valueOf", "toString", "prototype", "length", "name", "nodeType", "$$typeof", "asymmetricMatch"]);
  // Built-in packages: a name they do not provide is an error that says
  // so, at the line that uses it.
  g.__atomicStrictExports = (module, exports) =>
    new Proxy(exports, {
      get(target, key, receiver) {
        if (typeof key !== "string" || key in target || allowed.has(key)) return Reflect.get(target, key, receiver);
        throw new Error(`"${key}" is not available from "${module}" in atomic's script runtime`);
      },
    });
});
