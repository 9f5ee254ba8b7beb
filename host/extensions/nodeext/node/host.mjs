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
import { register } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";
import { MessageChannel, Worker, isMainThread, receiveMessageOnPort, workerData } from "node:worker_threads";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
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

function loadProtos() {
  const root = new protobuf.Root();
  for (const src of [typesProto, pluginProto, hostProto, goPluginProto, healthProto]) {
    protobuf.parse(src, root, { keepCase: true });
  }
  protoRoot = root;
  const def = protoLoader.fromJSON(root.toJSON(), { keepCase: true, longs: Number, enums: String, defaults: true });
  return grpc.loadPackageDefinition(def);
}

const log = (...args) => process.stderr.write(`[atomic-node-host] ${args.join(" ")}\n`);

// grpc-js keeps channelz statistics for every call unless told not to:
// nobody reads them here, and they cost on every hook call.
const grpcOptions = { "grpc.enable_channelz": 0 };


// --- synchronous host calls --------------------------------------------------
// pi's API has synchronous getters (pi.getActiveTools(), ctx.sessionManager
// …). A worker thread makes those HostService calls while the extension's
// thread waits on a shared flag: the answer is then read synchronously.
function syncWorker({ port, flag }) {
  const protos = loadProtos();
  const clients = new Map();
  const f = new Int32Array(flag);
  port.on("message", ({ address, method, req, callId }) => {
    let c = clients.get(address);
    if (!c) {
      c = new protos.atomic.plugin.v1.HostService("unix:" + address, grpc.credentials.createInsecure(), grpcOptions);
      clients.set(address, c);
    }
    const md = new grpc.Metadata();
    if (callId) md.set(CALL_ID, callId);
    c[method](req, md, { deadline: Date.now() + 30000 }, (err, res) => {
      port.postMessage(err ? { error: err.details || err.message } : { res });
      Atomics.store(f, 0, 1);
      Atomics.notify(f, 0);
    });
  });
}

let syncState;
function syncCall(address, method, req, callId) {
  if (!syncState) {
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { role: "sync", port: port2, flag },
      transferList: [port2],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    port1.unref();
    syncState = { port: port1, flag: new Int32Array(flag) };
  }
  const { port, flag } = syncState;
  Atomics.store(flag, 0, 0);
  port.postMessage({ address, method, req, callId });
  if (Atomics.wait(flag, 0, 0, 35000) === "timed-out") throw new Error(`host call ${method} timed out`);
  const m = receiveMessageOnPort(port);
  if (!m) throw new Error(`host call ${method}: no answer`);
  if (m.message.error !== undefined) throw new Error(m.message.error);
  return m.message.res;
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

// --- pi's built-in tool factories ------------------------------------------------
// The tool objects of createReadTool(cwd), createBashTool(cwd, …)… (made by
// the stand-in's js/agent.js, as in goja) run the agent's own built-in
// tools: their descriptions come with the stand-ins, their runs are
// HostService.RunBuiltinTool calls. Any extension's host connection reaches
// the same agent; the one of the extension the agent called last (or the
// one loading) is the one surely alive.
let builtinHost; // an Extension
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
        if (!builtinHost) throw new Error("no connection to the agent for the built-in tools");
        const call = builtinHost.client.RunBuiltinTool({ name, arguments_json: Buffer.from(argsJSON), cwd, env: JSON.parse(envJSON) });
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
let staleMessage = "";
const requireNode = (n) => {
  throw new Error(`Cannot find module '${n}'`);
};

// --- the extension API -----------------------------------------------------------
const sharedBus = new Map(); // channel -> Set(fn), shared by this process's extensions

function handlerContextOf(hc) {
  hc = hc || {};
  let model;
  if (hc.model_json && hc.model_json.length) {
    try {
      model = JSON.parse(Buffer.from(hc.model_json).toString());
    } catch {}
  }
  return {
    cwd: hc.cwd || process.cwd(),
    mode: hc.mode || "rpc",
    hasUI: !!hc.has_ui,
    sessionId: hc.session_id,
    sessionFile: hc.session_file,
    model,
    thinkingLevel: hc.thinking_level,
    isIdle: !!hc.is_idle,
    callId: hc.call_id || "",
    projectTrusted: !!hc.project_trusted,
  };
}

const jsonBytes = (v) => (v === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(v)));
const fromBytes = (b) => (b && b.length ? JSON.parse(Buffer.from(b).toString()) : undefined);
const errText = (e) => (e instanceof Error ? e.message || String(e) : String(e));

