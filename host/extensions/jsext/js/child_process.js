// node:child_process through the agent's exec: programs run with the
// agent's environment, no standard input, output collected (no streaming).
"use strict";

const native = require("atomic:internal");
const { promisify } = require("util");

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

function unsupported(name) {
  return () => {
    throw new Error(`child_process.${name}() is not available to extensions: use exec, execFile, their Sync forms, spawnSync or pi.exec`);
  };
}

module.exports = {
  exec,
  execFile,
  execSync,
  execFileSync,
  spawnSync,
  spawn: unsupported("spawn"),
  fork: unsupported("fork"),
};
