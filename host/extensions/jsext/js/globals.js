// Globals a script expects from Node and that goja lacks, installed once
// per runtime before the script runs. `native` is the Go side.
(function (native) {
  "use strict";
  const g = globalThis;

  g.global = g;
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
  g.structuredClone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

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
  for (const name of ["URL", "URLSearchParams"]) {
    Object.defineProperty(g, name, {
      configurable: true,
      enumerable: false,
      get() {
        const v = require("url")[name];
        Object.defineProperty(g, name, { value: v, configurable: true, writable: true, enumerable: false });
        return v;
      },
    });
  }

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
