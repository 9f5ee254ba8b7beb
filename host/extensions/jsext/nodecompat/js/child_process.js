// node:child_process: exec, execFile and the Sync forms through the
// agent's exec (no standard input, output collected); spawn starts the
// program itself and streams its output (spawn below).
"use strict";

const native = require("atomic:internal");
const { promisify } = require("util");
const { EventEmitter } = require("events");
const { Buffer } = require("buffer");

function makeError(cmd, r) {
  const e = new Error(`Command failed: ${cmd}\n${r.stderr}`);
  e.code = r.code;
  e.killed = r.killed;
  e.stdout = r.stdout;
  e.stderr = r.stderr;
  e.cmd = cmd;
  return e;
}

function options(o) {
  o = o || {};
  return { cwd: o.cwd ? String(o.cwd) : "", timeout: o.timeout || 0, signal: o.signal };
}

function run(file, args, o, display) {
  const token = native.newToken();
  if (o.signal) {
    if (o.signal.aborted) return Promise.resolve({ stdout: "", stderr: "", code: -1, killed: true });
    o.signal.addEventListener("abort", () => native.cancel(token));
  }
  return native.exec(token, file, JSON.stringify(args), o.cwd, o.timeout).then((s) => JSON.parse(s));
}

function splitArgs(a, b, c) {
  // (file, args?, options?, callback?)
  let args = [];
  let opts = {};
  let cb;
  for (const x of [a, b, c]) {
    if (typeof x === "function") cb = x;
    else if (Array.isArray(x)) args = x.map(String);
    else if (x && typeof x === "object") opts = x;
  }
  return { args, opts, cb };
}

function exec(command, a, b) {
  const { opts, cb } = splitArgs(a, b);
  const o = options(opts);
  const p = run("/bin/sh", ["-c", String(command)], o);
  if (cb) p.then((r) => (r.code === 0 ? cb(null, r.stdout, r.stderr) : cb(makeError(command, r), r.stdout, r.stderr)), (e) => cb(e, "", ""));
  return { pid: 0, kill() {}, on() {}, stdout: null, stderr: null };
}
exec[promisify.custom] = (command, opts) =>
  run("/bin/sh", ["-c", String(command)], options(opts)).then((r) => {
    if (r.code !== 0) throw makeError(command, r);
    return { stdout: r.stdout, stderr: r.stderr };
  });

function execFile(file, a, b, c) {
  const { args, opts, cb } = splitArgs(a, b, c);
  const p = run(String(file), args, options(opts));
  const display = [file, ...args].join(" ");
  if (cb) p.then((r) => (r.code === 0 ? cb(null, r.stdout, r.stderr) : cb(makeError(display, r), r.stdout, r.stderr)), (e) => cb(e, "", ""));
  return { pid: 0, kill() {}, on() {}, stdout: null, stderr: null };
}
execFile[promisify.custom] = (file, args, opts) =>
  run(String(file), Array.from(args || [], String), options(opts)).then((r) => {
    if (r.code !== 0) throw makeError([file, ...(args || [])].join(" "), r);
    return { stdout: r.stdout, stderr: r.stderr };
  });

function syncRun(file, args, opts) {
  const o = options(opts);
  return JSON.parse(native.execSync(file, JSON.stringify(args), o.cwd, o.timeout));
}

function execSync(command, opts) {
  const r = syncRun("/bin/sh", ["-c", String(command)], opts);
  if (r.code !== 0) throw makeError(command, r);
  return opts && opts.encoding && opts.encoding !== "buffer" ? r.stdout : Buffer.from(r.stdout);
}

function execFileSync(file, args, opts) {
  if (!Array.isArray(args)) {
    opts = args;
    args = [];
  }
  const r = syncRun(String(file), args.map(String), opts);
  if (r.code !== 0) throw makeError([file, ...args].join(" "), r);
  return opts && opts.encoding && opts.encoding !== "buffer" ? r.stdout : Buffer.from(r.stdout);
}

function spawnSync(file, args, opts) {
  if (!Array.isArray(args)) {
    opts = args;
    args = [];
  }
  const r = syncRun(String(file), (args || []).map(String), opts);
  const enc = opts && opts.encoding && opts.encoding !== "buffer";
  return {
    pid: 0,
    status: r.killed ? null : r.code,
    signal: r.killed ? "SIGTERM" : null,
    stdout: enc ? r.stdout : Buffer.from(r.stdout),
    stderr: enc ? r.stderr : Buffer.from(r.stderr),
    output: [null, r.stdout, r.stderr],
  };
}

