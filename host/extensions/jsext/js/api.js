// pi's extension API, one implementation for every script engine (goja in
// the agent, goja in an isolated child, Node): the `pi` object handed to
// the factory, the handler and command contexts, and the dispatch of
// events, commands and tools. Loaded as a CommonJS module by goja's
// prelude.js and by the Node host (host.mjs), each giving its `engine`:
//
//   engine.port.sync(method, request, call)  -> response
//   engine.port.call(method, request, call, {signal, ordered}) -> Promise of the response
//       The HostService of proto/atomic/plugin/v1/host.proto, one to one:
//       same method names, requests and responses as plain objects with
//       the proto field names; a bytes field (they all end in _json)
//       holds the decoded JSON value (undefined when empty). `call` is the
//       engine's handle of the call in flight (null outside one); `signal`
//       cancels the call; `ordered` calls reach the host in the order made.
//   engine.context(call)    -> the call's HandlerContext (proto shape)
//   engine.signal(call)     -> the call's AbortSignal
//   engine.fresh(call, hc)  -> the call handle bound to the session now
//                              active (hc: the HandlerContext a session
//                              change answered)
//   engine.flagValue(name)  -> the flag's command-line value, or undefined
//   engine.listen(channel, on), engine.emit(channel, data): pi.events
//                              between the extensions of one process
//   engine.toolUpdate(call, partial): a tool's onUpdate
//   engine.log(level, message)
//   engine.outside({modelCalls, sessionHost}) (optional): what pi-ai's
//                              complete/stream and nested sessions use
//                              outside a call (else set on globalThis)
//   engine.staleMessage, engine.sessionControl (js/sessionctl.js),
//   engine.makeUI (js/ui.js)
//
// Adding a host method: the rpc in host.proto, its Go implementation in
// host/extensions/hostsvc, and the line here that calls it.
"use strict";

