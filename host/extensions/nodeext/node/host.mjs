// The Node side of atomic's Node extension runtime: a go-plugin gRPC
// plugin (the atomic plugin protocol, proto/atomic/plugin/v1) that loads
// pi extensions unchanged and serves each of them as one extension of the
// protocol. The agent starts one process for all the extensions that run
// in Node (each loaded in its own module scope, with its own `pi` object
// and its own HostService connection) and one more per extension with
// "isolation": "process".
//
// Calls name their extension with the gRPC metadata "atomic-extension-id";
// Describe also carries "atomic-extension-manifest", the file (written by
// the Go side) that lists the extension's entry point and its TypeScript
// files transformed by esbuild. Built by `go generate` into ../dist (this
// file, the npm modules it imports and the .proto files in one bundle).
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { AsyncLocalStorage } from "node:async_hooks";
import { SourceMap, createRequire, findSourceMap, register } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";
import { MessageChannel, Worker, isMainThread, receiveMessageOnPort } from "node:worker_threads";

import { virtualModuleSource } from "./loader.mjs";

import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import * as TypeBox from "typebox";
import * as TypeBoxCompile from "typebox/compile";
import * as TypeBoxValue from "typebox/value";

import typesProto from "../../../../proto/atomic/plugin/v1/types.proto";
import pluginProto from "../../../../proto/atomic/plugin/v1/plugin.proto";
import hostProto from "../../../../proto/atomic/plugin/v1/host.proto";

// go-plugin's own services (hashicorp/go-plugin internal/plugin/*.proto and
// grpc.health.v1), declared here with the fields the host uses.
const goPluginProto = `
syntax = "proto3";
package plugin;
message ConnInfo {
  uint32 service_id = 1;
  string network = 2;
  string address = 3;
  message Knock { bool knock = 1; bool ack = 2; string error = 3; }
  Knock knock = 4;
}
service GRPCBroker { rpc StartStream(stream ConnInfo) returns (stream ConnInfo); }
message Empty {}
service GRPCController { rpc Shutdown(Empty) returns (Empty); }
`;
const healthProto = `
syntax = "proto3";
package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }
service Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); }
`;

const COOKIE_KEY = "ATOMIC_PLUGIN";
const COOKIE_VALUE = "extension-host-v1";
const PROTOCOL_VERSION = 1;
const EXT_ID = "atomic-extension-id";
const EXT_MANIFEST = "atomic-extension-manifest";
const CALL_ID = "atomic-call-id";

let protoRoot = null; // the parsed .proto files (the event lane's frames)
let protoServices = null; // loadProtos's: a service's gRPC definition by full name

// loadProtos parses the .proto files and makes grpc-js's service
// definitions from them directly (what @grpc/proto-loader would make, by
// way of a descriptor round trip this start does not pay for): a message
// is encoded from a plain object with the proto field names, and decoded
// into one with numbers for 64-bit integers, enum names and every field
// present (defaults). protos(name) is the service's definition (for
// Server.addService) and client constructor.
const wireOptions = { longs: Number, enums: String, defaults: true };
function loadProtos() {
  const root = new protobuf.Root();
  for (const src of [typesProto, pluginProto, hostProto, goPluginProto, healthProto]) {
    protobuf.parse(src, root, { keepCase: true });
  }
  root.resolveAll();
  protoRoot = root;
  const serialize = (T) => (obj) => T.encode(T.fromObject(obj)).finish();
  const deserialize = (T) => (buf) => T.toObject(T.decode(buf), wireOptions);
  const services = new Map();
  protoServices = (name) => {
    let s = services.get(name);
    if (!s) {
      const svc = root.lookupService(name);
      const service = {};
      for (const m of svc.methodsArray) {
        const req = m.resolvedRequestType;
        const res = m.resolvedResponseType;
        service[m.name] = {
          path: `/${name}/${m.name}`,
          requestStream: !!m.requestStream,
          responseStream: !!m.responseStream,
          requestSerialize: serialize(req),
          requestDeserialize: deserialize(req),
          responseSerialize: serialize(res),
          responseDeserialize: deserialize(res),
        };
      }
      s = { service, Client: grpc.makeGenericClientConstructor(service, svc.name) };
      services.set(name, s);
    }
    return s;
  };
  return protoServices;
}

const log = (...args) => process.stderr.write(`[atomic-node-host] ${args.join(" ")}\n`);

// grpc-js keeps channelz statistics for every call unless told not to:
// nobody reads them here, and they cost on every hook call.
const grpcOptions = { "grpc.enable_channelz": 0 };


// --- synchronous host calls --------------------------------------------------
// pi's API has synchronous getters (pi.getActiveTools(), ctx.sessionManager
// …): the extension's thread must have the agent's answer before it goes
// on. The agent passes this process a socket for them, the host lane
// (plugin.proto, HostLaneFrame; fd ATOMIC_PLUGIN_HOST_FD): a call is one
// blocking write and one blocking read of that socket on this thread, with
// the protobuf types loaded anyway. Only when there is no lane (a system
// without socket pairs) does a worker thread make the call over gRPC while
// this thread waits on a shared flag.
const hostLaneFD = (() => {
  const fd = Number(process.env.ATOMIC_PLUGIN_HOST_FD);
  delete process.env.ATOMIC_PLUGIN_HOST_FD; // not for the extensions' children
  return Number.isInteger(fd) && fd >= 3 ? fd : -1;
})();
let hostLaneUp = hostLaneFD >= 0;
let hostLaneSeq = 0;

// laneIO runs one blocking read or write of the lane, again when a signal
// interrupted it (a profiler's, a child's end).
function laneIO(op, buf, off) {
  for (;;) {
    try {
      return op(hostLaneFD, buf, off, buf.length - off, null);
    } catch (e) {
      if (!e || e.code !== "EINTR") throw e;
    }
  }
}

