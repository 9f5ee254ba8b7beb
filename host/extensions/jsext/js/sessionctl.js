// Session control of a command's ctx (newSession, fork, switchSession,
// navigateTree, reload) and the stale-context rule, shared by both script
// runtimes: goja's prelude and the Node host load this CommonJS module,
// each with its own `io`:
//   io.call(ctx, op, args) -> Promise of {cancelled} (undefined for reload)
//   io.fresh(ctx, result)  -> a new command ctx for the same call, bound to
//                             the session now active (result: io.call's)
//   io.appendEntry(ctx, customType, data) -> entry id
//   io.staleMessage        -> the error text of a stale ctx
// A ctx made before its extension replaced the session (or reloaded)
// throws io.staleMessage from every member; the ctx given to withSession
// is bound to the new session.
"use strict";
module.exports = function sessionControl(io) {
  let epoch = 0;
  const born = new WeakMap(); // ctx -> epoch it was made in

  function track(ctx) {
    born.set(ctx, epoch);
    return ctx;
  }
  function check(ctx) {
    const e = born.get(ctx);
    if (e !== undefined && e !== epoch) throw new Error(io.staleMessage);
  }
  // guard makes every method and getter of obj (an object or a
  // prototype) check the ctx it is called on.
  function guard(obj) {
    for (const key of Object.getOwnPropertyNames(obj)) {
      if (key === "constructor" || key.startsWith("_")) continue;
      const d = Object.getOwnPropertyDescriptor(obj, key);
      if (!d.configurable) continue;
      if (d.get) {
        const g = d.get;
        d.get = function () {
          check(this);
          return g.call(this);
        };
      } else if (typeof d.value === "function") {
        const f = d.value;
        d.value = function (...args) {
          check(this);
          return f.apply(this, args);
        };
      } else if (d.value !== null && typeof d.value === "object") {
        // (ctx.ui, ctx.sessionManager … held as plain values)
        const v = d.value;
        Object.defineProperty(obj, key, {
          configurable: true,
          enumerable: d.enumerable,
          get() {
            check(this);
            return v;
          },
        });
        continue;
      } else continue;
      Object.defineProperty(obj, key, d);
    }
    return obj;
  }

  function needString(what, v) {
    if (typeof v !== "string" || v === "") throw new TypeError(`${what} must be a non-empty string`);
  }
  function setupManager(ctx) {
    const sm = ctx.sessionManager;
    const out = Object.create(sm);
    out.appendCustomEntry = (customType, data) => io.appendEntry(ctx, customType, data);
    out.appendMessage = () => {
      throw new Error("newSession setup: appendMessage is not supported by atomic; use appendCustomEntry, or send the message from withSession");
    };
    return out;
  }
  async function replace(ctx, op, args, options) {
    check(ctx);
    const o = options || {};
    const r = await io.call(ctx, op, args);
    const res = { cancelled: !!(r && r.cancelled) };
    if (res.cancelled) return res;
    epoch++;
    const next = track(io.fresh(ctx));
    if (typeof o.setup === "function") await o.setup(setupManager(next));
    if (typeof o.withSession === "function") await o.withSession(next);
    return res;
  }

  // The methods of a command ctx (`this` is the ctx).
  const methods = {
    newSession(options) {
      const o = options || {};
      return replace(this, "newSession", { parentSession: o.parentSession ? String(o.parentSession) : "" }, o);
    },
    fork(entryId, options) {
      needString("ctx.fork: the entry id", entryId);
      const o = options || {};
      const position = o.position === undefined ? "before" : o.position;
      if (position !== "before" && position !== "at") throw new TypeError('ctx.fork: position must be "before" or "at"');
      return replace(this, "fork", { entryId, position }, o);
    },
    switchSession(sessionPath, options) {
      needString("ctx.switchSession: the session path", sessionPath);
      return replace(this, "switchSession", { sessionPath }, options);
    },
    async navigateTree(targetId, options) {
      needString("ctx.navigateTree: the target id", targetId);
      check(this);
      const o = options || {};
      const r = await io.call(this, "navigateTree", {
        targetId,
        summarize: !!o.summarize,
        customInstructions: o.customInstructions ? String(o.customInstructions) : "",
        replaceInstructions: !!o.replaceInstructions,
        label: o.label ? String(o.label) : "",
      });
      return { cancelled: !!(r && r.cancelled) };
    },
    async reload() {
      check(this);
      epoch++; // the instance that asked is being replaced
      await io.call(this, "reload", {});
    },
  };
  return { track, check, guard, methods };
};