module.exports = function makeAPI(engine) {
  const port = engine.port;
  const handlers = Object.create(null); // event -> [fn]
  const commands = new Map(); // name -> options
  const tools = new Map(); // name -> definition
  const flags = new Map(); // name -> {type, default, description}
  const providers = new Map(); // name -> configuration (models.json's form)
  const virtualModels = new Map(); // "provider/id" -> pi's virtual model definition
  const streams = new Map(); // provider name -> {fn, config}: a streamSimple of the extension's own
  const refreshers = new Map(); // provider name -> its refreshModels
  let refreshedWhileLoading = false;
  const shortcuts = new Map(); // key as written -> {description, handler}
  const renderers = new Map(); // customType -> pi's message renderer
  let loading = true;
  const uiSlots = {}; // ctx.ui's state across calls (js/ui.js)

  const log = (level, msg) => engine.log(level, msg);
  const errText = (e) => (e instanceof Error ? e.message || String(e) : String(e));

  function needString(what, v) {
    if (typeof v !== "string" || v === "") throw new TypeError(`${what} must be a non-empty string`);
  }
  function action(name, fn) {
    return function (...args) {
      if (loading) {
        throw new Error(
          `pi.${name}() is not available while the extension is loading: ` + "call it from an event handler, a command or a tool",
        );
      }
      return fn.apply(this, args);
    };
  }
  function toContent(content) {
    if (typeof content === "string" || Array.isArray(content)) return content;
    throw new TypeError("content must be a string or an array of content blocks");
  }
  const sync = (method, req, call) => port.sync(method, req || {}, call === undefined ? null : call);
  const async = (method, req, call, opts) => port.call(method, req || {}, call === undefined ? null : call, opts || {});
  // fire makes a call whose answer nobody reads (a failure is logged).
  const fire = (method, req, call) => {
    async(method, req, call).then(undefined, (e) => log("warn", `${method} failed: ${errText(e)}`));
  };

  // --- the session manager (a read-only view) ----------------------------
  function sessionView(call) {
    const read = (q) => sync("GetSession", q, call);
    const entries = () => read({ entries: true }).entries_json || [];
    const byId = () => new Map(entries().map((e) => [e.id, e]));
    return {
      getCwd: () => read().cwd,
      getSessionDir: () => {
        const f = read().session_file;
        return f ? f.slice(0, f.lastIndexOf("/")) : undefined;
      },
      getSessionId: () => read().session_id,
      getSessionFile: () => read().session_file || undefined,
      getSessionName: () => read().name || undefined,
      getHeader: () => read().header_json,
      getLeafId: () => read().leaf_id || null,
      getLeafEntry: () => {
        const b = read({ branch: true }).branch_json || [];
        return b.length ? b[b.length - 1] : undefined;
      },
      getEntry: (id) => byId().get(id),
      getLabel: (id) => {
        let label;
        for (const e of entries()) if (e.type === "label" && e.targetId === id) label = e.label || undefined;
        return label;
      },
      getEntries: entries,
      getBranch: (fromId) => {
        if (fromId === undefined) return read({ branch: true }).branch_json || [];
        const m = byId();
        const out = [];
        for (let e = m.get(fromId); e; e = e.parentId ? m.get(e.parentId) : undefined) out.unshift(e);
        return out;
      },
      getTree: () => read({ tree: true }).tree_json || [],
      // The compaction-aware entries of the current branch, and what the
      // model gets of them (pi's functions, over the agent's session).
      buildContextEntries: () => {
        const r = read({ entries: true });
        return codingAgent().buildContextEntries(r.entries_json || [], r.leaf_id || undefined);
      },
      buildSessionProjection: () => {
        const r = read({ entries: true });
        return codingAgent().buildSessionProjection(r.entries_json || [], r.leaf_id || undefined);
      },
    };
  }
  const codingAgent = () =>
    typeof globalThis.__atomicVirtualModule === "function"
      ? globalThis.__atomicVirtualModule("@earendil-works/pi-coding-agent")
      : globalThis.require("@earendil-works/pi-coding-agent");

  // --- contexts -------------------------------------------------------------
  // Any of two signals: a dialog ends with its own signal or its call's.
  function eitherSignal(a, b) {
    if (!a) return b;
    if (!b) return a;
    if (a.aborted) return a;
    if (b.aborted) return b;
    const ac = new AbortController();
    const stop = () => ac.abort(a.aborted ? a.reason : b.reason);
    a.addEventListener("abort", stop);
    b.addEventListener("abort", stop);
    return ac.signal;
  }

  // --- ctx.modelRegistry: the agent's models, credentials and providers --
  // pi-ai's stand-in, for its event stream (a virtual module in every
  // engine).
  const piai = () =>
    typeof globalThis.__atomicVirtualModule === "function" ? globalThis.__atomicVirtualModule("@earendil-works/pi-ai") : globalThis.require("@earendil-works/pi-ai");
  const sameModel = (a, b) => !!a && !!b && a.provider === b.provider && a.id === b.id;
  const chatOnly = (type) => type === undefined || type === "chat";
  // The events of a finished answer, in pi's order (the host answers when
  // the model has finished: no event comes before).
  function replay(stream, message) {
    stream.push({ type: "start", partial: message });
    (message.content || []).forEach((b, i) => {
      const at = { contentIndex: i, partial: message };
      if (b.type === "text") {
        stream.push({ type: "text_start", ...at });
        stream.push({ type: "text_delta", ...at, delta: b.text });
        stream.push({ type: "text_end", ...at, content: b.text });
      } else if (b.type === "thinking") {
        stream.push({ type: "thinking_start", ...at });
        stream.push({ type: "thinking_delta", ...at, delta: b.thinking });
        stream.push({ type: "thinking_end", ...at, content: b.thinking });
      } else if (b.type === "toolCall") {
        stream.push({ type: "toolcall_start", ...at });
        stream.push({ type: "toolcall_end", ...at, toolCall: b });
      }
    });
    if (message.stopReason === "error" || message.stopReason === "aborted") stream.push({ type: "error", reason: message.stopReason, error: message });
    else stream.push({ type: "done", reason: message.stopReason, message });
  }
  // pi-ai's complete and stream (js/piai.js) call models outside any
  // handler: through this extension's host. An engine that runs several
  // extensions in one global scope (Node) takes them (engine.outside) and
  // picks the extension whose code runs; the others set the globals.
  {
    const mr = modelRegistryFor(null);
    const outside = {
      modelCalls: { complete: mr.complete, stream: mr.stream },
      // What a nested session (agentsession.js) takes from the agent when
      // its creator does not say: the current model and system prompt.
      sessionHost: {
        model: () => sync("GetModel", {}, null),
        systemPrompt: () => sync("GetState", {}, null).system_prompt,
      },
    };
    if (typeof engine.outside === "function") engine.outside(outside);
    else {
      globalThis.__atomicModelCalls = outside.modelCalls;
      globalThis.__atomicSessionHost = outside.sessionHost;
    }
  }
  function modelRegistryFor(call) {
    const list = () => sync("ListModels", {}, call);
    const all = () => list().all_json || [];
    const available = () => list().available_json || [];
    const find = (provider, id) => all().find((m) => m.provider === provider && m.id === id);
    const auth = async (model) => {
      const r = await async("GetModelAuth", { provider: model.provider, model_id: model.id }, call);
      if (!r.ok) return { ok: false, error: r.error };
      const out = { ok: true, headers: r.headers_json || {} };
      if (r.api_key) out.apiKey = r.api_key;
      if (r.base_url) out.baseUrl = r.base_url;
      return out;
    };
    const providerModel = (provider) => available().find((m) => m.provider === provider) || all().find((m) => m.provider === provider);
    const complete = (model, context, options) => {
      const o = options || {};
      const c = context || {};
      return async(
        "CompleteModel",
        {
          provider: model.provider,
          model_id: model.id,
          context_json: { systemPrompt: c.systemPrompt || "", messages: c.messages || [], tools: c.tools || [] },
          options_json: { maxTokens: o.maxTokens || 0, reasoning: o.reasoning || "" },
        },
        call,
        { signal: o.signal },
      ).then((r) => r.message_json);
    };
    const stream = (model, context, options) => {
      const s = piai().createAssistantMessageEventStream();
      complete(model, context, options).then(
        (message) => replay(s, message),
        (e) => {
          const message = { role: "assistant", content: [], api: model.api, provider: model.provider, model: model.id, stopReason: "error", errorMessage: errText(e), timestamp: Date.now() };
          replay(s, message);
        },
      );
      return s;
    };
    return {
      // This extension's providers with a refreshModels.
      refresh: async (options) => {
        await refreshAll(true, options && options.signal);
        return { ok: true };
      },
      getError: () => undefined,
      getAll: all,
      getAvailable: available,
      find,
      findOfType: (type, provider, id) => (chatOnly(type) ? find(provider, id) : undefined),
      getModelOfType: (type, provider, id) => (chatOnly(type) ? find(provider, id) : undefined),
      getModelsOfType: (type, provider) => (chatOnly(type) ? all().filter((m) => provider === undefined || m.provider === provider) : []),
      getAvailableOfType: async (type, provider) => (chatOnly(type) ? available().filter((m) => provider === undefined || m.provider === provider) : []),
      hasConfiguredAuth: (model) => available().some((m) => sameModel(m, model)),
      getApiKeyAndHeaders: auth,
      getApiKey: async (model) => (await auth(model)).apiKey,
      getApiKeyForProvider: async (provider) => {
        const m = providerModel(provider);
        return m ? (await auth(m)).apiKey : undefined;
      },
      getProviderAuth: async (provider) => {
        const m = providerModel(provider);
        if (!m) return undefined;
        const a = await auth(m);
        return a.ok ? { apiKey: a.apiKey, headers: a.headers, baseUrl: a.baseUrl } : undefined;
      },
      getProviderDisplayName: (provider) => provider,
      isUsingOAuth: () => false,
      complete,
      stream,
      streamSimple: stream,
    };
  }

  class Ctx {
    constructor(call) {
      this._call = call;
      this._hc = undefined;
      this._ui = undefined;
      this._sm = undefined;
      this._sig = undefined;
    }
    _ctx() {
      return this._hc || (this._hc = engine.context(this._call) || {});
    }
    _state() {
      return sync("GetState", {}, this._call);
    }
    get ui() {
      if (this._ui) return this._ui;
      const call = this._call;
      return (this._ui = engine.makeUI({
        dialog: (method, params, signal) => async("UI", { method, params_json: params }, call, { signal: eitherSignal(signal, this.signal) }),
        // Synchronous: a notification reaches the client before what
        // the extension does next (a dialog, a message).
        notify: (method, params) => {
          try {
            sync("UI", { method, params_json: params }, call);
          } catch (e) {
            log("warn", `ui.${method} failed: ${errText(e)}`);
          }
        },
        notifyLater: (method, params) => {
          try {
            sync("UI", { method, params_json: params }, null);
          } catch (e) {
            log("warn", `ui.${method} failed: ${errText(e)}`);
          }
        },
        warn: (message) => log("warn", message),
        slots: uiSlots,
      }));
    }
    get hasUI() {
      return !!this._ctx().has_ui;
    }
    get cwd() {
      return this._ctx().cwd;
    }
    get mode() {
      return this._ctx().mode || "rpc";
    }
    // Live, as pi's (the model and level now, not when the call began).
    get model() {
      return sync("GetModel", {}, this._call).model_json;
    }
    get thinkingLevel() {
      return sync("GetModel", {}, this._call).thinking_level;
    }
    get sessionManager() {
      return this._sm || (this._sm = sessionView(this._call));
    }
    get modelRegistry() {
      return this._mr || (this._mr = modelRegistryFor(this._call));
    }
    // The session's scoped models (--models, enabledModels): [] when no
    // scope is set, as pi's.
    get scopedModels() {
      return Object.freeze(sync("ListModels", {}, this._call).scoped_json || []);
    }
    get signal() {
      return this._sig || (this._sig = engine.signal(this._call));
    }
    isProjectTrusted() {
      return !!this._ctx().project_trusted;
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
    // The system prompt's structured inputs, a copy to read (pi's
    // ctx.getSystemPromptOptions()); change them in before_agent_start.
    getSystemPromptOptions() {
      return sync("GetSystemPromptOptions", {}, this._call).options_json || {};
    }
    // A running tool calls another through the agent's pipeline (pi's
    // ExtensionToolContext.executeTool); never rejects for the tool's
    // failures: they are {isError: true} outcomes.
    async executeTool(name, args, options) {
      const o = options || {};
      const a = args === undefined || args === null ? {} : args;
      const toolCall = { type: "toolCall", id: "", name: String(name), arguments: a };
      try {
        const r = await async("CallTool", { name: String(name), arguments_json: a }, this._call, { signal: eitherSignal(o.signal, this.signal) });
        toolCall.id = r.tool_call_id || "";
        const out = { toolCall, result: r.result_json || { content: [], details: {} }, isError: !!r.is_error };
        if (typeof r.duration_ms === "number" && r.duration_ms >= 0) out.durationMs = r.duration_ms;
        else if (typeof r.duration_ms === "string" && Number(r.duration_ms) >= 0) out.durationMs = Number(r.duration_ms);
        return out;
      } catch (e) {
        return { toolCall, result: { content: [{ type: "text", text: errText(e) }], details: {} }, isError: true };
      }
    }
    // The tools executeTool can call: the active ones.
    get tools() {
      const r = sync("GetTools", {}, this._call);
      const active = new Set(r.active || []);
      return (r.all_json || []).filter((t) => active.has(t.name));
    }
    getContextUsage() {
      return sync("GetContextUsage", {}, this._call).usage_json;
    }
    abort() {
      fire("Abort", {}, this._call);
    }
    shutdown() {
      fire("Shutdown", {}, this._call);
    }
    // As pi: the outcome goes to onComplete or onError, nowhere else.
    compact(options) {
      const o = options || {};
      async("Compact", {}, this._call)
        .then((r) => {
          if (r.error) throw new Error(r.error);
          if (typeof o.onComplete === "function") o.onComplete(r.result_json);
        })
        .catch((e) => {
          if (typeof o.onError === "function") o.onError(e instanceof Error ? e : new Error(String(e)));
        });
    }
  }

  class CommandCtx extends Ctx {
    waitForIdle() {
      return async("WaitForIdle", {}, this._call, { signal: this.signal }).then(() => undefined);
    }
  }

  // Session control and stale contexts (js/sessionctl.js).
  const control = {
    newSession: (a) => ["NewSession", { parent_session: a.parentSession || "" }],
    fork: (a) => ["Fork", { entry_id: a.entryId, position: a.position || "" }],
    switchSession: (a) => ["SwitchSession", { session_path: a.sessionPath }],
    navigateTree: (a) => [
      "NavigateTree",
      { target_id: a.targetId, summarize: !!a.summarize, custom_instructions: a.customInstructions || "", replace_instructions: !!a.replaceInstructions, label: a.label || "" },
    ],
    reload: () => ["Reload", {}],
  };
  let lastChange; // the HandlerContext the latest session change answered
  const sessions = engine.sessionControl({
    call: (ctx, op, args) => {
      if (!control[op]) return Promise.reject(new Error(`unknown session control ${op}`));
      const [method, req] = control[op](args);
      return async(method, req, ctx._call).then((r) => {
        lastChange = r.context;
        return op === "reload" ? undefined : { cancelled: !!r.cancelled };
      });
    },
    fresh: (ctx) => new CommandCtx(engine.fresh(ctx._call, lastChange)),
    appendEntry: (ctx, customType, data) => sync("AppendEntry", { custom_type: customType, data_json: data }, ctx._call).entry_id,
    staleMessage: engine.staleMessage,
  });
  Object.assign(CommandCtx.prototype, sessions.methods);
  sessions.guard(Ctx.prototype);
  sessions.guard(CommandCtx.prototype);
  const newCtx = (call) => sessions.track(new Ctx(call));
  const newCommandCtx = (call) => sessions.track(new CommandCtx(call));

  // --- pi.events: shared by the extensions of one process -----------------
  const bus = new Map(); // channel -> Set(fn)
  function deliver(channel, data) {
    const set = bus.get(channel);
    if (!set) return;
    for (const fn of Array.from(set)) {
      try {
        const r = fn(data);
        if (r && typeof r.then === "function") r.then(undefined, (e) => log("warn", `events "${channel}" handler failed: ${e}`));
      } catch (e) {
        log("warn", `events "${channel}" handler failed: ${e}`);
      }
    }
  }
  const events = {
    on(channel, fn) {
      needString("events.on: the channel", channel);
      if (typeof fn !== "function") throw new TypeError("events.on: the handler must be a function");
      let set = bus.get(channel);
      if (!set) {
        set = new Set();
        bus.set(channel, set);
        engine.listen(channel, true);
      }
      set.add(fn);
      return () => events.off(channel, fn);
    },
    off(channel, fn) {
      const set = bus.get(channel);
      if (!set) return;
      set.delete(fn);
      if (set.size === 0) {
        bus.delete(channel);
        engine.listen(channel, false);
      }
    },
    emit(channel, data) {
      needString("events.emit: the channel", channel);
      deliver(channel, data);
      engine.emit(channel, data);
    },
  };

  // --- registrations ---------------------------------------------------------
  // describe is what the extension registered, as DescribeResponse's
  // registration fields.
  function describe() {
    const ts = [];
    for (const t of tools.values()) {
      ts.push({
        name: t.name,
        label: t.label === undefined ? t.name : String(t.label),
        description: String(t.description || ""),
        parameters_json: t.parameters || { type: "object", properties: {} },
        prompt_snippet: t.promptSnippet ? String(t.promptSnippet) : "",
        prompt_guidelines: Array.isArray(t.promptGuidelines) ? t.promptGuidelines.map(String) : [],
        exposure: typeof t.exposure === "string" ? t.exposure : "",
        inactive: t.defaultActive === false,
        execution_mode: t.executionMode === "sequential" ? "sequential" : "",
        namespace_json: t.namespace && typeof t.namespace === "object" ? t.namespace : null,
        annotations_json: t.annotations && typeof t.annotations === "object" ? t.annotations : null,
      });
    }
    const cs = [];
    for (const [name, c] of commands) {
      cs.push({ name, description: String(c.description || ""), has_argument_completions: typeof c.getArgumentCompletions === "function" });
    }
    const fs = [];
    for (const [name, f] of flags) fs.push({ name, description: f.description, type: f.type, default_value: f.default === undefined ? "" : String(f.default) });
    return {
      events: Object.keys(handlers),
      handler_counts: Object.fromEntries(Object.entries(handlers).map(([e, hs]) => [e, hs.length])),
      commands: cs,
      tools: ts,
      flags: fs,
      providers: describeProviders(),
      shortcuts: Array.from(shortcuts, ([key, o]) => ({ key, description: o.description === undefined ? "" : String(o.description) })),
    };
  }
  // The providers, each with the virtual models listed under it (a
  // provider that only lists virtual models has no configuration).
  function describeProviders() {
    const out = new Map([...providers].map(([name, config]) => [name, streams.has(name) ? { name, config_json: config, streams: true } : { name, config_json: config }]));
    for (const def of virtualModels.values()) {
      let p = out.get(def.provider);
      if (!p) out.set(def.provider, (p = { name: def.provider }));
      const vm = { id: def.id, name: def.name || def.id, thinkingLevels: def.thinkingLevels || ["off"] };
      for (const k of ["contextWindow", "maxTokens", "input"]) if (def[k] !== undefined) vm[k] = def[k];
      (p.virtual_models_json || (p.virtual_models_json = [])).push(vm);
    }
    return [...out.values()];
  }
  // The agent asks the owner of a virtual model where a request goes:
  // route(request, ctx) answers {model, thinkingLevel, state?}.
  function routeVirtual(event, ctx) {
    const def = virtualModels.get(event.provider + "/" + event.id);
    if (!def) return undefined;
    return Promise.resolve(def.route(event.request, ctx)).then((r) => {
      if (!r || !r.model) throw new Error(`virtual model ${event.provider}/${event.id}: route() returned no model`);
      const out = { model: { provider: String(r.model.provider), id: String(r.model.id) } };
      if (r.thinkingLevel !== undefined) out.thinkingLevel = String(r.thinkingLevel);
      // (Returning request.state itself keeps the state.)
      if (r.state !== undefined && r.state !== event.request.state) out.state = r.state;
      return out;
    });
  }
  // renderMessage answers message_render: the lines of the component the
  // type's renderer returns, rendered at the terminal's width. A renderer
  // that throws or returns nothing leaves the message to the terminal's
  // own drawing (a warning in the log for a failure).
  function renderMessage(event, ctx) {
    const r = renderers.get(event.customType);
    if (!r) return undefined;
    const fail = (e) => {
      log("warn", `the message renderer of "${event.customType}" failed: ${errText(e)}`);
      return undefined;
    };
    const lines = (component) => {
      const out = componentLines(component, event.width);
      return out ? { lines: out } : undefined;
    };
    try {
      const c = r(event.message, { expanded: !!event.expanded }, ctx.ui.theme);
      return isThenable(c) ? c.then(lines).then(undefined, fail) : lines(c);
    } catch (e) {
      return fail(e);
    }
  }
  // componentLines renders a component (what a renderer returned) at
  // width: its lines, or undefined for none.
  function componentLines(component, width) {
    if (!component || typeof component.render !== "function") return undefined;
    const out = component.render(Number(width) || 80);
    return out && out.length ? Array.from(out, (l) => String(l)) : undefined;
  }
  // renderTool answers tool_render for this extension's tools: the lines
  // of renderCall and renderResult (after the tool finished) at the
  // terminal's width; a slot that throws (a warning) or returns nothing
  // is drawn as usual. context.state is kept per tool call.
  const toolStates = new Map(); // toolCallId -> {state, last: {call, result}}
  function renderTool(event, ctx) {
    const t = tools.get(event.toolName);
    if (!t || (typeof t.renderCall !== "function" && typeof t.renderResult !== "function")) return undefined;
    let row = toolStates.get(event.toolCallId);
    if (!row) {
      if (toolStates.size >= 500) toolStates.delete(toolStates.keys().next().value);
      toolStates.set(event.toolCallId, (row = { state: {}, last: {} }));
    }
    const done = event.result !== undefined && event.result !== null;
    const theme = ctx.ui.theme;
    const context = (slot) => ({
      args: event.args || {},
      state: row.state,
      lastComponent: row.last[slot],
      invalidate: () => {},
      toolCallId: event.toolCallId,
      cwd: ctx.cwd,
      executionStarted: true,
      argsComplete: true,
      isPartial: !done,
      expanded: !!event.expanded,
      showImages: false,
      isError: !!event.isError,
      durationMs: undefined,
      outputPad: 0,
      keyText: () => "",
      keyHint: (_id, description) => String(description || ""),
    });
    const out = {};
    const slot = (name, fn, args) => {
      if (typeof fn !== "function") return;
      try {
        const c = fn.apply(t, args);
        row.last[name] = c;
        const lines = componentLines(c, event.width);
        if (lines) out[name] = lines;
      } catch (e) {
        log("warn", `${name === "call" ? "renderCall" : "renderResult"} of the tool ${event.toolName} failed: ${errText(e)}`);
      }
    };
    slot("call", t.renderCall, [event.args || {}, theme, context("call")]);
    if (done) slot("result", t.renderResult, [event.result, { expanded: !!event.expanded, isPartial: false }, theme, context("result")]);
    return out.call || out.result ? out : undefined;
  }
  // registered tells the host what the extension registers now, when it
  // changes after loading (a tool registered from a handler or a command
  // is offered to the model from its next request). Synchronous, so that a
  // pi.setActiveTools right after it finds the tool.
  function registered() {
    if (loading) return;
    try {
      sync("UpdateRegistrations", { description: describe() });
    } catch (e) {
      log("warn", `updating the registrations failed: ${errText(e)}`);
    }
  }

  const pi = {
    on(event, handler) {
      needString("pi.on: the event name", event);
      if (typeof handler !== "function") throw new TypeError(`pi.on("${event}"): the handler must be a function`);
      // Its own registration (the same function twice is two), so that
      // the unsubscribe function removes only this one.
      const registration = (ev, ctx) => handler(ev, ctx);
      (handlers[event] || (handlers[event] = [])).push(registration);
      registered();
      return () => {
        const hs = handlers[event];
        const i = hs ? hs.indexOf(registration) : -1;
        if (i < 0) return;
        hs.splice(i, 1);
        if (hs.length === 0) delete handlers[event];
        registered();
      };
    },
    registerCommand(name, options) {
      needString("registerCommand: the name", name);
      name = name.replace(/^\//, "");
      if (!options || typeof options.handler !== "function") {
        throw new TypeError(`registerCommand("${name}"): options.handler must be a function`);
      }
      commands.set(name, options);
      registered();
    },
    registerTool(def) {
      if (!def || typeof def !== "object") throw new TypeError("registerTool: expected a tool definition object");
      needString("registerTool: name", def.name);
      if (typeof def.execute !== "function") throw new TypeError(`registerTool("${def.name}"): execute must be a function`);
      const p = def.parameters;
      if (p !== undefined && (p === null || typeof p !== "object" || Array.isArray(p))) {
        throw new TypeError(`registerTool("${def.name}"): parameters must be a JSON Schema object (for example Type.Object({...}))`);
      }
      tools.set(def.name, def);
      if ((typeof def.renderCall === "function" || typeof def.renderResult === "function") && !handlers.tool_render) {
        handlers.tool_render = [renderTool];
      }
      registered();
    },
    registerFlag(name, options) {
      needString("registerFlag: the name", name);
      name = name.replace(/^--?/, "");
      const o = options || {};
      flags.set(name, { type: o.type === "string" ? "string" : "boolean", default: o.default, description: String(o.description || "") });
      registered();
    },
    getFlag(name) {
      name = String(name).replace(/^--?/, "");
      const f = flags.get(name);
      if (!f) return undefined;
      const v = engine.flagValue(name);
      if (v === undefined || v === null) return f.default;
      if (f.type === "boolean") return v === "" || v === "true" || v === "1" || v === "yes";
      return v;
    },
    registerMcpServer(name, config) {
      needString("registerMcpServer: the name", name);
      if (!config || typeof config !== "object") throw new TypeError(`registerMcpServer("${name}"): expected an mcpServers entry object`);
      // Synchronous: the server is known before the factory returns, and
      // a refused entry throws here.
      try {
        sync("RegisterMcpServer", { name, config_json: config });
      } catch (e) {
        throw new Error(`registerMcpServer: ${errText(e)}`);
      }
    },
    unregisterMcpServer(name) {
      sync("UnregisterMcpServer", { name: String(name) });
    },
    getMcpServers() {
      return sync("ListMcpServers", {}).servers_json || [];
    },
    // Only the interactive terminal binds the keys (docs/tui.md says
    // which win over built-in keys); elsewhere they are never pressed.
    registerShortcut(key, options) {
      needString("registerShortcut: the key", key);
      if (!options || typeof options.handler !== "function") {
        throw new TypeError(`registerShortcut("${key}"): options.handler must be a function`);
      }
      shortcuts.set(key, options);
      registered();
    },
    // The terminal asks for a custom message's lines with the internal
    // event message_render (renderMessage below).
    registerMessageRenderer(customType, renderer) {
      needString("registerMessageRenderer: the custom type", customType);
      if (typeof renderer !== "function") throw new TypeError(`registerMessageRenderer("${customType}"): the renderer must be a function`);
      renderers.set(customType, renderer);
      if (!handlers.message_render) handlers.message_render = [renderMessage];
      registered();
    },
    registerEntryRenderer() {},
    registerMarkdownTransformer() {},
    // A provider of models.json's form (pi's ProviderConfig): its models,
    // endpoint, key and headers join the agent's catalogue; with a
    // streamSimple (or stream) of its own, the agent sends its models'
    // requests here (streamProvider). OAuth and refreshModels are not
    // supported yet, said once; image and classifier models neither.
    registerProvider(name, config) {
      if (name && typeof name === "object") {
        log("warn", `registerProvider(provider): a pi-ai Provider object is not supported by atomic yet; register the provider's name with its configuration`);
        return;
      }
      const n = String(name);
      const c = config || {};
      const own = ["oauth", "images", "classifiers"].filter((k) => c[k] !== undefined);
      if (own.length) log("warn", `registerProvider("${n}"): ${own.join(", ")} not supported by atomic yet; the provider's models, endpoint, key and headers apply`);
      const plain = {};
      for (const k of ["name", "baseUrl", "apiKey", "api", "headers", "authHeader", "compat", "modelOverrides"]) if (c[k] !== undefined) plain[k] = c[k];
      if (Array.isArray(c.models)) {
        const chat = c.models.filter((m) => m && (m.type === undefined || m.type === "chat"));
        if (chat.length < c.models.length) log("warn", `registerProvider("${n}"): image and classifier models are not supported by atomic; only its chat models are registered`);
        plain.models = JSON.parse(JSON.stringify(chat));
      }
      providers.delete(n);
      providers.set(n, JSON.parse(JSON.stringify(plain)));
      const fn = typeof c.streamSimple === "function" ? c.streamSimple : typeof c.stream === "function" ? c.stream : undefined;
      if (fn) streams.set(n, { fn, config: plain });
      else streams.delete(n);
      if (typeof c.refreshModels === "function") {
        refreshers.set(n, c.refreshModels);
        // As pi on a registration (and in RPC mode at start): in the
        // background, within 15 s.
        const ac = new AbortController();
        const timer = setTimeout(() => ac.abort(new Error("refreshModels timed out")), 15000);
        refreshProvider(n, true, ac.signal)
          .catch((e) => log("warn", `registerProvider("${n}"): refreshModels failed: ${errText(e)}`))
          .then(() => clearTimeout(timer));
      } else refreshers.delete(n);
      registered();
    },
    getSettings() {
      return sync("GetSettings", {}, null).settings_json || {};
    },
    unregisterProvider(name) {
      streams.delete(String(name));
      refreshers.delete(String(name));
      if (providers.delete(String(name))) registered();
    },
    // A model that routes each request to a physical one (pi's
    // registerVirtualModel): listed under its provider, route() runs here.
    registerVirtualModel(def) {
      if (!def || typeof def !== "object") throw new TypeError("registerVirtualModel: expected a definition {provider, id, name, route}");
      needString("registerVirtualModel: provider", def.provider);
      needString("registerVirtualModel: id", def.id);
      if (typeof def.route !== "function") throw new TypeError("registerVirtualModel: route must be a function");
      virtualModels.set(def.provider + "/" + def.id, def);
      if (!handlers.virtual_model_route) handlers.virtual_model_route = [routeVirtual];
      registered();
    },
    unregisterVirtualModel(provider, id) {
      if (virtualModels.delete(String(provider) + "/" + String(id))) registered();
    },

    sendMessage: action("sendMessage", (message, options) => {
      if (!message || typeof message !== "object") throw new TypeError("sendMessage: expected a message object");
      const o = options || {};
      // As pi: customType is optional (a message without one is shown as is).
      return async(
        "SendMessage",
        {
          custom_type: message.customType == null ? "" : String(message.customType),
          content_json: toContent(message.content === undefined ? "" : message.content),
          display: message.display === undefined ? true : !!message.display,
          details_json: message.details,
          trigger_turn: !!o.triggerTurn,
          deliver_as: o.deliverAs || "",
        },
        null,
        { ordered: true },
      ).then(() => undefined);
    }),
    sendUserMessage: action("sendUserMessage", (content, options) =>
      async("SendUserMessage", { content_json: toContent(content), deliver_as: (options && options.deliverAs) || "" }, null, { ordered: true }).then(
        () => undefined,
      ),
    ),
    appendEntry: action("appendEntry", (customType, data) => {
      needString("appendEntry: customType", customType);
      return sync("AppendEntry", { custom_type: customType, data_json: data }).entry_id;
    }),
    setSessionName: action("setSessionName", (name) => {
      sync("SetSessionName", { name: name == null ? "" : String(name) });
    }),
    getSessionName: action("getSessionName", () => sync("GetSession").name || undefined),
    setLabel: action("setLabel", (entryId, label) => {
      sync("SetLabel", { entry_id: String(entryId), label: label == null ? "" : String(label) });
    }),
    exec: action("exec", (command, args, options) => {
      needString("exec: the command", command);
      const o = options || {};
      if (o.signal && o.signal.aborted) return Promise.resolve({ stdout: "", stderr: "", code: -1, killed: true });
      return async("Exec", { command, args: Array.from(args || [], String), cwd: o.cwd || "", timeout_ms: o.timeout || 0 }, null, { signal: o.signal }).then(
        (r) => ({ stdout: r.stdout, stderr: r.stderr, code: r.code, killed: r.killed }),
      );
    }),
    getActiveTools: action("getActiveTools", () => sync("GetTools").active),
    getAllTools: action("getAllTools", () => sync("GetTools").all_json || []),
    setActiveTools: action("setActiveTools", (names) => {
      sync("SetActiveTools", { names: Array.from(names || [], String) });
    }),
    getCommands: action("getCommands", () => sync("GetCommands").commands_json || []),
    setModel: action("setModel", (model) => {
      if (!model || typeof model !== "object") throw new TypeError("setModel: expected a model object {provider, id}");
      return async("SetModel", { provider: String(model.provider || ""), model_id: String(model.id || "") }).then((r) => r.ok);
    }),
    getThinkingLevel: action("getThinkingLevel", () => sync("GetModel").thinking_level),
    setThinkingLevel: action("setThinkingLevel", (level) => {
      sync("SetThinkingLevel", { level: String(level) });
    }),
    events,
  };

  // --- dispatch ----------------------------------------------------------------
  const isThenable = (v) => v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function";

  function withInput(result, event, before) {
    // Handlers may change event.input in place (the arguments the tool
    // runs with); send the change along unless they returned their own.
    if (result && typeof result === "object" && result.input !== undefined) return result;
    if (JSON.stringify(event.input) === before) return result;
    return Object.assign({}, result || {}, { input: event.input });
  }

  // Runs one handler. The host composes the results of several handlers
  // (of this extension and of others): nothing here combines results.
  function runOne(call, name, h, event) {
    const ctx = newCtx(call);
    const after = (r, f) => (isThenable(r) ? r.then(f) : f(r));
    switch (name) {
      case "tool_call": {
        const before = JSON.stringify(event.input);
        return after(h(event, ctx), (v) => withInput(v, event, before));
      }
      case "before_provider_headers":
        // Handlers change event.headers in place (null deletes); the
        // return value is not read, as in pi.
        return after(h(event, ctx), () => ({ headers: event.headers }));
      case "before_agent_start": {
        // The systemPromptOptions are changed in place (pi's collections
        // are mutable); send the change along unless returned.
        const before = JSON.stringify(event.systemPromptOptions);
        return after(h(event, ctx), (v) => {
          if (v && typeof v === "object" && v.systemPromptOptions !== undefined) return v;
          if (JSON.stringify(event.systemPromptOptions) === before) return v;
          return Object.assign({}, v || {}, { systemPromptOptions: event.systemPromptOptions });
        });
      }
      case "before_provider_request": {
        // A returned value replaces the payload; a payload changed in
        // place counts too (in pi it is the object sent).
        const before = JSON.stringify(event.payload);
        return after(h(event, ctx), (v) => {
          if (v !== undefined && v !== null) return { payload: v };
          return JSON.stringify(event.payload) === before ? undefined : { payload: event.payload };
        });
      }
    }
    return h(event, ctx);
  }

  // HandlerErrors: several handlers of a notification failed (each is an
  // extension_error of its own, as in pi).
  class HandlerErrors extends Error {
    constructor(errors) {
      super(errors.map(errText).join("; "));
      this.name = "HandlerErrors";
      this.errors = errors;
    }
  }

  // --- message_update's message -------------------------------------------------
  // pi hands message_update handlers the message so far (event.message, a
  // copy). The agent sends only the stream event and the usage (the
  // message would cost its whole size on every delta), so the message is
  // rebuilt here from the events, once per extension: the content as the
  // agent has it, a tool call's arguments parsed as far as they streamed,
  // the usage, and the model the message is from.
  let streaming = null; // {message, args: [argument text per content index]}
  const blockTypes = { text: "text", thinking: "thinking", toolcall: "toolCall" };
  function withMessage(event, apply) {
    const ev = event.assistantMessageEvent;
    if (!ev || typeof ev !== "object" || event.message !== undefined) return event;
    if (!apply && streaming) return Object.assign({}, event, { message: copyMessage(streaming.message) });
    const i = Number(ev.contentIndex) || 0;
    const kind = String(ev.type || "").replace(/_(start|delta|end)$/, "");
    const phase = String(ev.type || "").slice(kind.length + 1);
    if (!streaming || (phase === "start" && i === 0)) {
      let m = null;
      try {
        m = sync("GetModel", {}, null).model_json;
      } catch (e) {
        m = null;
      }
      streaming = {
        message: { role: "assistant", content: [], api: m && m.api, provider: m && m.provider, model: m && m.id, stopReason: "stop", timestamp: Date.now() },
        args: [],
      };
    }
    const msg = streaming.message;
    const type = blockTypes[kind];
    if (type) {
      let b = msg.content[i];
      if (!b || b.type !== type) {
        b = type === "text" ? { type, text: "" } : type === "thinking" ? { type, thinking: "" } : { type, id: "", name: "", arguments: {} };
        msg.content[i] = b;
      }
      if (type === "toolCall") {
        if (phase === "start") {
          b.id = String(ev.id || "");
          b.name = String(ev.toolName || "");
        } else if (phase === "delta") {
          streaming.args[i] = (streaming.args[i] || "") + String(ev.delta || "");
          try {
            b.arguments = piai().parseStreamingJson(streaming.args[i]) || {};
          } catch (e) {
            // arguments stay as they were
          }
        } else if (phase === "end" && ev.toolCall && typeof ev.toolCall === "object") {
          msg.content[i] = Object.assign({}, ev.toolCall);
        }
      } else {
        const key = type === "text" ? "text" : "thinking";
        if (phase === "delta") b[key] += String(ev.delta || "");
        else if (phase === "end" && typeof ev.content === "string") b[key] = ev.content;
      }
    }
    if (event.usage !== undefined) msg.usage = event.usage;
    return Object.assign({}, event, { message: copyMessage(msg) });
  }
  const copyMessage = (msg) => Object.assign({}, msg, { content: msg.content.map((b) => (b ? Object.assign({}, b) : b)) });

  // dispatch runs handler `index` of an event, or (index < 0 or absent)
  // every handler: a notification's results are not read, so each failure
  // is reported on its own (HandlerErrors) and the others still run.
  function dispatch(call, name, event, index) {
    const hs = handlers[name];
    if (!hs || hs.length === 0) return undefined;
    if (name === "message_update" && event && typeof event === "object") {
      // One handler's call (index > 0) of an event already applied.
      event = withMessage(event, index === undefined || index === null || index <= 0);
    }
    if (index !== undefined && index !== null && index >= 0) {
      // (A handler removed since the agent counted them has nothing to do.)
      if (index >= hs.length) return undefined;
      return runOne(call, name, hs[index], event);
    }
    if (hs.length === 1) return runOne(call, name, hs[0], event);
    return (async () => {
      const failed = [];
      for (const h of hs.slice()) {
        try {
          await h(event, newCtx(call));
        } catch (e) {
          failed.push(e);
        }
      }
      if (failed.length === 1) throw failed[0];
      if (failed.length) throw new HandlerErrors(failed);
      return undefined;
    })();
  }

  // runCommand runs a command, or with shortcut set the handler of the
  // shortcut registered as name (pi hands it the context only).
  function runCommand(call, name, args, shortcut) {
    if (shortcut) {
      const sc = shortcuts.get(name);
      if (!sc) throw new Error(`no shortcut ${name}`);
      return sc.handler(newCommandCtx(call));
    }
    const c = commands.get(name);
    if (!c) throw new Error(`unknown command /${name}`);
    return c.handler(args, newCommandCtx(call));
  }

  function complete(call, name, prefix) {
    const c = commands.get(name);
    if (!c || typeof c.getArgumentCompletions !== "function") return null;
    return c.getArgumentCompletions(prefix, newCtx(call));
  }

  function hasCompletions(name) {
    const c = commands.get(name);
    return !!c && typeof c.getArgumentCompletions === "function";
  }

  function executeTool(call, name, toolCallId, params) {
    const t = tools.get(name);
    if (!t) throw new Error(`unknown tool ${name}`);
    const ctx = newCtx(call);
    const onUpdate = (partial) => {
      if (partial !== undefined && partial !== null) engine.toolUpdate(call, partial);
    };
    return t.execute(toolCallId, params, ctx.signal, onUpdate, ctx);
  }

  // pi's legacy refreshModels(context): the chat models it returns
  // replace the registration's, and the agent's catalogue follows.
  // Nothing is persisted (context.publish does nothing; context.stored and
  // credential are undefined).
  function refreshProvider(name, allowNetwork, signal) {
    const fn = refreshers.get(name);
    const conf = providers.get(name);
    if (!fn || !conf) return Promise.resolve();
    const sig = signal || new AbortController().signal;
    const context = { signal: sig, allowNetwork, force: allowNetwork ? false : undefined, baseUrl: conf.baseUrl, stored: undefined, credential: undefined, publish: async () => {} };
    return Promise.resolve()
      .then(() => fn(context))
      .then((models) => {
        if (!Array.isArray(models) || refreshers.get(name) !== fn || providers.get(name) !== conf || sig.aborted) return;
        conf.models = JSON.parse(JSON.stringify(models.filter((m) => m && chatOnly(m.type))));
        const s = streams.get(name);
        if (s) s.config.models = conf.models;
        if (loading) refreshedWhileLoading = true;
        registered();
      });
  }
  function refreshAll(allowNetwork, signal) {
    return Promise.all(
      [...refreshers.keys()].map((n) => refreshProvider(n, allowNetwork, signal).catch((e) => log("warn", `refreshModels("${n}") failed: ${errText(e)}`))),
    );
  }

  // One model request to a provider whose streamSimple is here: the
  // agent's request {model, context, options} on a tool call's path; each
  // event of the stream goes back as a partial result (without its
  // partial message, which the agent builds itself) and the final message
  // is the result. The call's signal (an abort, the session ending) is
  // the options' signal.
  async function streamProvider(call, name, request) {
    const s = streams.get(name);
    if (!s) throw new Error(`provider ${name}: no streamSimple registered by this extension`);
    const model = Object.assign({}, request.model);
    const own = (s.config.models || []).find((m) => m && m.id === model.id);
    // The model with the api the extension declared, and the endpoint
    // the agent has (the registration's, or models.json's over it).
    model.api = (own && own.api) || s.config.api || model.api;
    if (typeof model.baseUrl === "string" && model.baseUrl.startsWith("extension:")) delete model.baseUrl;
    const c = request.context || {};
    const messages = c.messages || [];
    const tools = c.tools || [];
    // pi 1.6's transcript: the prompt and tools in a leading system
    // message (systemPrompt and tools kept for earlier providers).
    const head = c.systemPrompt || tools.length ? [{ role: "system", content: c.systemPrompt || "", ...(tools.length ? { toolsAdded: tools } : {}), timestamp: 0 }] : [];
    const context = { systemPrompt: c.systemPrompt, tools, messages: head.concat(messages) };
    const options = Object.assign({}, request.options || {}, { signal: engine.signal(call) });
    const stream = await s.fn(model, context, options);
    let final;
    // (No for await: goja's parser lacks it.)
    const it = stream[Symbol.asyncIterator]();
    for (;;) {
      const step = await it.next();
      if (step.done) break;
      const ev = step.value;
      if (!ev || typeof ev !== "object") continue;
      const out = {};
      for (const k of Object.keys(ev)) if (k !== "partial") out[k] = ev[k];
      if (ev.type === "toolcall_start") {
        const b = ev.partial && ev.partial.content && ev.partial.content[ev.contentIndex];
        if (b) Object.assign(out, { id: b.id, toolName: b.name });
      }
      engine.toolUpdate(call, { content: [], details: out });
      if (ev.type === "done") final = ev.message;
      if (ev.type === "error") final = ev.error;
      if (ev.type === "done" || ev.type === "error") break;
    }
    if (final === undefined && stream && typeof stream.result === "function") final = await stream.result();
    return { content: [], details: final === undefined ? null : final };
  }

  function finishLoading() {
    loading = false;
    if (refreshedWhileLoading) registered();
  }

  return { pi, dispatch, runCommand, complete, hasCompletions, executeTool, streamProvider, deliver, describe, finishLoading, HandlerErrors };
};