class Extension {
  constructor(id, manifest, hostAddress, hostClient) {
    this.id = id;
    this.manifest = manifest;
    this.address = hostAddress;
    this.client = hostClient;
    this.handlers = Object.create(null);
    this.commands = new Map();
    this.tools = new Map();
    this.flags = new Map();
    this.flagValues = manifest.flagValues || {};
    this.loading = true;
    this.name = "";
    this.sessions = sessionControl({
      call: (ctx, op, args) => this.sessionCall(ctx, op, args),
      fresh: (ctx, result) => {
        const hc = Object.assign({}, (result && result.context) || {}, { call_id: ctx._raw.call_id || "" });
        return this.makeCtx(hc, ctx._sig, true);
      },
      appendEntry: (_ctx, customType, data) => this.sync("AppendEntry", { custom_type: customType, data_json: jsonBytes(data) }).entry_id,
      staleMessage,
    });
    this.pi = this.makePi();
  }

  // sessionCall runs a session control method of a command's ctx on the
  // host (which runs the RPC command of that name).
  sessionCall(ctx, op, a) {
    const callId = ctx._raw.call_id || "";
    switch (op) {
      case "newSession":
        return this.call("NewSession", { parent_session: a.parentSession || "" }, callId);
      case "fork":
        return this.call("Fork", { entry_id: a.entryId, position: a.position || "" }, callId);
      case "switchSession":
        return this.call("SwitchSession", { session_path: a.sessionPath }, callId);
      case "navigateTree":
        return this.call(
          "NavigateTree",
          { target_id: a.targetId, summarize: !!a.summarize, custom_instructions: a.customInstructions || "", replace_instructions: !!a.replaceInstructions, label: a.label || "" },
          callId,
        );
      case "reload":
        return this.call("Reload", {}, callId).then(() => undefined);
    }
    return Promise.reject(new Error(`unknown session control ${op}`));
  }

  // registered tells the host what the extension registers now, when it
  // changes after loading (a tool registered from a handler or a command
  // is offered to the model from its next request). Synchronous, so that a
  // pi.setActiveTools right after it finds the tool.
  registered() {
    if (this.loading) return;
    try {
      this.sync("UpdateRegistrations", { description: this.describe() });
    } catch (e) {
      log(`${this.manifest.entry}: updating the registrations failed: ${errText(e)}`);
    }
  }

