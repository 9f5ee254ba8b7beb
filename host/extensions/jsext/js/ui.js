// ctx.ui of a call, shared by both script runtimes: goja's prelude and
// the Node host load this CommonJS module, each with its own `io`:
//   io.dialog(method, params, signal) -> Promise of the answer
//                                        {cancelled, value?, confirmed?}
//   io.notify(method, params)         -> sends a notification, returns
//   io.warn(message)                  -> logs a warning
//   io.notifyLater(method, params)    -> io.notify outside the call (a
//                                        component's requestRender)
//   io.slots                          -> the extension's state across its
//                                        calls (header, footer, statuses)
// Dialogs and notifications are the RPC extension UI sub-protocol's
// methods. setWorkingMessage, setHeader and setFooter are sent too; only
// the interactive terminal draws them (the runtime drops them in RPC and
// ACP mode, where pi makes them no-ops). The rest of pi's UI does nothing.
"use strict";

// The width a header or footer component is rendered at: the component
// is rendered in the extension, once when set and again when it asks
// (tui.requestRender()), and the terminal cuts its lines to its width.
const chromeWidth = 80;

const plainTheme = {
  fg: (_c, s) => s,
  bg: (_c, s) => s,
  bold: (s) => s,
  italic: (s) => s,
  underline: (s) => s,
  strikethrough: (s) => s,
  inverse: (s) => s,
};

module.exports = function makeUI(io) {
  function dialog(method, params, opts) {
    if (opts && typeof opts.timeout === "number" && opts.timeout > 0) params.timeout = opts.timeout;
    const signal = opts && opts.signal;
    if (signal && signal.aborted) return Promise.resolve({ cancelled: true });
    return io.dialog(method, params, signal);
  }
  const notify = (method, params) => io.notify(method, params);
  const slots = io.slots || {};
  if (!slots.statuses) slots.statuses = new Map();
  // setHeader / setFooter: pi's factory (tui, theme, footerData) returns a
  // component; the terminal gets the lines of its render(width).
  function chrome(slot, method, factory) {
    const old = slots[slot];
    slots[slot] = undefined;
    if (old && old.component && typeof old.component.dispose === "function") {
      try {
        old.component.dispose();
      } catch (e) {
        io.warn(`${method}: the old component's dispose failed: ${e && e.message ? e.message : e}`);
      }
    }
    if (factory === undefined || factory === null) {
      notify(method, {});
      return;
    }
    if (typeof factory !== "function") {
      io.warn(`${method}: expected a component factory or undefined`);
      return;
    }
    const entry = { component: undefined, pending: false };
    const draw = (send) => {
      if (slots[slot] !== entry) return;
      let lines;
      try {
        lines = entry.component.render(chromeWidth);
      } catch (e) {
        io.warn(`${method}: render failed: ${e && e.message ? e.message : e}`);
        return;
      }
      send(method, { lines: Array.from(lines || [], (l) => String(l)) });
    };
    const tui = {
      // Coalesced: one render per turn of the event loop.
      requestRender: () => {
        if (entry.pending) return;
        entry.pending = true;
        Promise.resolve().then(() => {
          entry.pending = false;
          draw(io.notifyLater || notify);
        });
      },
      terminal: { columns: chromeWidth, rows: 24 },
    };
    const footerData = {
      getGitBranch: () => null,
      getExtensionStatuses: () => new Map(slots.statuses),
      onBranchChange: () => () => {},
      getAvailableProviderCount: () => 0,
    };
    try {
      entry.component = factory(tui, plainTheme, footerData);
    } catch (e) {
      io.warn(`${method}: the factory failed: ${e && e.message ? e.message : e}`);
      return;
    }
    if (!entry.component || typeof entry.component.render !== "function") {
      io.warn(`${method}: the factory must return a component with render(width)`);
      return;
    }
    slots[slot] = entry;
    draw(notify);
  }
  return {
    select: (title, options, opts) =>
      dialog("select", { title, options: Array.from(options || [], String) }, opts).then((a) =>
        a.cancelled ? undefined : a.value,
      ),
    confirm: (title, message, opts) =>
      dialog("confirm", { title, message: message === undefined ? "" : String(message) }, opts).then(
        (a) => !a.cancelled && !!a.confirmed,
      ),
    input: (title, placeholder, opts) => {
      const p = { title };
      if (placeholder !== undefined) p.placeholder = String(placeholder);
      return dialog("input", p, opts).then((a) => (a.cancelled ? undefined : a.value));
    },
    editor: (title, prefill, opts) => {
      const p = { title };
      if (prefill !== undefined) p.prefill = String(prefill);
      return dialog("editor", p, opts).then((a) => (a.cancelled ? undefined : a.value));
    },
    // As pi: no type, no notifyType (clients show it as info).
    notify: (message, type) => notify("notify", type ? { message: String(message), notifyType: type } : { message: String(message) }),
    setStatus: (key, text) => {
      const p = { statusKey: key };
      if (text !== undefined && text !== null) p.statusText = String(text);
      if (p.statusText === undefined) slots.statuses.delete(String(key));
      else slots.statuses.set(String(key), p.statusText);
      notify("setStatus", p);
    },
    setWidget: (key, content, options) => {
      const p = { widgetKey: key };
      if (Array.isArray(content)) p.widgetLines = content.map(String);
      else if (content !== undefined && content !== null) {
        io.warn(`setWidget("${key}"): only string arrays can be shown over RPC`);
        return;
      }
      p.widgetPlacement = (options && options.placement) || "aboveEditor";
      notify("setWidget", p);
    },
    setTitle: (title) => notify("setTitle", { title: String(title) }),
    setEditorText: (text) => notify("set_editor_text", { text: text == null ? "" : String(text) }),
    pasteToEditor: (text) => notify("set_editor_text", { text: text == null ? "" : String(text) }),
    getEditorText: () => "",
    setWorkingMessage: (message) => notify("setWorkingMessage", message === undefined || message === null ? {} : { message: String(message) }),
    setWorkingVisible: () => {},
    setWorkingIndicator: () => {},
    setHiddenThinkingLabel: () => {},
    setFooter: (factory) => chrome("footer", "setFooter", factory),
    setHeader: (factory) => chrome("header", "setHeader", factory),
    setEditorComponent: () => {},
    getEditorComponent: () => undefined,
    addAutocompleteProvider: () => {},
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
};