// A readable stream of a child's output (the events and methods scripts
// use: data, end, close, setEncoding, pipe, async iteration).
class Readable extends EventEmitter {
  constructor() {
    super();
    this._enc = undefined;
    this.readable = true;
  }
  setEncoding(enc) {
    this._enc = enc;
    return this;
  }
  _push(text) {
    this.emit("data", this._enc ? text : Buffer.from(text));
  }
  _end() {
    this.readable = false;
    this.emit("end");
    this.emit("close");
  }
  pipe(dest) {
    this.on("data", (d) => dest.write(d));
    return dest;
  }
  pause() {
    return this;
  }
  resume() {
    return this;
  }
  destroy() {
    return this;
  }
  [Symbol.asyncIterator]() {
    const queue = [];
    const waiters = [];
    let ended = false;
    this.on("data", (d) => {
      const w = waiters.shift();
      if (w) w({ value: d, done: false });
      else queue.push(d);
    });
    this.on("end", () => {
      ended = true;
      for (const w of waiters.splice(0)) w({ value: undefined, done: true });
    });
    return {
      next: () => {
        if (queue.length) return Promise.resolve({ value: queue.shift(), done: false });
        if (ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => waiters.push(resolve));
      },
    };
  }
}

class ChildProcess extends EventEmitter {
  constructor() {
    super();
    this.stdout = new Readable();
    this.stderr = new Readable();
    this.exitCode = null;
    this.signalCode = null;
    this.killed = false;
    this.pid = undefined;
    this._h = null;
    const self = this;
    this.stdin = {
      writable: true,
      write(d, _enc, cb) {
        const ok = self._h && self._h.write(typeof d === "string" ? d : String(Buffer.from(d)));
        if (typeof _enc === "function") _enc();
        else if (typeof cb === "function") cb();
        return !!ok;
      },
      end(d) {
        if (d !== undefined) this.write(d);
        if (self._h) self._h.end();
        this.writable = false;
      },
      on() {
        return this;
      },
      once() {
        return this;
      },
    };
  }
  kill(signal) {
    if (!this._h) return false;
    const ok = this._h.kill(typeof signal === "string" ? signal : "SIGTERM");
    if (ok) this.killed = true;
    return ok;
  }
}

function spawn(file, a, b) {
  let args = [];
  let opts = {};
  if (Array.isArray(a)) {
    args = a.map(String);
    opts = b || {};
  } else if (a && typeof a === "object") opts = a;
  let cmd = String(file);
  if (opts.shell) {
    args = ["-c", [cmd, ...args].join(" ")];
    cmd = typeof opts.shell === "string" ? opts.shell : "/bin/sh";
  }
  const cp = new ChildProcess();
  // As in Node, a child's environment is process.env unless the options give one.
  const envSrc = opts.env && typeof opts.env === "object" ? opts.env : typeof process === "object" && process && process.env;
  const env = envSrc ? JSON.stringify(Object.fromEntries(Object.entries(envSrc).map(([k, v]) => [k, String(v)]))) : "";
  let closed = false;
  const onEvent = (kind, x, y) => {
    switch (kind) {
      case "stdout":
        cp.stdout._push(x);
        break;
      case "stderr":
        cp.stderr._push(x);
        break;
      case "error": {
        const e = new Error(`spawn ${cmd} ${y || ""}: ${x}`.replace("  ", " "));
        e.code = y;
        e.syscall = "spawn " + cmd;
        e.path = cmd;
        cp.emit("error", e);
        break;
      }
      case "exit":
        cp.exitCode = x < 0 ? null : x;
        cp.signalCode = y || null;
        cp.emit("exit", cp.exitCode, cp.signalCode);
        cp.stdout._end();
        cp.stderr._end();
        if (!closed) {
          closed = true;
          cp.emit("close", cp.exitCode, cp.signalCode);
        }
        break;
    }
  };
  const h = native.spawn(cmd, JSON.stringify(args), opts.cwd ? String(opts.cwd) : "", env, onEvent);
  cp._h = h;
  cp.pid = h.pid;
  if (opts.signal) {
    if (opts.signal.aborted) cp.kill();
    else opts.signal.addEventListener("abort", () => cp.kill());
  }
  if (cp.pid !== undefined) Promise.resolve().then(() => cp.emit("spawn"));
  return cp;
}

function unsupported(name) {
  return () => {
    throw new Error(`child_process.${name}() is not available to extensions: use spawn, exec, execFile, their Sync forms, spawnSync or pi.exec`);
  };
}

module.exports = {
  exec,
  execFile,
  execSync,
  execFileSync,
  spawnSync,
  spawn,
  ChildProcess,
  fork: unsupported("fork"),
};
