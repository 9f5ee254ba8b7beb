// The extension API of one script: the `pi` object handed to the
// factory, the handler contexts, and the dispatch of events, commands and
// tools. `native` is the Go side (see api.go); payloads cross as JSON.
(function (native) {
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
  function dialog(callId, method, params, opts) {
    if (opts && typeof opts.timeout === "number" && opts.timeout > 0) params.timeout = opts.timeout;
    const signal = opts && opts.signal;
    if (signal && signal.aborted) return Promise.resolve(JSON.parse('{"cancelled":true}'));
    const token = native.newToken();
    if (signal) signal.addEventListener("abort", () => native.cancel(token));
    return native.ui(callId, token, method, JSON.stringify(params)).then((s) => JSON.parse(s));
  }

  function makeUI(callId) {
    const notify = (method, params) => native.uiNotify(callId, method, JSON.stringify(params));
    return {
      select: (title, options, opts) =>
        dialog(callId, "select", { title, options: Array.from(options || [], String) }, opts).then((a) =>
          a.cancelled ? undefined : a.value,
        ),
      confirm: (title, message, opts) =>
        dialog(callId, "confirm", { title, message: message === undefined ? "" : String(message) }, opts).then(
          (a) => !a.cancelled && !!a.confirmed,
        ),
      input: (title, placeholder, opts) => {
        const p = { title };
        if (placeholder !== undefined) p.placeholder = String(placeholder);
        return dialog(callId, "input", p, opts).then((a) => (a.cancelled ? undefined : a.value));
      },
      editor: (title, prefill, opts) => {
        const p = { title };
        if (prefill !== undefined) p.prefill = String(prefill);
        return dialog(callId, "editor", p, opts).then((a) => (a.cancelled ? undefined : a.value));
      },
      notify: (message, type) => notify("notify", { message: String(message), notifyType: type || "info" }),
      setStatus: (key, text) => {
        const p = { statusKey: key };
        if (text !== undefined && text !== null) p.statusText = String(text);
        notify("setStatus", p);
      },
      setWidget: (key, content, options) => {
        const p = { widgetKey: key };
        if (Array.isArray(content)) p.widgetLines = content.map(String);
        else if (content !== undefined && content !== null) {
          native.log("warn", `setWidget("${key}"): only string arrays can be shown over RPC`);
          return;
        }
        p.widgetPlacement = (options && options.placement) || "aboveEditor";
        notify("setWidget", p);
      },
      setTitle: (title) => notify("setTitle", { title: String(title) }),
      setEditorText: (text) => notify("set_editor_text", { text: String(text) }),
      pasteToEditor: (text) => notify("set_editor_text", { text: String(text) }),
      getEditorText: () => "",
      setWorkingMessage: () => {},
      setFooter: () => {},
      setHeader: () => {},
      setEditorComponent: () => {},
      setToolsExpanded: () => {},
      getToolsExpanded: () => false,
      onTerminalInput: () => () => {},
      custom: async () => undefined,
      setTheme: () => ({ success: false, error: "UI not available" }),
      getAllThemes: () => [],
      getTheme: () => undefined,
      get theme() {
        return plainTheme;
      },
    };
  }

  const plainTheme = {
    fg: (_c, s) => s,
    bg: (_c, s) => s,
    bold: (s) => s,
    italic: (s) => s,
    underline: (s) => s,
    strikethrough: (s) => s,
    inverse: (s) => s,
  };

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
      return JSON.parse(native.model(this._id)).model;
    }
    get thinkingLevel() {
      return JSON.parse(native.model(this._id)).thinkingLevel;
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
      return JSON.parse(native.state(this._id)).isIdle;
    }
    hasPendingMessages() {
      return JSON.parse(native.state(this._id)).hasPendingMessages;
    }
    getSystemPrompt() {
      return JSON.parse(native.state(this._id)).systemPrompt;
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
  for (const op of ["newSession", "fork", "navigateTree", "switchSession", "reload"]) {
    CommandCtx.prototype[op] = async function () {
      throw new Error(`ctx.${op}() is not supported by atomic's script runtime yet; use the RPC command instead`);
    };
  }

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
      needString("sendMessage: customType", message.customType);
      const m = {
        customType: message.customType,
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
    getActiveTools: action("getActiveTools", () => JSON.parse(native.tools(0)).active),
    getAllTools: action("getAllTools", () => JSON.parse(native.tools(0)).all),
    setActiveTools: action("setActiveTools", (names) => native.setActiveTools(0, JSON.stringify(Array.from(names || [], String)))),
    getCommands: action("getCommands", () => JSON.parse(native.commands(0))),
    setModel: action("setModel", (model) => {
      if (!model || typeof model !== "object") throw new TypeError("setModel: expected a model object {provider, id}");
      return native.setModel(0, String(model.provider || ""), String(model.id || ""));
    }),
    getThinkingLevel: action("getThinkingLevel", () => JSON.parse(native.model(0)).thinkingLevel),
    setThinkingLevel: action("setThinkingLevel", (level) => {
      native.setThinkingLevel(0, String(level));
    }),
    events,
  };

  // --- dispatch -------------------------------------------------------------
  const isThenable = (v) => v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function";
  const truthy = (v) => !!v;

  function withInput(result, event, before) {
    // Handlers may change event.input in place (the arguments the tool
    // runs with); send the change along unless they returned their own.
    if (result && typeof result === "object" && result.input !== undefined) return result;
    const now = JSON.stringify(event.input);
    if (now === before) return result;
    return Object.assign({}, result || {}, { input: event.input });
  }

  async function compose(callId, name, hs, event) {
    const ctx = new Ctx(callId);
    const fail = (e) => native.reportError(name, e);
    switch (name) {
      case "tool_call": {
        let out = {};
        let changed = false;
        for (const h of hs) {
          const before = JSON.stringify(event.input);
          const r = withInput(await h(event, ctx), event, before); // errors block: let them through
          if (!r) continue;
          if (r.input !== undefined) {
            event.input = r.input;
            out.input = r.input;
            changed = true;
          }
          if (r.block) return Object.assign(out, { block: true, reason: r.reason });
        }
        return changed ? out : undefined;
      }
      case "session_before_switch":
      case "session_before_fork":
      case "session_before_compact":
      case "session_before_tree": {
        let last;
        for (const h of hs) {
          let r;
          try {
            r = await h(event, ctx);
          } catch (e) {
            fail(e);
            continue;
          }
          if (!truthy(r)) continue;
          last = r;
          if (r.cancel) return r;
        }
        return last;
      }
      case "user_bash": {
        for (const h of hs) {
          try {
            const r = await h(event, ctx);
            if (truthy(r)) return r;
          } catch (e) {
            fail(e);
          }
        }
        return undefined;
      }
      case "tool_result": {
        const out = {};
        let changed = false;
        for (const h of hs) {
          let r;
          try {
            r = await h(event, ctx);
          } catch (e) {
            fail(e);
            continue;
          }
          if (!r) continue;
          for (const k of ["content", "details", "isError"]) {
            if (r[k] !== undefined) {
              event[k] = out[k] = r[k];
              changed = true;
            }
          }
        }
        return changed ? out : undefined;
      }
      case "input": {
        let transformed = false;
        for (const h of hs) {
          let r;
          try {
            r = await h(event, ctx);
          } catch (e) {
            fail(e);
            continue;
          }
          if (!r) continue;
          if (r.action === "handled") return { action: "handled" };
          if (r.action === "transform") {
            if (r.text !== undefined) event.text = r.text;
            if (r.images !== undefined) event.images = r.images;
            transformed = true;
          }
        }
        return transformed ? { action: "transform", text: event.text, images: event.images } : undefined;
      }
      case "before_agent_start": {
        const out = {};
        const messages = [];
        for (const h of hs) {
          let r;
          try {
            r = await h(event, ctx);
          } catch (e) {
            fail(e);
            continue;
          }
          if (!r) continue;
          if (r.message) messages.push(r.message);
          if (r.systemPrompt !== undefined) event.systemPrompt = out.systemPrompt = r.systemPrompt;
        }
        if (messages.length) out.messages = messages;
        return Object.keys(out).length ? out : undefined;
      }
      case "context": {
        let changed = false;
        for (const h of hs) {
          let r;
          try {
            r = await h(event, ctx);
          } catch (e) {
            fail(e);
            continue;
          }
          if (r && r.messages) {
            event.messages = r.messages;
            changed = true;
          }
        }
        return changed ? { messages: event.messages } : undefined;
      }
      case "resources_discover": {
        const out = { skillPaths: [], promptPaths: [] };
        for (const h of hs) {
          try {
            const r = await h(event, ctx);
            if (r && Array.isArray(r.skillPaths)) out.skillPaths.push(...r.skillPaths);
            if (r && Array.isArray(r.promptPaths)) out.promptPaths.push(...r.promptPaths);
          } catch (e) {
            fail(e);
          }
        }
        return out;
      }
      default: {
        let last;
        for (const h of hs) {
          try {
            const r = await h(event, ctx);
            if (truthy(r)) last = r;
          } catch (e) {
            fail(e);
          }
        }
        return last;
      }
    }
  }

  function dispatch(callId, name, payload) {
    const hs = handlers[name];
    if (!hs || hs.length === 0) return undefined;
    const event = JSON.parse(payload);
    if (hs.length > 1) return compose(callId, name, hs.slice(), event);
    const ctx = new Ctx(callId);
    if (name !== "tool_call") return hs[0](event, ctx);
    const before = JSON.stringify(event.input);
    const r = hs[0](event, ctx);
    if (isThenable(r)) return r.then((v) => withInput(v, event, before));
    return withInput(r, event, before);
  }

  function runCommand(callId, name, args) {
    const c = commands[name];
    if (!c) throw new Error(`unknown command /${name}`);
    return c.handler(args, new CommandCtx(callId));
  }

  function complete(callId, name, prefix) {
    const c = commands[name];
    if (!c || typeof c.getArgumentCompletions !== "function") return null;
    return c.getArgumentCompletions(prefix, new Ctx(callId));
  }

  function executeTool(callId, name, toolCallId, params) {
    const t = tools[name];
    if (!t) throw new Error(`unknown tool ${name}`);
    const ctx = new Ctx(callId);
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