// laneReadFull fills buf from the lane; false at its end. A read that
// times out (the socket's receive timeout) throws EAGAIN.
function laneReadFull(buf) {
  let off = 0;
  while (off < buf.length) {
    const n = laneIO(fs.readSync, buf, off);
    if (n === 0) return false;
    off += n;
  }
  return true;
}

// laneCall makes one call over the host lane and returns the encoded
// response. A lane that breaks (closed, torn, timed out inside a frame) is
// not used again: later calls take the worker.
function laneCall(brokerId, method, body, callId) {
  const Frame = protoRoot.lookupType("atomic.plugin.v1.HostLaneFrame");
  const id = ++hostLaneSeq;
  const msg = Frame.encode({ id, broker_id: brokerId, method, metadata: callId ? { [CALL_ID]: callId } : {}, timeout_ms: SYNC_TIMEOUT_MS, request: body }).finish();
  const out = Buffer.allocUnsafe(4 + msg.length);
  out.writeUInt32BE(msg.length, 0);
  out.set(msg, 4);
  const broken = (why) => {
    hostLaneUp = false;
    return new Error(`host call ${method}: ${why}`);
  };
  try {
    for (let off = 0; off < out.length; ) off += laneIO(fs.writeSync, out, off);
  } catch (e) {
    throw broken(errText(e));
  }
  const head = Buffer.allocUnsafe(4);
  for (;;) {
    let whole;
    try {
      whole = laneReadFull(head);
    } catch (e) {
      // Between frames, a timeout leaves the lane whole (the late answer
      // is skipped by its id).
      if (e && e.code === "EAGAIN") throw new Error(`host call ${method} timed out`);
      throw broken(errText(e));
    }
    if (!whole) throw broken("the agent closed the host lane");
    const n = head.readUInt32BE(0);
    if (n > SYNC_MAX_BYTES + 4096) throw broken(`a frame of ${n} bytes`);
    const buf = Buffer.allocUnsafe(n);
    try {
      if (!laneReadFull(buf)) throw new Error("the agent closed the host lane");
    } catch (e) {
      throw broken(errText(e));
    }
    let f;
    try {
      f = Frame.decode(buf);
    } catch (e) {
      throw broken("a frame does not decode: " + errText(e));
    }
    if (Number(f.id) !== id) continue; // the answer to a call given up on
    if (f.error) throw new Error(f.error);
    const r = f.response; // unset when the response message is empty
    return r && r.length ? Buffer.from(r.buffer, r.byteOffset, r.byteLength) : Buffer.alloc(0);
  }
}

// The worker (no lane) is small on purpose: this thread encodes the
// request and decodes the answer, and the worker only moves the bytes as
// one unary gRPC call over HTTP/2 (Node's own http2 module), framed as the
// gRPC wire format says: a zero byte, the length as four bytes big-endian,
// the message; the status comes in the trailers.
const syncWorkerSource = `
const { workerData } = require("node:worker_threads");
const http2 = require("node:http2");
const net = require("node:net");
const { port, flag } = workerData;
const f = new Int32Array(flag);
const sessions = new Map();
function session(address) {
  let s = sessions.get(address);
  if (s && !s.closed && !s.destroyed) return s;
  s = http2.connect("http://localhost", { createConnection: () => net.connect(address) });
  s.on("error", () => {});
  s.on("close", () => { if (sessions.get(address) === s) sessions.delete(address); });
  sessions.set(address, s);
  return s;
}
port.on("message", ({ address, method, body, callId, timeoutMs, maxBytes }) => {
  let answered = false;
  const answer = (m) => {
    if (answered) return;
    answered = true;
    port.postMessage(m);
    Atomics.store(f, 0, 1);
    Atomics.notify(f, 0);
  };
  let req;
  try {
    const headers = {
      ":method": "POST",
      ":path": "/atomic.plugin.v1.HostService/" + method,
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-timeout": timeoutMs + "m",
    };
    if (callId) headers["${CALL_ID}"] = callId;
    req = session(address).request(headers);
  } catch (e) {
    return answer({ error: String((e && e.message) || e) });
  }
  const chunks = [];
  let status, message;
  const meta = (h) => {
    if (h["grpc-status"] !== undefined) {
      status = Number(h["grpc-status"]);
      message = h["grpc-message"];
    }
  };
  req.on("response", meta);
  req.on("trailers", meta);
  let size = 0;
  req.on("data", (c) => {
    size += c.length;
    if (size > maxBytes) {
      answer({ error: "the answer is larger than " + maxBytes + " bytes" });
      req.close(http2.constants.NGHTTP2_CANCEL);
      return;
    }
    chunks.push(c);
  });
  req.on("error", (e) => answer({ error: e.message }));
  req.on("close", () => {
    if (status === undefined) return answer({ error: "the agent closed the call" });
    if (status !== 0) {
      let text = "status " + status;
      try { if (message) text = decodeURIComponent(message); } catch {}
      return answer({ error: text });
    }
    const buf = Buffer.concat(chunks);
    if (buf.length < 5 || buf[0] !== 0 || buf.readUInt32BE(1) !== buf.length - 5) return answer({ error: "a malformed answer" });
    answer({ body: buf.subarray(5) });
  });
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.byteLength, 1);
  req.end(Buffer.concat([head, Buffer.from(body.buffer, body.byteOffset, body.byteLength)]));
});
`;

