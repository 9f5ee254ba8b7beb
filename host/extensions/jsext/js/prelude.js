// goja's engine for the extension API of js/api.js (shared with the Node
// host): the host port over the Go natives of port.go (requests and
// responses cross as JSON), the calls' signals, the shared event bus, and
// an AbortController (goja has none). `native` is the Go side (api.go).
(function (native, makeAPI, sessionControl, uiModule) {
  "use strict";

  const parse = (s) => (s === "" || s === undefined ? undefined : JSON.parse(s));
  const json = (v) => (v === undefined ? "" : JSON.stringify(v));

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

  const port = {
    sync: (method, req, call) => JSON.parse(native.host(call || 0, method, JSON.stringify(req))),
    call(method, req, call, opts) {
      let token = 0;
      const signal = opts && opts.signal;
      if (signal) {
        token = native.newToken();
        if (signal.aborted) return Promise.reject(signal.reason || new Error("aborted"));
        signal.addEventListener("abort", () => native.cancel(token));
      }
      return native.hostAsync(call || 0, method, JSON.stringify(req), token, !!(opts && opts.ordered)).then(parse);
    },
  };

  const api = makeAPI({
    port,
    context: (call) => JSON.parse(native.handlerContext(call || 0)),
    signal: callSignal,
    fresh: (call) => call,
    flagValue: (name) => native.flagValue(name),
    listen: (channel, on) => native.listen(channel, on),
    emit: (channel, data) => native.emit(channel, json(data)),
    toolUpdate: (call, partial) => native.toolUpdate(call, JSON.stringify(partial)),
    log: (level, msg) => native.log(level, msg),
    staleMessage: native.staleMessage,
    sessionControl,
    makeUI: uiModule,
  });

  return {
    pi: api.pi,
    dispatch: (callId, name, payload, index) => api.dispatch(callId, name, JSON.parse(payload), index),
    runCommand: api.runCommand,
    complete: api.complete,
    executeTool: (callId, name, toolCallId, params) => api.executeTool(callId, name, toolCallId, JSON.parse(params)),
    streamProvider: (callId, provider, request) => api.streamProvider(callId, provider, JSON.parse(request)),
    deliverShared: (channel, payload) => api.deliver(channel, parse(payload)),
    finishLoading: api.finishLoading,
    describe: () => JSON.stringify(api.describe()),
  };
});
