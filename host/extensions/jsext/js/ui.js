// ctx.ui of a call, shared by both script runtimes: goja's prelude and
// the Node host load this CommonJS module, each with its own `io`:
//   io.dialog(method, params, signal) -> Promise of the answer
//                                        {cancelled, value?, confirmed?}
//   io.notify(method, params)         -> sends a notification, returns
//   io.warn(message)                  -> logs a warning
// Dialogs and notifications are the RPC extension UI sub-protocol's
// methods; the rest of pi's UI has no meaning over RPC and does nothing.
"use strict";

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
    setWorkingMessage: () => {},
    setWorkingVisible: () => {},
    setWorkingIndicator: () => {},
    setHiddenThinkingLabel: () => {},
    setFooter: () => {},
    setHeader: () => {},
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
