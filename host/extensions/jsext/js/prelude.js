// The extension API of one script: the `pi` object handed to the
// factory, the handler contexts, and the dispatch of events, commands and
// tools. `native` is the Go side (see api.go); payloads cross as JSON.
(function (native, sessionControl, uiModule) {
  "use strict";

  const handlers = Object.create(null); // event -> [fn]
  const commands = Object.create(null); // name -> options
  const tools = Object.create(null); // name -> definition
  const flags = Object.create(null); // name -> {type, default}
  let loading = true;

  const parse = (s) => (s === "" || s === undefined ? undefined : JSON.parse(s));
  const json = (v) => (v === undefined ? "" : JSON.stringify(v));

  function notReady(name) {
    throw new Error(
      `pi.${name}() is not available while the extension is loading: ` +
        "call it from an event handler, a command or a tool",
    );
  }
  function action(name, fn) {
    return function (...args) {
      if (loading) notReady(name);
      return fn.apply(this, args);
    };
  }
  function needString(what, v) {
    if (typeof v !== "string" || v === "") throw new TypeError(`${what} must be a non-empty string`);
  }

  // --- AbortSignal (a minimal one: goja has none) -------------------------
  class AbortSignal {
    constructor() {
      this.aborted = false;
      this.reason = undefined;
      this.onabort = null;
      this._listeners = [];
    }
    addEventListener(type, fn) {
      if (type === "abort" && typeof fn === "function") this._listeners.push(fn);
    }
    removeEventListener(type, fn) {
      this._listeners = this._listeners.filter((l) => l !== fn);
    }
    throwIfAborted() {
      if (this.aborted) throw this.reason;
    }
    _abort(reason) {
      if (this.aborted) return;
      this.aborted = true;
      this.reason = reason === undefined ? new Error("This operation was aborted") : reason;
      if (this.reason instanceof Error && this.reason.name === "Error") this.reason.name = "AbortError";
      const ev = { type: "abort", target: this };
      for (const l of [this.onabort, ...this._listeners]) {
        if (typeof l === "function") {
          try {
            l.call(this, ev);
          } catch (e) {
            native.log("warn", "abort listener failed: " + e);
          }
        }
      }
    }
    static abort(reason) {
      const s = new AbortSignal();
      s._abort(reason);
      return s;
    }
    static timeout(ms) {
      const s = new AbortSignal();
      setTimeout(() => s._abort(new Error("The operation timed out")), ms);
      return s;
    }
  }
  class AbortController {
    constructor() {
      this.signal = new AbortSignal();
    }
    abort(reason) {
      this.signal._abort(reason);
    }
  }
  if (typeof globalThis.AbortController === "undefined") {
    globalThis.AbortController = AbortController;
    globalThis.AbortSignal = AbortSignal;
  }

  function callSignal(callId) {
    const s = new globalThis.AbortSignal();
    native.bindSignal(callId, (reason) => s._abort(new Error(reason || "aborted")));
    return s;
  }

  // --- session manager (read-only view) ----------------------------------
  function sessionView(callId) {
    const read = (entries, branch, tree) => JSON.parse(native.session(callId, entries, branch, tree));
    const byId = () => {
      const m = new Map();
      for (const e of read(true, false, false).entries || []) m.set(e.id, e);
      return m;
    };
    return {
      getCwd: () => read(false, false, false).cwd,
      getSessionDir: () => {
        const f = read(false, false, false).sessionFile;
        return f ? f.slice(0, f.lastIndexOf("/")) : undefined;
      },
      getSessionId: () => read(false, false, false).sessionId,
      getSessionFile: () => read(false, false, false).sessionFile || undefined,
      getSessionName: () => read(false, false, false).name || undefined,
      getHeader: () => read(false, false, false).header,
      getLeafId: () => read(false, false, false).leafId || null,
      getLeafEntry: () => {
        const v = read(false, true, false);
        const b = v.branch || [];
        return b.length ? b[b.length - 1] : undefined;
      },
      getEntry: (id) => byId().get(id),
      getLabel: (id) => {
        let label;
        for (const e of read(true, false, false).entries || []) {
          if (e.type === "label" && e.targetId === id) label = e.label || undefined;
        }
        return label;
      },
      getEntries: () => read(true, false, false).entries || [],
      getBranch: (fromId) => {
        if (fromId === undefined) return read(false, true, false).branch || [];
        const m = byId();
        const out = [];
        for (let e = m.get(fromId); e; e = e.parentId ? m.get(e.parentId) : undefined) out.unshift(e);
        return out;
      },
      getTree: () => read(false, false, true).tree || [],
    };
  }

  // --- ctx ----------------------------------------------------------------
  // ctx.ui: js/ui.js, shared with the Node runtime.
  function makeUI(callId) {
    return uiModule({
      dialog: (method, params, signal) => {
        const token = native.newToken();
        if (signal) signal.addEventListener("abort", () => native.cancel(token));
        return native.ui(callId, token, method, JSON.stringify(params)).then((s) => JSON.parse(s));
      },
      notify: (method, params) => native.uiNotify(callId, method, JSON.stringify(params)),
      warn: (message) => native.log("warn", message),
    });
  }

  class Ctx {
    constructor(callId) {
      this._id = callId;
      this._hc = undefined;
      this._ui = undefined;
      this._sm = undefined;
      this._signal = undefined;
    }
    _ctx() {
      if (this._hc === undefined) this._hc = JSON.parse(native.handlerContext(this._id));
      return this._hc;
    }
    get ui() {
      return this._ui || (this._ui = makeUI(this._id));
    }
    get hasUI() {
      return this._ctx().hasUI;
    }
    get cwd() {
      return this._ctx().cwd;
    }
    get mode() {
      return this._ctx().mode;
    }
    get model() {
      return JSON.parse(native.model(this._id));
    }
    get thinkingLevel() {
      return native.thinkingLevel(this._id);
    }
    get sessionManager() {
      return this._sm || (this._sm = sessionView(this._id));
    }
    get modelRegistry() {
      return modelRegistry;
    }
    get signal() {
      return this._signal || (this._signal = callSignal(this._id));
    }
    isProjectTrusted() {
      return !!this._ctx().projectTrusted;
    }
    isIdle() {
      return native.isIdle(this._id);
    }
    hasPendingMessages() {
      return native.hasPendingMessages(this._id);
    }
    getSystemPrompt() {
      return native.systemPrompt(this._id);
    }
    getContextUsage() {
      return parse(native.contextUsage(this._id));
    }
    abort() {
      native.abort(this._id);
    }
    shutdown() {
      native.shutdown(this._id);
    }
    compact(options) {
      const o = options || {};
      native.compact(this._id).then(
        (s) => {
          if (typeof o.onComplete === "function") o.onComplete(parse(s));
        },
        (e) => {
          if (typeof o.onError === "function") o.onError(e instanceof Error ? e : new Error(String(e)));
          else native.log("warn", "compaction failed: " + e);
        },
      );
    }
  }

  class CommandCtx extends Ctx {
    waitForIdle() {
      return native.waitForIdle(this._id);
    }
  }
  // Session control and stale contexts (js/sessionctl.js, shared with
  // the Node runtime).
  const sessions = sessionControl({
    call: (ctx, op, args) => native.sessionControl(ctx._id, op, JSON.stringify(args)).then(parse),
    fresh: (ctx) => new CommandCtx(ctx._id),
    appendEntry: (ctx, customType, data) => native.appendEntry(ctx._id, customType, json(data)),
    staleMessage: native.staleMessage,
  });
  Object.assign(CommandCtx.prototype, sessions.methods);
  sessions.guard(Ctx.prototype);
  sessions.guard(CommandCtx.prototype);
  const newCtx = (callId) => sessions.track(new Ctx(callId));
  const newCommandCtx = (callId) => sessions.track(new CommandCtx(callId));

  const modelRegistry = {
    find: (provider, id) => ({ provider, id }),
    getAll: () => [],
    getAvailable: () => [],
    getApiKey: async () => undefined,
  };

  // --- events shared between the scripts of this process -----------------
  const busHandlers = new Map(); // channel -> Set(fn)
  const events = {
    on(channel, fn) {
      needString("events.on: the channel", channel);
      if (typeof fn !== "function") throw new TypeError("events.on: the handler must be a function");
      let set = busHandlers.get(channel);
      if (!set) {
        set = new Set();
        busHandlers.set(channel, set);
        native.listen(channel, true);
      }
      set.add(fn);
      return () => {
        set.delete(fn);
        if (set.size === 0) {
          busHandlers.delete(channel);
          native.listen(channel, false);
        }
      };
    },
    emit(channel, data) {
      needString("events.emit: the channel", channel);
      deliver(channel, data);
      native.emit(channel, json(data));
    },
  };
  events.off = (channel, fn) => {
    const set = busHandlers.get(channel);
    if (set) set.delete(fn);
  };
  function deliver(channel, data) {
    const set = busHandlers.get(channel);
    if (!set) return;
    for (const fn of Array.from(set)) {
      try {
        const r = fn(data);
        if (r && typeof r.then === "function") r.then(undefined, (e) => native.log("warn", `events "${channel}" handler failed: ${e}`));
      } catch (e) {
        native.log("warn", `events "${channel}" handler failed: ${e}`);
      }
    }
  }

  // --- the API object --------------------------------------------------------
  function toContent(content) {
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return content;
    throw new TypeError("content must be a string or an array of content blocks");
  }

  const pi = {
    on(event, handler) {
      needString("pi.on: the event name", event);
      if (typeof handler !== "function") throw new TypeError(`pi.on("${event}"): the handler must be a function`);
      (handlers[event] || (handlers[event] = [])).push(handler);
      native.subscribe(event);
    },
    registerCommand(name, options) {
      needString("registerCommand: the name", name);
      name = name.replace(/^\//, "");
      if (!options || typeof options.handler !== "function") {
        throw new TypeError(`registerCommand("${name}"): options.handler must be a function`);
      }
      commands[name] = options;
      native.registerCommand(name, String(options.description || ""), typeof options.getArgumentCompletions === "function");
    },
    registerMcpServer: (name, config) => native.registerMcpServer(String(name), JSON.stringify(config ?? null)),
    registerTool(def) {
      if (!def || typeof def !== "object") throw new TypeError("registerTool: expected a tool definition object");
      needString("registerTool: name", def.name);
      if (typeof def.execute !== "function") throw new TypeError(`registerTool("${def.name}"): execute must be a function`);
      tools[def.name] = def;
      native.registerTool(
        JSON.stringify({
          name: def.name,
          label: def.label === undefined ? def.name : String(def.label),
          description: String(def.description || ""),
          parameters: def.parameters || { type: "object", properties: {} },
          promptSnippet: def.promptSnippet,
          promptGuidelines: def.promptGuidelines,
        }),
      );
    },
    registerFlag(name, options) {
      needString("registerFlag: the name", name);
      name = name.replace(/^--?/, "");
      const o = options || {};
      const type = o.type === "string" ? "string" : "boolean";
      flags[name] = { type, default: o.default };
      native.registerFlag(name, String(o.description || ""), type, o.default === undefined ? "" : String(o.default));
    },
    getFlag(name) {
      name = String(name).replace(/^--?/, "");
      const f = flags[name];
      if (!f) return undefined;
      const v = native.flagValue(name);
      if (v === undefined || v === null) return f.default;
      if (f.type === "boolean") return v === "" || v === "true" || v === "1" || v === "yes";
      return v;
    },
    registerShortcut() {},
    registerMessageRenderer() {},
    registerEntryRenderer() {},
    registerMarkdownTransformer() {},
    registerProvider(name) {
      native.log("warn", `registerProvider("${name}") is not supported by atomic's script runtime; ignored`);
    },
    unregisterProvider() {},

    sendMessage: action("sendMessage", (message, options) => {
      if (!message || typeof message !== "object") throw new TypeError("sendMessage: expected a message object");
      // As pi: customType is optional (a message without one is shown as is).
      const m = {
        customType: message.customType == null ? "" : String(message.customType),
        content: toContent(message.content === undefined ? "" : message.content),
        display: message.display === undefined ? true : !!message.display,
      };
      if (message.details !== undefined) m.details = message.details;
      const o = options || {};
      return native.sendMessage(0, JSON.stringify(m), !!o.triggerTurn, o.deliverAs || "");
    }),
    sendUserMessage: action("sendUserMessage", (content, options) => {
      const o = options || {};
      return native.sendUserMessage(0, JSON.stringify(toContent(content)), o.deliverAs || "");
    }),
    appendEntry: action("appendEntry", (customType, data) => {
      needString("appendEntry: customType", customType);
      return native.appendEntry(0, customType, json(data));
    }),
    setSessionName: action("setSessionName", (name) => native.setSessionName(0, name == null ? "" : String(name))),
    getSessionName: action("getSessionName", () => JSON.parse(native.session(0, false, false, false)).name || undefined),
    setLabel: action("setLabel", (entryId, label) => native.setLabel(0, String(entryId), label == null ? "" : String(label))),
    exec: action("exec", (command, args, options) => {
      needString("exec: the command", command);
      const o = options || {};
      const token = native.newToken();
      if (o.signal) {
        if (o.signal.aborted) return Promise.resolve({ stdout: "", stderr: "", code: -1, killed: true });
        o.signal.addEventListener("abort", () => native.cancel(token));
      }
      return native
        .exec(token, command, JSON.stringify(Array.from(args || [], String)), o.cwd || "", o.timeout || 0)
        .then((s) => JSON.parse(s));
    }),
    getActiveTools: action("getActiveTools", () => JSON.parse(native.activeTools(0))),
    getAllTools: action("getAllTools", () => JSON.parse(native.allTools(0))),
    setActiveTools: action("setActiveTools", (names) => native.setActiveTools(0, JSON.stringify(Array.from(names || [], String)))),
    getCommands: action("getCommands", () => JSON.parse(native.commands(0))),
    setModel: action("setModel", (model) => {
      if (!model || typeof model !== "object") throw new TypeError("setModel: expected a model object {provider, id}");
      return native.setModel(0, String(model.provider || ""), String(model.id || ""));
    }),
    getThinkingLevel: action("getThinkingLevel", () => native.thinkingLevel(0)),
    setThinkingLevel: action("setThinkingLevel", (level) => {
      native.setThinkingLevel(0, String(level));
    }),
    events,
  };

  // --- dispatch -------------------------------------------------------------
  const isThenable = (v) => v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function";

  function withInput(result, event, before) {
    // Handlers may change event.input in place (the arguments the tool
    // runs with); send the change along unless they returned their own.
    if (result && typeof result === "object" && result.input !== undefined) return result;
    const now = JSON.stringify(event.input);
    if (now === before) return result;
    return Object.assign({}, result || {}, { input: event.input });
  }

  // Runs one handler. The host's hook bus composes the results of several
  // handlers (of this script and of other extensions): nothing here
  // combines results.
  function runOne(callId, name, h, event) {
    const ctx = newCtx(callId);
    if (name !== "tool_call") return h(event, ctx);
    const before = JSON.stringify(event.input);
    const r = h(event, ctx);
    if (isThenable(r)) return r.then((v) => withInput(v, event, before));
    return withInput(r, event, before);
  }

  // dispatch runs handler `index` of an event, or (index < 0) every
  // handler: a notification's results are not read, so each failure is
  // reported on its own and the others still run.
  function dispatch(callId, name, payload, index) {
    const hs = handlers[name];
    if (!hs || hs.length === 0) return undefined;
    if (index >= 0) {
      if (index >= hs.length) throw new Error(`${name} has no handler ${index}`);
      return runOne(callId, name, hs[index], JSON.parse(payload));
    }
    if (hs.length === 1) return runOne(callId, name, hs[0], JSON.parse(payload));
    if (!native.isNotification(name)) throw new Error(`${name} has several handlers: the host calls them one by one`);
    return (async () => {
      for (const h of hs.slice()) {
        try {
          await h(JSON.parse(payload), newCtx(callId));
        } catch (e) {
          native.reportError(name, e);
        }
      }
      return undefined;
    })();
  }

  function runCommand(callId, name, args) {
    const c = commands[name];
    if (!c) throw new Error(`unknown command /${name}`);
    return c.handler(args, newCommandCtx(callId));
  }

  function complete(callId, name, prefix) {
    const c = commands[name];
    if (!c || typeof c.getArgumentCompletions !== "function") return null;
    return c.getArgumentCompletions(prefix, newCtx(callId));
  }

  function executeTool(callId, name, toolCallId, params) {
    const t = tools[name];
    if (!t) throw new Error(`unknown tool ${name}`);
    const ctx = newCtx(callId);
    const onUpdate = (partial) => {
      if (partial !== undefined && partial !== null) native.toolUpdate(callId, JSON.stringify(partial));
    };
    return t.execute(toolCallId, JSON.parse(params), ctx.signal, onUpdate, ctx);
  }

  function deliverShared(channel, payload) {
    deliver(channel, parse(payload));
  }

  function finishLoading() {
    loading = false;
  }

  return { pi, dispatch, runCommand, complete, executeTool, deliverShared, finishLoading };
});