  call(method, req, callId) {
    return new Promise((resolve, reject) => {
      const md = new grpc.Metadata();
      if (callId) md.set(CALL_ID, callId);
      this.client[method](req, md, (err, res) => (err ? reject(new Error(err.details || err.message)) : resolve(res)));
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
    return syncCall(this.address, method, req || {}, callId);
  }
  fire(method, req, callId) {
    this.call(method, req, callId).catch((e) => log(`${this.manifest.entry}: ${method} failed: ${errText(e)}`));
  }

  makePi() {
    const ext = this;
    const action = (name, fn) =>
      function (...args) {
        if (ext.loading) {
          throw new Error(
            `pi.${name}() is not available while the extension is loading: call it from an event handler, a command or a tool`,
          );
        }
        return fn.apply(this, args);
      };
    const needString = (what, v) => {
      if (typeof v !== "string" || v === "") throw new TypeError(`${what} must be a non-empty string`);
    };
    const toContent = (c) => {
      if (typeof c === "string" || Array.isArray(c)) return c;
      throw new TypeError("content must be a string or an array of content blocks");
    };
    const events = {
      on(channel, fn) {
        needString("events.on: the channel", channel);
        if (typeof fn !== "function") throw new TypeError("events.on: the handler must be a function");
        let set = sharedBus.get(channel);
        if (!set) sharedBus.set(channel, (set = new Set()));
        set.add(fn);
        return () => set.delete(fn);
      },
      off(channel, fn) {
        const set = sharedBus.get(channel);
        if (set) set.delete(fn);
      },
      emit(channel, data) {
        needString("events.emit: the channel", channel);
        for (const fn of Array.from(sharedBus.get(channel) || [])) {
          try {
            const r = fn(data);
            if (r && typeof r.then === "function") r.then(undefined, (e) => log(`events "${channel}" handler failed: ${e}`));
          } catch (e) {
            log(`events "${channel}" handler failed: ${e}`);
          }
        }
      },
    };
    return {
      on(event, handler) {
        needString("pi.on: the event name", event);
        if (typeof handler !== "function") throw new TypeError(`pi.on("${event}"): the handler must be a function`);
        (ext.handlers[event] || (ext.handlers[event] = [])).push(handler);
        ext.registered();
      },
      registerCommand(name, options) {
        needString("registerCommand: the name", name);
        name = name.replace(/^\//, "");
        if (!options || typeof options.handler !== "function") {
          throw new TypeError(`registerCommand("${name}"): options.handler must be a function`);
        }
        ext.commands.set(name, options);
        ext.registered();
      },
      registerTool(def) {
        if (!def || typeof def !== "object") throw new TypeError("registerTool: expected a tool definition object");
        needString("registerTool: name", def.name);
        if (typeof def.execute !== "function") throw new TypeError(`registerTool("${def.name}"): execute must be a function`);
        ext.tools.set(def.name, def);
        ext.registered();
      },
      registerFlag(name, options) {
        needString("registerFlag: the name", name);
        name = name.replace(/^--?/, "");
        const o = options || {};
        ext.flags.set(name, { type: o.type === "string" ? "string" : "boolean", default: o.default, description: String(o.description || "") });
        ext.registered();
      },
      getFlag(name) {
        name = String(name).replace(/^--?/, "");
        const f = ext.flags.get(name);
        if (!f) return undefined;
        const v = ext.flagValues[name];
        if (v === undefined || v === null) return f.default;
        if (f.type === "boolean") return v === "" || v === "true" || v === "1" || v === "yes";
        return v;
      },
      registerMcpServer(name, config) {
        needString("registerMcpServer: the name", name);
        if (!config || typeof config !== "object") throw new TypeError(`registerMcpServer("${name}"): expected an mcpServers entry object`);
        // Synchronous, as in the goja runtime: the server is known before
        // the factory returns, and a refused entry throws here.
        try {
          ext.sync("RegisterMcpServer", { name, config_json: jsonBytes(config) });
        } catch (e) {
          throw new Error(`registerMcpServer: ${errText(e)}`);
        }
      },
      registerShortcut() {},
      registerMessageRenderer() {},
      registerEntryRenderer() {},
      registerMarkdownTransformer() {},
      registerProvider(name) {
        log(`registerProvider("${name}") is not supported by atomic's extension runtimes; ignored`);
      },
      unregisterProvider() {},
      sendMessage: action("sendMessage", (message, options) => {
        if (!message || typeof message !== "object") throw new TypeError("sendMessage: expected a message object");
        // As pi: customType is optional (a message without one is shown as is).
        const o = options || {};
        return ext
          .ordered("SendMessage", {
            custom_type: message.customType == null ? "" : String(message.customType),
            content_json: jsonBytes(toContent(message.content === undefined ? "" : message.content)),
            display: message.display === undefined ? true : !!message.display,
            details_json: jsonBytes(message.details),
            trigger_turn: !!o.triggerTurn,
            deliver_as: o.deliverAs || "",
          })
          .then(() => undefined);
      }),
      sendUserMessage: action("sendUserMessage", (content, options) =>
        ext
          .ordered("SendUserMessage", { content_json: jsonBytes(toContent(content)), deliver_as: (options && options.deliverAs) || "" })
          .then(() => undefined),
      ),
      appendEntry: action("appendEntry", (customType, data) => {
        needString("appendEntry: customType", customType);
        return ext.sync("AppendEntry", { custom_type: customType, data_json: jsonBytes(data) }).entry_id;
      }),
      setSessionName: action("setSessionName", (name) => {
        ext.sync("SetSessionName", { name: name == null ? "" : String(name) });
      }),
      getSessionName: action("getSessionName", () => ext.sync("GetSession", {}).name || undefined),
      setLabel: action("setLabel", (entryId, label) => {
        ext.sync("SetLabel", { entry_id: String(entryId), label: label == null ? "" : String(label) });
      }),
      exec: action("exec", (command, args, options) => {
        needString("exec: the command", command);
        const o = options || {};
        if (o.signal && o.signal.aborted) return Promise.resolve({ stdout: "", stderr: "", code: -1, killed: true });
        return ext
          .call("Exec", { command, args: Array.from(args || [], String), cwd: o.cwd || "", timeout_ms: o.timeout || 0 })
          .then((r) => ({ stdout: r.stdout, stderr: r.stderr, code: r.code, killed: r.killed }));
      }),
      getActiveTools: action("getActiveTools", () => ext.sync("GetTools").active),
      getAllTools: action("getAllTools", () => fromBytes(ext.sync("GetTools").all_json) || []),
      setActiveTools: action("setActiveTools", (names) => {
        ext.sync("SetActiveTools", { names: Array.from(names || [], String) });
      }),
      getCommands: action("getCommands", () => fromBytes(ext.sync("GetCommands").commands_json) || []),
      setModel: action("setModel", (model) => {
        if (!model || typeof model !== "object") throw new TypeError("setModel: expected a model object {provider, id}");
        return ext.call("SetModel", { provider: String(model.provider || ""), model_id: String(model.id || "") }).then((r) => r.ok);
      }),
      getThinkingLevel: action("getThinkingLevel", () => ext.sync("GetModel").thinking_level),
      setThinkingLevel: action("setThinkingLevel", (level) => {
        ext.sync("SetThinkingLevel", { level: String(level) });
      }),
      events,
    };
  }

  // sessionManagerAndUI makes the ctx.sessionManager and ctx.ui of one
  // call (on first use).
  sessionManagerAndUI(callId) {
    const ext = this;
    const session = (q) => {
      const v = ext.sync("GetSession", q || {}, callId);
      return {
        sessionId: v.session_id,
        sessionFile: v.session_file,
        name: v.name,
        leafId: v.leaf_id,
        cwd: v.cwd,
        header: fromBytes(v.header_json),
        entries: fromBytes(v.entries_json),
        branch: fromBytes(v.branch_json),
        tree: fromBytes(v.tree_json),
      };
    };
    const entries = () => session({ entries: true }).entries || [];
    const sessionManager = {
      getCwd: () => session().cwd,
      getSessionDir: () => {
        const f = session().sessionFile;
        return f ? path.dirname(f) : undefined;
      },
      getSessionId: () => session().sessionId,
      getSessionFile: () => session().sessionFile || undefined,
      getSessionName: () => session().name || undefined,
      getHeader: () => session().header,
      getLeafId: () => session().leafId || null,
      getLeafEntry: () => {
        const b = session({ branch: true }).branch || [];
        return b.length ? b[b.length - 1] : undefined;
      },
      getEntry: (id) => entries().find((e) => e.id === id),
      getLabel: (id) => {
        let label;
        for (const e of entries()) if (e.type === "label" && e.targetId === id) label = e.label || undefined;
        return label;
      },
      getEntries: entries,
      getBranch: (fromId) => {
        if (fromId === undefined) return session({ branch: true }).branch || [];
        const m = new Map(entries().map((e) => [e.id, e]));
        const out = [];
        for (let e = m.get(fromId); e; e = e.parentId ? m.get(e.parentId) : undefined) out.unshift(e);
        return out;
      },
      getTree: () => session({ tree: true }).tree || [],
    };
    const ui = makeUI({
      dialog: (method, params) => ext.call("UI", { method, params_json: jsonBytes(params) }, callId),
      notify: (method, params) => ext.fire("UI", { method, params_json: jsonBytes(params) }, callId),
      warn: (message) => log(message),
    });
    return { sessionManager, ui };
  }

  // contextClasses makes this extension's handler and command context
  // classes once: members on the prototypes (guarded against stale use
  // by js/sessionctl.js), the parts of a call's ctx made on first use.
  contextClasses() {
    const ext = this;
    const modelRegistry = {
      find: (provider, id) => ({ provider, id }),
      getAll: () => [],
      getAvailable: () => [],
      getApiKey: async () => undefined,
    };
    class Ctx {
      constructor(hcRaw, signal) {
        this._raw = hcRaw || {};
        this._sig = signal;
        this._h = undefined;
        this._parts = undefined;
      }
      get _hc() {
        return this._h || (this._h = handlerContextOf(this._raw));
      }
      get _p() {
        return this._parts || (this._parts = ext.sessionManagerAndUI(this._hc.callId));
      }
      _state() {
        return ext.sync("GetState", {}, this._hc.callId);
      }
      get ui() {
        return this._p.ui;
      }
      get sessionManager() {
        return this._p.sessionManager;
      }
      get hasUI() {
        return this._hc.hasUI;
      }
      get cwd() {
        return this._hc.cwd;
      }
      get mode() {
        return this._hc.mode;
      }
      get model() {
        return this._hc.model;
      }
      get thinkingLevel() {
        return this._hc.thinkingLevel;
      }
      get modelRegistry() {
        return modelRegistry;
      }
      get signal() {
        if (typeof this._sig === "function") this._sig = this._sig();
        return this._sig;
      }
      isProjectTrusted() {
        return this._hc.projectTrusted;
      }
      isIdle() {
        return this._state().is_idle;
      }
      hasPendingMessages() {
        return this._state().has_pending_messages;
      }
      getSystemPrompt() {
        return this._state().system_prompt;
      }
      getContextUsage() {
        return fromBytes(ext.sync("GetContextUsage", {}, this._hc.callId).usage_json);
      }
      abort() {
        ext.fire("Abort", {}, this._hc.callId);
      }
      shutdown() {
        log("ctx.shutdown() is not available to Node extensions yet");
      }
      compact(options) {
        const o = options || {};
        ext.call("Compact", {}, this._hc.callId).then(
          (r) => {
            if (r.error) throw new Error(r.error);
            if (typeof o.onComplete === "function") o.onComplete(fromBytes(r.result_json));
          },
          (e) => {
            if (typeof o.onError === "function") o.onError(e);
          },
        ).catch((e) => (typeof o.onError === "function" ? o.onError(e) : undefined));
      }
    }
    class CommandCtx extends Ctx {
      async waitForIdle() {
        while (!this._state().is_idle) await new Promise((r) => setTimeout(r, 50));
      }
    }
    Object.assign(CommandCtx.prototype, ext.sessions.methods);
    ext.sessions.guard(Ctx.prototype);
    ext.sessions.guard(CommandCtx.prototype);
    return { Ctx, CommandCtx };
  }

  // makeCtx is the ctx of one call (signal: an AbortSignal, or a function
  // making it on first use).
  makeCtx(hcRaw, signal, command) {
    const C = this.classes || (this.classes = this.contextClasses());
    const ctx = command ? new C.CommandCtx(hcRaw, signal) : new C.Ctx(hcRaw, signal);
    return this.sessions.track(ctx);
  }

  describe() {
    const tools = [];
    for (const t of this.tools.values()) {
      tools.push({
        name: t.name,
        label: t.label === undefined ? t.name : String(t.label),
        description: String(t.description || ""),
        parameters_json: jsonBytes(t.parameters || { type: "object", properties: {} }),
        prompt_snippet: t.promptSnippet ? String(t.promptSnippet) : "",
        prompt_guidelines: Array.isArray(t.promptGuidelines) ? t.promptGuidelines.map(String) : [],
      });
    }
    const commands = [];
    for (const [name, c] of this.commands) {
      commands.push({ name, description: String(c.description || ""), has_argument_completions: typeof c.getArgumentCompletions === "function" });
    }
    const flags = [];
    for (const [name, f] of this.flags) {
      flags.push({ name, description: f.description, type: f.type, default_value: f.default === undefined ? "" : String(f.default) });
    }
    return {
      name: this.name,
      version: "",
      protocol_version: PROTOCOL_VERSION,
      capabilities: lane ? ["events.batch", "events.per_handler", LANE_CAPABILITY] : ["events.batch", "events.per_handler"],
      events: Object.keys(this.handlers),
      handler_counts: Object.fromEntries(Object.entries(this.handlers).map(([e, hs]) => [e, hs.length])),
      commands,
      tools,
      flags,
      timeouts_ms: {},
    };
  }

  // dispatch runs handler `index` of an event (the agent calls each
  // handler on its own and composes their results: events.per_handler),
  // or, without an index (notifications), every handler in order. Nothing
  // here combines results.
  async dispatch(name, event, hc, signal, index) {
    const hs = this.handlers[name] || [];
    if (!hs.length) return undefined;
    const one = async (h) => {
      const ctx = this.makeCtx(hc, signal, false);
      if (name !== "tool_call") return h(event, ctx);
      const before = JSON.stringify(event.input);
      return withInput(await h(event, ctx), event, before);
    };
    if (index !== undefined && index !== null) {
      if (index >= hs.length) throw new Error(`${name} has no handler ${index}`);
      return one(hs[index]);
    }
    if (hs.length === 1) return one(hs[0]);
    const errors = [];
    for (const h of hs.slice()) {
      try {
        await h(event, this.makeCtx(hc, signal, false));
      } catch (e) {
        errors.push(errorOf(e, this));
      }
    }
    if (errors.length) throw new Error(errors.join("; "));
    return undefined;
  }
}

function withInput(result, event, before) {
  if (result && typeof result === "object" && result.input !== undefined) return result;
  if (JSON.stringify(event.input) === before) return result;
  return Object.assign({}, result || {}, { input: event.input });
}

let hostDir = ""; // where this program runs from (its frames are not the extension's)
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
  const dir = path.dirname(fileURLToPath(import.meta.url));
  hostDir = dir;
  const virtual = makeVirtualModules(dir, process.env.ATOMIC_AGENT_DIR || "", process.env.ATOMIC_HOST_VERSION || "");
  sessionControl = commonJS(virtual.shared["sessionctl.js"], "sessionctl.js");
  makeUI = commonJS(virtual.shared["ui.js"], "ui.js");
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
  const { port1: loaderPort, port2: loaderPort2 } = new MessageChannel();
  register(pathToFileURL(path.join(dir, "loader.mjs")).href, {
    data: { port: loaderPort2, virtual: exportsOf },
    transferList: [loaderPort2],
  });
  loaderPort.unref();
  let seq = 0;
  const acks = new Map();
  loaderPort.on("message", (m) => {
    const done = acks.get(m.ack);
    acks.delete(m.ack);
    if (done) done();
  });
  const tellLoader = (manifest) =>
    new Promise((resolve) => {
      const id = ++seq;
      acks.set(id, resolve);
      loaderPort.ref();
      loaderPort.postMessage({ seq: id, files: manifest.files || {}, resolve: manifest.resolve || {}, esm: manifest.esm || [] });
    }).finally(() => loaderPort.unref());

  const protos = loadProtos();
  const v1 = protos.atomic.plugin.v1;
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
  server.addService(protos.plugin.GRPCBroker.service, {
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
  server.addService(protos.plugin.GRPCController.service, {
    Shutdown(_call, cb) {
      cb(null, {});
      setTimeout(() => process.exit(0), 10);
    },
  });
  server.addService(protos.grpc.health.v1.Health.service, {
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
      const res = await ext.dispatch(r.event, fromBytes(r.payload_json), r.context, signal, r.handler_index);
      return { result_json: res === undefined || res === null ? Buffer.alloc(0) : jsonBytes(res), error: "" };
    } catch (e) {
      return { result_json: Buffer.alloc(0), error: errorOf(e, ext) };
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


  async function load(id, manifestFile, req) {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
    manifest.flagValues = req.flag_values || {};
    const info = await brokerConn(req.host_broker_id);
    const address = info.address;
    const client = new v1.HostService("unix:" + address, grpc.credentials.createInsecure(), grpcOptions);
    const ext = new Extension(id, manifest, address, client);
    builtinHost = ext;
    await tellLoader(manifest);
    const mod = await import(pathToFileURL(manifest.entry).href + "?atomic-extension=" + encodeURIComponent(id));
    let factory = mod.default;
    if (factory && typeof factory === "object" && typeof factory.default === "function") factory = factory.default;
    if (typeof factory !== "function") throw new Error(`${manifest.entry} does not export a default function (the extension factory)`);
    await factory(ext.pi);
    ext.loading = false;
    ext.name = manifest.name || path.basename(manifest.entry).replace(/\.[^.]+$/, "");
    exts.set(id, ext);
    return ext;
  }

  server.addService(v1.PluginService.service, {
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
            await ext.dispatch(r.event, fromBytes(r.payload_json), r.context, signal);
            errors.push("");
          } catch (e) {
            errors.push(errorOf(e, ext));
          }
        }
        return { errors };
      });
    },
    RunCommand(call, cb) {
      answer(cb, async () => {
        const ext = extOf(call);
        const r = call.request;
        const c = ext.commands.get(r.name);
        if (!c) return { error: `unknown command /${r.name}` };
        try {
          await c.handler(r.args, ext.makeCtx(r.context, signalOf(call), true));
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
        const c = ext.commands.get(r.name);
        if (!c || typeof c.getArgumentCompletions !== "function") return { none: true };
        try {
          const items = await c.getArgumentCompletions(r.argument_prefix, ext.makeCtx(r.context, signalOf(call), false));
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
        const t = ext.tools.get(r.name);
        if (!t) return finish({ error: `unknown tool ${r.name}` });
        const signal = signalOf(call)();
        const ctx = ext.makeCtx(r.context, signal, false);
        const onUpdate = (partial) => {
          if (partial === undefined || partial === null) return;
          call.write({ final: false, content_json: jsonBytes(partial.content || []), details_json: jsonBytes(partial.details), is_error: false, error: "" });
        };
        try {
          const res = (await t.execute(r.tool_call_id, fromBytes(r.arguments_json) || {}, signal, onUpdate, ctx)) || {};
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

if (!isMainThread && workerData && workerData.role === "sync") {
  syncWorker(workerData);
} else if (isMainThread) {
  main().catch((e) => {
    log("fatal:", e && e.stack ? e.stack : e);
    process.exit(1);
  });
}