let syncState;
// startSync starts the worker (once, when there is no host lane): at the
// first extension's load, so that it starts on another core while the
// extension loads, before the getters an extension calls while loading or
// in session_start wait for it.
function startSync() {
  if (hostLaneUp) return null;
  if (!syncState) {
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    const worker = new Worker(syncWorkerSource, {
      eval: true,
      workerData: { port: port2, flag },
      transferList: [port2],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    port1.unref();
    syncState = { port: port1, flag: new Int32Array(flag) };
  }
  return syncState;
}

const SYNC_TIMEOUT_MS = 30000;
// SYNC_MAX_BYTES bounds one synchronous answer, as the gRPC server's
// message limit does for the asynchronous calls.
const SYNC_MAX_BYTES = 64 << 20;
function syncCall(ext, method, req, callId) {
  const def = protoServices("atomic.plugin.v1.HostService").service[method];
  if (!def) throw new TypeError(`HostService has no method ${method}`);
  const body = def.requestSerialize(req);
  if (hostLaneUp) return def.responseDeserialize(laneCall(ext.brokerId, method, body, callId));
  const address = ext.address;
  const { port, flag } = startSync();
  Atomics.store(flag, 0, 0);
  port.postMessage({ address, method, body, callId, timeoutMs: SYNC_TIMEOUT_MS, maxBytes: SYNC_MAX_BYTES });
  if (Atomics.wait(flag, 0, 0, SYNC_TIMEOUT_MS + 5000) === "timed-out") throw new Error(`host call ${method} timed out`);
  const m = receiveMessageOnPort(port);
  if (!m) throw new Error(`host call ${method}: no answer`);
  if (m.message.error !== undefined) throw new Error(m.message.error);
  const b = m.message.body; // a Uint8Array after the move: decoded as a Buffer, as grpc-js does
  return def.responseDeserialize(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

// --- virtual modules -----------------------------------------------------------
// The pi packages, TypeBox and Atomic's names of them. The pi package
// stand-ins are the goja runtime's (CommonJS sources the Go side writes
// next to this file), evaluated here with a require that knows the other
// virtual modules: one set of stand-ins for both runtimes.
function makeVirtualModules(dir, agentDir, version) {
  const sources = JSON.parse(fs.readFileSync(path.join(dir, "standins.json"), "utf8"));
  const cache = new Map();
  const internal = { byteLength: (s) => Buffer.byteLength(String(s)), version, agentDir, ...builtinNatives(sources.builtinTools || {}) };
  const fixed = {
    typebox: TypeBox,
    "typebox/compile": TypeBoxCompile,
    "typebox/value": TypeBoxValue,
    "atomic:internal": internal,
  };
  const alias = {
    "@sinclair/typebox": "typebox",
    "@sinclair/typebox/compile": "typebox/compile",
    "@sinclair/typebox/value": "typebox/value",
  };
  const names = new Set([...Object.keys(fixed), ...Object.keys(alias), ...Object.keys(sources.modules)]);
  names.delete("atomic:internal");
  for (const n of Object.keys(sources.modules)) {
    for (const scope of ["@mariozechner/", "@bastani/"]) {
      if (n.startsWith(scope + "pi-")) names.add("@earendil-works/" + n.slice(scope.length));
    }
  }
  const get = (name) => {
    if (alias[name]) name = alias[name];
    if (name.startsWith("@earendil-works/")) name = "@mariozechner/" + name.slice("@earendil-works/".length);
    if (fixed[name]) return fixed[name];
    if (cache.has(name)) return cache.get(name).exports;
    const file = sources.modules[name];
    if (!file) throw new Error(`Cannot find module '${name}'`);
    const module = { exports: {} };
    cache.set(name, module);
    const fn = new Function("module", "exports", "require", sources.files[file] + `\n//# sourceURL=atomic:${file}`);
    fn(module, module.exports, (n) => {
      try {
        return get(n);
      } catch {
        return requireNode(n);
      }
    });
    return module.exports;
  };
  return { names: [...names], get, shared: sources.shared || {}, staleMessage: sources.staleMessage || "This extension ctx is stale." };
}

// writeVirtualFiles writes each virtual module as the ES module file a
// bundle imports (virtual/<hex of the name>.mjs in the program directory,
// bundle.go's virtualFile), where it is not there already: atomically, as
// agents running the same program share the directory.
function writeVirtualFiles(dir, exportsOf) {
  const vdir = path.join(dir, "virtual");
  try {
    fs.mkdirSync(vdir, { recursive: true, mode: 0o700 });
    for (const [name, keys] of Object.entries(exportsOf)) {
      const file = path.join(vdir, Buffer.from(name).toString("hex") + ".mjs");
      const src = virtualModuleSource(name, keys);
      try {
        if (fs.readFileSync(file, "utf8") === src) continue;
      } catch {}
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, src, { mode: 0o600 });
      fs.renameSync(tmp, file);
    }
  } catch (e) {
    // A bundle then fails to link and is loaded file by file.
    log(`virtual module files: ${errText(e)}`);
  }
}

// --- pi's built-in tool factories ------------------------------------------------
// The tool objects of createReadTool(cwd), createBashTool(cwd, …)… (made by
// the stand-in's js/agent.js, as in goja) run the agent's own built-in
// tools: their descriptions come with the stand-ins, their runs are
// HostService.RunBuiltinTool calls. Any extension's host connection reaches
// the same agent; the one of the extension the agent called last (or the
// one loading) is the one surely alive.
let builtinHost; // an Extension
// running is the extension whose code runs (a call into it, and the
// timers and promises it starts): pi-ai's complete/stream, nested
// sessions and the built-in tools outside a call go through its host
// connection, else through builtinHost's.
const running = new AsyncLocalStorage();
const current = () => running.getStore() || builtinHost;
const outside = () => {
  const e = current();
  if (!e) throw new Error("no connection to the agent");
  return e.outside;
};
globalThis.__atomicModelCalls = {
  complete: (...a) => outside().modelCalls.complete(...a),
  stream: (...a) => outside().modelCalls.stream(...a),
};
globalThis.__atomicSessionHost = {
  model: () => outside().sessionHost.model(),
  systemPrompt: () => outside().sessionHost.systemPrompt(),
};
const builtinCalls = new Map(); // token -> the RunBuiltinTool call in flight
let builtinTokens = 0;
function builtinNatives(infos) {
  return {
    builtinToolInfo: (name) => (Object.hasOwn(infos, name) ? JSON.stringify(infos[name]) : ""),
    newToken: () => ++builtinTokens,
    cancel: (token) => {
      const c = builtinCalls.get(token);
      if (c) c.cancel();
    },
    runBuiltinTool: (token, name, cwd, argsJSON, envJSON, update) =>
      new Promise((resolve, reject) => {
        if (!Object.hasOwn(infos, name)) throw new TypeError(`"${name}" is not a built-in tool`);
        const host = current();
        if (!host) throw new Error("no connection to the agent for the built-in tools");
        const call = host.client.RunBuiltinTool({ name, arguments_json: Buffer.from(argsJSON), cwd, env: JSON.parse(envJSON) });
        builtinCalls.set(token, call);
        let settled = false;
        const settle = (fn, v) => {
          builtinCalls.delete(token);
          if (!settled) {
            settled = true;
            fn(v);
          }
        };
        call.on("data", (m) => {
          const json = m.result_json && m.result_json.length ? Buffer.from(m.result_json).toString() : "";
          if (m.final) {
            if (m.error) settle(reject, new Error(m.error));
            else settle(resolve, json);
          } else if (update && json && !settled) {
            try {
              update(json);
            } catch (e) {
              log(`a built-in tool's onUpdate failed (${name}): ${errText(e)}`);
            }
          }
        });
        call.on("error", (e) => settle(reject, new Error(e.code === grpc.status.CANCELLED ? "aborted" : e.details || e.message)));
        call.on("end", () => settle(reject, new Error(`the built-in tool ${name} ended without a result`)));
      }),
  };
}

// commonJS evaluates one of the agent's shared built-in sources (a
// CommonJS module without imports) and returns its exports.
function commonJS(src, name) {
  const module = { exports: {} };
  new Function("module", "exports", "require", src + `\n//# sourceURL=atomic:${name}`)(module, module.exports, () => {
    throw new Error(`${name}: no imports`);
  });
  return module.exports;
}
let sessionControl; // js/sessionctl.js of the goja runtime: one rule for both
let makeUI; // js/ui.js of the goja runtime: ctx.ui
let makeAPI; // js/api.js of the goja runtime: pi's API, one for every engine
let staleMessage = "";
const requireNode = (n) => {
  throw new Error(`Cannot find module '${n}'`);
};

// --- the host port of js/api.js ---------------------------------------------------
// The HostService over gRPC: requests and responses as plain objects with
// the proto field names, a bytes field (all are *_json) holding its
// decoded JSON value. toWire and fromWire convert to and from grpc-js's
// objects (bytes as Buffers).
const wireType = (name) => protoRoot.lookupType("atomic.plugin.v1." + name);
function toWire(type, obj) {
  const out = {};
  for (const k of Object.keys(obj || {})) {
    const v = obj[k];
    const f = type.fields[k];
    if (!f) throw new TypeError(`${type.name} has no field ${k}`);
    if (v === undefined || v === null) continue;
    f.resolve();
    if (f.type === "bytes") out[k] = Buffer.from(JSON.stringify(v));
    else if (f.resolvedType instanceof protobuf.Type) out[k] = f.repeated ? Array.from(v, (x) => toWire(f.resolvedType, x)) : toWire(f.resolvedType, v);
    else out[k] = v;
  }
  return out;
}
function fromWire(type, obj) {
  if (!obj) return obj;
  const out = {};
  for (const f of type.fieldsArray) {
    const v = obj[f.name];
    f.resolve();
    if (f.type === "bytes") {
      out[f.name] = undefined;
      if (v && v.length) {
        try {
          out[f.name] = JSON.parse(Buffer.from(v).toString());
        } catch {}
      }
    } else if (f.resolvedType instanceof protobuf.Type) {
      out[f.name] = f.repeated ? Array.from(v || [], (x) => fromWire(f.resolvedType, x)) : v ? fromWire(f.resolvedType, v) : null;
    } else out[f.name] = v;
  }
  return out;
}

// A call handle of the API: the HandlerContext the agent sent with the
// call (raw, or decoded), its signal (made on first use), a tool's
// onUpdate.
const callIdOf = (call) => (call ? (call.hc ? call.hc.call_id : call.raw && call.raw.call_id) || "" : "");

const jsonBytes = (v) => (v === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(v)));
const fromBytes = (b) => (b && b.length ? JSON.parse(Buffer.from(b).toString()) : undefined);
const errText = (e) => (e instanceof Error ? e.message || String(e) : String(e));

const busMembers = new Map(); // channel -> Set(Extension): pi.events between this process's extensions

class Extension {
  constructor(id, manifest, hostAddress, brokerId, hostClient) {
    this.id = id;
    this.manifest = manifest;
    this.address = hostAddress;
    this.brokerId = brokerId;
    this.client = hostClient;
    this.flagValues = manifest.flagValues || {};
    this.name = "";
    const ext = this;
    this.api = makeAPI({
      port: {
        sync: (method, req, call) => fromWire(wireType(method + "Response"), ext.sync(method, toWire(wireType(method + "Request"), req), callIdOf(call))),
        call: (method, req, call, opts) => {
          const wire = toWire(wireType(method + "Request"), req);
          const o = opts || {};
          const p = o.ordered ? ext.ordered(method, wire, callIdOf(call)) : ext.call(method, wire, callIdOf(call), o.signal);
          return p.then((r) => fromWire(wireType(method + "Response"), r));
        },
      },
      context: (call) => (call ? call.hc || (call.hc = fromWire(wireType("HandlerContext"), call.raw || {})) : { cwd: process.cwd(), mode: "rpc" }),
      signal: (call) => {
        if (!call) return new AbortController().signal;
        if (typeof call.sig === "function") call.sig = call.sig();
        return call.sig;
      },
      fresh: (call, hc) => ({ hc: Object.assign({}, hc || {}, { call_id: callIdOf(call) }), sig: call && call.sig, update: call && call.update }),
      flagValue: (name) => ext.flagValues[name],
      listen: (channel, on) => {
        let set = busMembers.get(channel);
        if (on) {
          if (!set) busMembers.set(channel, (set = new Set()));
          set.add(ext);
        } else if (set) set.delete(ext);
      },
      emit: (channel, data) => {
        for (const other of Array.from(busMembers.get(channel) || [])) if (other !== ext) other.api.deliver(channel, data);
      },
      toolUpdate: (call, partial) => call && call.update && call.update(partial),
      // At the API's level (the agent's log reads JSON lines of this
      // shape), as goja logs it.
      log: (level, message) =>
        process.stderr.write(JSON.stringify({ "@level": String(level), "@message": String(message), extension: path.basename(ext.manifest.entry) }) + "\n"),
      staleMessage,
      sessionControl,
      makeUI,
      outside: (o) => {
        ext.outside = o;
      },
    });
  }

  call(method, req, callId, signal) {
    return new Promise((resolve, reject) => {
      if (signal && signal.aborted) return reject(signal.reason || new Error("aborted"));
      const md = new grpc.Metadata();
      if (callId) md.set(CALL_ID, callId);
      const c = this.client[method](req, md, (err, res) => (err ? reject(new Error(err.details || err.message)) : resolve(res)));
      if (signal) signal.addEventListener("abort", () => c.cancel());
    });
  }
  // ordered makes the call once every earlier ordered call of this
  // extension has been answered: messages reach the session in the order
  // the extension sent them, as in pi.
  ordered(method, req, callId) {
    const p = (this.sendTail || Promise.resolve()).then(() => this.call(method, req, callId));
    this.sendTail = p.catch(() => {});
    return p;
  }
  sync(method, req, callId) {
    return syncCall(this, method, req || {}, callId);
  }

  describe() {
    return toWire(wireType("DescribeResponse"), {
      ...this.api.describe(),
      name: this.name,
      version: "",
      protocol_version: PROTOCOL_VERSION,
      capabilities: lane ? ["events.batch", "events.per_handler", LANE_CAPABILITY] : ["events.batch", "events.per_handler"],
      timeouts_ms: {},
    });
  }
}

// --- stack traces -----------------------------------------------------------------
// Stack traces name the extension's own files and lines, as with Node's
// --enable-source-maps, but a bundle's map (megabytes for a large
// package) is read only when a trace passes through the bundle, instead
// of at every start for every bundle: Node parses every map it finds at
// load time. Files loaded one by one (the loader's transforms, with
// inline maps) are mapped by Node (source maps are turned on before the
// first such load) and looked up here.
const bundleMaps = new Map(); // bundle file URL -> { file, map (once read) }
let nodeMaps = false; // Node's own source maps are on

function mapFrame(url) {
  const bare = url.replace(/\?[^/]*$/, "");
  const b = bundleMaps.get(bare);
  if (b) {
    if (b.map === undefined) {
      try {
        b.map = new SourceMap(JSON.parse(fs.readFileSync(b.file, "utf8")));
      } catch {
        b.map = null;
      }
    }
    return b.map && { map: b.map, base: pathToFileURL(b.file).href };
  }
  if (!nodeMaps) return null;
  let m;
  try {
    m = findSourceMap(url) || findSourceMap(bare);
  } catch {}
  return m ? { map: m, base: bare } : null;
}

function originalPlace(cs) {
  const file = cs.getFileName();
  const line = cs.getLineNumber();
  const col = cs.getColumnNumber();
  if (!file || !line || !col) return null;
  const found = mapFrame(file);
  if (!found) return null;
  const e = found.map.findEntry(line - 1, col - 1);
  if (!e || !e.originalSource) return null;
  let src = e.originalSource;
  try {
    src = new URL(src, found.base).href;
    if (src.startsWith("file:")) src = fileURLToPath(src);
  } catch {}
  return { raw: `${file}:${line}:${col}`, place: `${src}:${e.originalLine + 1}:${e.originalColumn + 1}` };
}

function formatStack(err, trace) {
  let head;
  try {
    head = Error.prototype.toString.call(err);
  } catch {
    head = "Error";
  }
  const lines = [head];
  for (const cs of trace) {
    let text = String(cs);
    try {
      const o = originalPlace(cs);
      const i = o ? text.lastIndexOf(o.raw) : -1;
      if (i >= 0) text = text.slice(0, i) + o.place + text.slice(i + o.raw.length);
    } catch {}
    lines.push("    at " + text);
  }
  return lines.join("\n");
}

// useSourceMaps installs the formatter (once; code that sets its own
// Error.prepareStackTrace replaces it, as under Node's flag).
let stackHook = false;
function useSourceMaps() {
  if (stackHook) return;
  stackHook = true;
  Error.prepareStackTrace = formatStack;
}

let hostDir = ""; // where this program runs from (its frames are not the extension's)
// failure is a failed dispatch as HandleEventResponse's error fields:
// api.js's HandlerErrors (several handlers of a notification failed) is
// one error per handler.
const failure = (e, ext) => {
  if (e && e.name === "HandlerErrors" && Array.isArray(e.errors)) {
    const each = e.errors.map((x) => errorOf(x, ext));
    return { error: each.join("; "), handler_errors: each };
  }
  return { error: errorOf(e, ext), handler_errors: [] };
};

// errorOf describes a failure as goja does: the message and the first
// position in the extension's own files, relative to its directory
// ("boom (guard.ts:4:11)"); frames of this host program are skipped.
const errorOf = (e, ext) => {
  if (!(e instanceof Error)) return String(e);
  const msg = e.message || String(e);
  const base = ext ? path.dirname(ext.manifest.entry) : "";
  for (const line of String(e.stack || "").split("\n").slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?$/.exec(line.trim());
    if (!m) continue;
    let f = m[1].replace(/\?[^/]*$/, "");
    if (f.startsWith("file://")) f = fileURLToPath(f);
    if (hostDir && f.startsWith(hostDir + path.sep)) continue;
    if (base) {
      const rel = path.relative(base, f);
      if (!rel.startsWith("..")) f = rel;
    }
    return `${msg} (${f}:${m[2]}:${m[3]})`;
  }
  return msg;
};

// --- the plugin ------------------------------------------------------------------
async function main() {
  if (process.env[COOKIE_KEY] !== COOKIE_VALUE) {
    process.stderr.write("This program is atomic's Node extension host; the atomic agent starts it.\n");
    process.exit(1);
  }
  // V8's code cache (Node 22.1+, set by the agent) is this process's:
  // the programs extensions start do not inherit it.
  delete process.env.NODE_COMPILE_CACHE;
  const dir = path.dirname(fileURLToPath(import.meta.url));
  hostDir = dir;
  const virtual = makeVirtualModules(dir, process.env.ATOMIC_AGENT_DIR || "", process.env.ATOMIC_HOST_VERSION || "");
  sessionControl = commonJS(virtual.shared["sessionctl.js"], "sessionctl.js");
  makeUI = commonJS(virtual.shared["ui.js"], "ui.js");
  makeAPI = commonJS(virtual.shared["api.js"], "api.js");
  staleMessage = virtual.staleMessage;
  globalThis.__atomicVirtualModule = virtual.get;
  const exportsOf = {};
  for (const n of virtual.names) {
    try {
      exportsOf[n] = Object.keys(virtual.get(n));
    } catch (e) {
      log(`virtual module ${n}: ${errText(e)}`);
      exportsOf[n] = [];
    }
  }
  writeVirtualFiles(dir, exportsOf);
  // import.meta.resolve of a bundled file, from where the file is (the
  // virtual modules as the module hooks name them).
  globalThis.__atomicResolve = (s, parent) => (Object.hasOwn(exportsOf, s) ? "atomic-virtual:" + s : import.meta.resolve(s, parent));
  // require() of a package esbuild did not find, from the requiring file.
  globalThis.__atomicRequire = (parent, s) => createRequire(parent)(s);
  // The module hooks run on a thread of their own and see every module
  // loaded after they are registered: registered when an extension loaded
  // file by file (or a bundle that import()s a package) first needs them.
  let loaderPort = null;
  let seq = 0;
  const acks = new Map();
  const hooks = () => {
    if (loaderPort) return loaderPort;
    const { port1, port2 } = new MessageChannel();
    register(pathToFileURL(path.join(dir, "loader.mjs")).href, {
      data: { port: port2, virtual: exportsOf },
      transferList: [port2],
    });
    port1.unref();
    port1.on("message", (m) => {
      const done = acks.get(m.ack);
      acks.delete(m.ack);
      if (done) done();
    });
    loaderPort = port1;
    return port1;
  };
  // import(x) of a bundled file, x not a string literal or a package's
  // name: resolved from the file (a virtual module: the bundles' file of
  // it), loaded through the module hooks as before.
  globalThis.__atomicImport = (s, parent, options) => {
    let url;
    try {
      hooks();
      s = String(s);
      url = Object.hasOwn(exportsOf, s) ? pathToFileURL(path.join(dir, "virtual", Buffer.from(s).toString("hex") + ".mjs")).href : import.meta.resolve(s, parent);
    } catch (e) {
      return Promise.reject(e);
    }
    // The one import attribute Node knows: { with: { type: "json" } }.
    const type = options && ((options.with && options.with.type) || (options.assert && options.assert.type));
    return type === "json" ? import(url, { with: { type: "json" } }) : import(url);
  };
  const tellLoader = (manifest) =>
    new Promise((resolve) => {
      const port = hooks();
      const id = ++seq;
      acks.set(id, resolve);
      port.ref();
      port.postMessage({ seq: id, files: manifest.files || {}, resolve: manifest.resolve || {}, esm: manifest.esm || [] });
    }).finally(() => loaderPort.unref());

  const protos = loadProtos();
  const server = new grpc.Server({ ...grpcOptions, "grpc.max_receive_message_length": 64 << 20, "grpc.max_send_message_length": 64 << 20 });

  // go-plugin broker: the host announces where it serves each HostService.
  const conns = new Map();
  const waiting = new Map();
  const brokerConn = (id) =>
    new Promise((resolve, reject) => {
      if (conns.has(id)) return resolve(conns.get(id));
      const t = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`host service ${id} was not announced`));
      }, 10000);
      waiting.set(id, (info) => {
        clearTimeout(t);
        resolve(info);
      });
    });
  server.addService(protos("plugin.GRPCBroker").service, {
    StartStream(stream) {
      stream.on("data", (info) => {
        if (info.knock) return;
        conns.set(info.service_id, info);
        const w = waiting.get(info.service_id);
        waiting.delete(info.service_id);
        if (w) w(info);
      });
      stream.on("error", () => {});
      stream.on("end", () => stream.end());
    },
  });
  server.addService(protos("plugin.GRPCController").service, {
    Shutdown(_call, cb) {
      cb(null, {});
      setTimeout(() => process.exit(0), 10);
    },
  });
  server.addService(protos("grpc.health.v1.Health").service, {
    Check(_call, cb) {
      cb(null, { status: "SERVING" });
    },
  });

  const exts = new Map(); // id -> Extension
  const loads = new Map(); // id -> Promise<Extension>
  const extById = (id) => {
    const ext = exts.get(String(id || ""));
    if (!ext) throw new Error(`no extension ${id} in this process`);
    builtinHost = ext;
    return ext;
  };
  const extOf = (call) => extById(call.metadata.get(EXT_ID)[0]);
  // handleEvent answers one HandleEvent request (over gRPC or the lane).
  const handleEvent = async (ext, r, signal) => {
    try {
      const res = await running.run(ext, () => ext.api.dispatch({ raw: r.context, sig: signal }, r.event, fromBytes(r.payload_json), r.handler_index));
      return { result_json: res === undefined || res === null ? Buffer.alloc(0) : jsonBytes(res), error: "", handler_errors: [] };
    } catch (e) {
      return { result_json: Buffer.alloc(0), ...failure(e, ext) };
    }
  };
  const answer = (cb, fn) => {
    Promise.resolve()
      .then(fn)
      .then(
        (r) => cb(null, r),
        (e) => cb({ code: grpc.status.UNKNOWN, details: errText(e) }),
      );
  };
  // signalOf is the AbortSignal of a call, made on first use (most
  // handlers never read ctx.signal).
  const signalOf = (call) => () => {
    const ac = new AbortController();
    if (call.cancelled) ac.abort(new Error("aborted"));
    else call.on("cancelled", () => ac.abort(new Error("aborted")));
    return ac.signal;
  };


  const imports = new Map(); // module URL -> how many times it was imported
  async function load(id, manifestFile, req) {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
    manifest.flagValues = req.flag_values || {};
    const info = await brokerConn(req.host_broker_id);
    const address = info.address;
    const client = new (protos("atomic.plugin.v1.HostService").Client)("unix:" + address, grpc.credentials.createInsecure(), {
      ...grpcOptions,
      "grpc.max_receive_message_length": SYNC_MAX_BYTES, // the same bound for the synchronous and the asynchronous answers
    });
    const ext = new Extension(id, manifest, address, req.host_broker_id, client);
    builtinHost = ext;
    startSync();
    let url;
    useSourceMaps();
    if (manifest.bundle) {
      // One file (bundle.go); the hooks only for a package it import()s.
      if (manifest.hooks) await tellLoader({});
      url = pathToFileURL(manifest.bundle).href;
      bundleMaps.set(url, bundleMaps.get(url) || { file: manifest.bundle + ".map", map: undefined });
    } else {
      if (!nodeMaps) {
        process.setSourceMapsEnabled(true);
        nodeMaps = true;
      }
      await tellLoader(manifest);
      url = pathToFileURL(manifest.entry).href;
    }
    // Each load is a module instance of its own (a reload, or one file
    // loaded by two extensions), numbered per file: the same URL at every
    // start, so that V8's code cache (NODE_COMPILE_CACHE, keyed by URL)
    // finds the bundle compiled at the last start.
    const n = (imports.get(url) || 0) + 1;
    imports.set(url, n);
    const mod = await import(url + "?atomic-load=" + n);
    let factory = mod.default;
    if (factory && typeof factory === "object" && typeof factory.default === "function") factory = factory.default;
    if (typeof factory !== "function") throw new Error(`${manifest.entry} does not export a default function (the extension factory)`);
    await running.run(ext, () => factory(ext.api.pi));
    ext.api.finishLoading();
    ext.name = manifest.name || path.basename(manifest.entry).replace(/\.[^.]+$/, "");
    exts.set(id, ext);
    return ext;
  }

  server.addService(protos("atomic.plugin.v1.PluginService").service, {
    Describe(call, cb) {
      answer(cb, async () => {
        const id = String(call.metadata.get(EXT_ID)[0] || "");
        const manifestFile = String(call.metadata.get(EXT_MANIFEST)[0] || "");
        if (!id || !manifestFile) throw new Error("Describe needs the metadata atomic-extension-id and atomic-extension-manifest");
        let p = loads.get(id);
        if (!p) {
          p = load(id, manifestFile, call.request);
          loads.set(id, p);
          p.catch(() => loads.delete(id));
        }
        try {
          return (await p).describe();
        } catch (e) {
          throw new Error(errorOf(e));
        }
      });
    },
    HandleEvent(call, cb) {
      answer(cb, () => handleEvent(extOf(call), call.request, signalOf(call)));
    },
    HandleEvents(call, cb) {
      answer(cb, async () => {
        const ext = extOf(call);
        const errors = [];
        const signal = signalOf(call);
        for (const r of call.request.events) {
          try {
            await running.run(ext, () => ext.api.dispatch({ raw: r.context, sig: signal }, r.event, fromBytes(r.payload_json)));
            errors.push("");
          } catch (e) {
            errors.push(failure(e, ext).error);
          }
        }
        return { errors };
      });
    },
    RunCommand(call, cb) {
      answer(cb, async () => {
        const ext = extOf(call);
        const r = call.request;
        try {
          await running.run(ext, () => ext.api.runCommand({ raw: r.context, sig: signalOf(call) }, r.name, r.args, !!r.shortcut));
          return { error: "" };
        } catch (e) {
          return { error: errorOf(e, ext) };
        }
      });
    },
    GetCommandCompletions(call, cb) {
      answer(cb, async () => {
        const ext = extOf(call);
        const r = call.request;
        if (!ext.api.hasCompletions(r.name)) return { none: true };
        try {
          const items = await running.run(ext, () => ext.api.complete({ raw: r.context, sig: signalOf(call) }, r.name, r.argument_prefix));
          if (items === null || items === undefined) return { none: true };
          return {
            completions: Array.from(items, (i) =>
              typeof i === "string" ? { value: i, label: i } : { value: String(i.value ?? ""), label: String(i.label ?? i.value ?? ""), description: i.description ? String(i.description) : "" },
            ),
          };
        } catch (e) {
          return { error: errorOf(e, ext) };
        }
      });
    },
    ExecuteTool(call) {
      const finish = (msg) => {
        call.write(Object.assign({ final: true, content_json: Buffer.from("[]"), details_json: Buffer.alloc(0), is_error: false, error: "" }, msg));
        call.end();
      };
      (async () => {
        const ext = extOf(call);
        const r = call.request;
        const update = (partial) => {
          call.write({ final: false, content_json: jsonBytes(partial.content || []), details_json: jsonBytes(partial.details), is_error: false, error: "" });
        };
        try {
          const handle = { raw: r.context, sig: signalOf(call), update };
          const args = fromBytes(r.arguments_json) || {};
          // (A provider's model request takes the tool's path.)
          const run = r.provider ? () => ext.api.streamProvider(handle, r.provider, args) : () => ext.api.executeTool(handle, r.name, r.tool_call_id, args);
          const res = (await running.run(ext, run)) || {};
          finish({ content_json: jsonBytes(res.content || []), details_json: jsonBytes(res.details), is_error: !!res.isError, terminate: !!res.terminate });
        } catch (e) {
          finish({ error: errText(e) });
        }
      })().catch((e) => finish({ error: errText(e) }));
    },
  });

  lane = openLane((md, r, signal) => {
    let ext;
    try {
      ext = extById(md[EXT_ID]);
    } catch (e) {
      return Promise.resolve({ result_json: Buffer.alloc(0), error: errText(e) });
    }
    return handleEvent(ext, r, signal);
  });

  const sockDir = process.env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir();
  const sock = path.join(sockDir, `atomic-node-${process.pid}-${Math.random().toString(36).slice(2, 8)}.sock`);
  await new Promise((resolve, reject) =>
    server.bindAsync("unix:" + sock, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  const cleanup = () => {
    try {
      fs.unlinkSync(sock);
    } catch {}
  };
  process.on("exit", cleanup);
  for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
  // Extension code must not kill the host with an unhandled rejection.
  process.on("unhandledRejection", (e) => log("unhandled rejection:", errText(e)));
  process.on("uncaughtException", (e) => log("uncaught exception:", e && e.stack ? e.stack : e));
  // The handshake line is the only thing this program writes to its
  // standard output (which go-plugin reads); everything extensions print
  // there goes to the agent's log.
  process.stdout.write(`1|${PROTOCOL_VERSION}|unix|${sock}|grpc\n`);
}

// --- the event lane ----------------------------------------------------------
// The agent may pass this process a socket (fd ATOMIC_PLUGIN_EVENT_FD) on
// which it sends HandleEvent calls as frames (plugin.proto,
// EventLaneFrame: a 4-byte big-endian length, then the frame): one write
// and one read per call instead of an HTTP/2 stream. Every other call, and
// HandleEvent when the lane is down, comes over gRPC.
const LANE_CAPABILITY = "events.lane";
let lane = null; // set when the lane is open

function openLane(handle) {
  const fd = Number(process.env.ATOMIC_PLUGIN_EVENT_FD);
  delete process.env.ATOMIC_PLUGIN_EVENT_FD; // not for the extensions' children
  if (!Number.isInteger(fd) || fd < 3) return null;
  const Frame = protoRoot.lookupType("atomic.plugin.v1.EventLaneFrame");
  let sock;
  try {
    sock = new net.Socket({ fd, readable: true, writable: true });
  } catch (e) {
    log("no event lane:", errText(e));
    return null;
  }
  sock.unref(); // the gRPC server keeps the process alive, not the lane
  const calls = new Map(); // id -> cancel()
  const send = (msg) => {
    const body = Frame.encode(msg).finish();
    const out = Buffer.allocUnsafe(4 + body.length);
    out.writeUInt32BE(body.length, 0);
    out.set(body, 4);
    sock.write(out);
  };
  const request = (f) => {
    const key = String(f.id);
    let ac = null;
    let cancelled = false;
    calls.set(key, () => {
      cancelled = true;
      if (ac) ac.abort(new Error("aborted"));
    });
    // The AbortSignal of the call, made on first use.
    const signal = () => {
      if (!ac) {
        ac = new AbortController();
        if (cancelled) ac.abort(new Error("aborted"));
      }
      return ac.signal;
    };
    handle(f.metadata || {}, f.request, signal).then((response) => {
      // A cancelled call is not waited for: no answer.
      if (calls.delete(key)) send({ id: f.id, response });
    });
  };
  let buf = Buffer.alloc(0);
  sock.on("data", (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 4) {
      const n = buf.readUInt32BE(0);
      if (buf.length < 4 + n) break;
      const body = buf.subarray(4, 4 + n);
      buf = buf.subarray(4 + n);
      let f;
      try {
        // The decoded message reads like the gRPC path's request
        // (unset fields read as their defaults, messages as null).
        f = Frame.decode(body);
      } catch (e) {
        log("event lane: a frame does not decode:", errText(e));
        sock.destroy();
        return;
      }
      if (f.cancel) {
        const c = calls.get(String(f.id));
        calls.delete(String(f.id));
        if (c) c();
      } else if (f.request) {
        request(f);
      }
    }
  });
  sock.on("error", (e) => log("event lane:", errText(e)));
  return sock;
}

if (isMainThread) {
  main().catch((e) => {
    log("fatal:", e && e.stack ? e.stack : e);
    process.exit(1);
  });
}
