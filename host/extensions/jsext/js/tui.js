// Terminal UI components. atomic has no terminal UI (clients render), so
// these only keep the text they are given: renderers and custom dialogs
// built from them are never shown, but scripts that create them still load.
"use strict";

const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07]*(\x07|\x1b\\)/g;
const visibleWidth = (s) => Array.from(String(s).replace(ANSI, "")).length;

function truncateToWidth(s, width, ellipsis) {
  const text = String(s);
  if (visibleWidth(text) <= width) return text;
  const e = ellipsis === undefined ? "..." : String(ellipsis);
  const chars = Array.from(text.replace(ANSI, ""));
  return chars.slice(0, Math.max(0, width - e.length)).join("") + e;
}

function wrapTextWithAnsi(s, width) {
  const out = [];
  for (const line of String(s).split("\n")) {
    const chars = Array.from(line);
    if (chars.length === 0) out.push("");
    for (let i = 0; i < chars.length; i += Math.max(1, width)) out.push(chars.slice(i, i + Math.max(1, width)).join(""));
  }
  return out;
}

class Component {
  constructor(...args) {
    this.args = args;
    this.children = [];
  }
  render(width) {
    const lines = [];
    for (const c of this.children) if (c && typeof c.render === "function") lines.push(...c.render(width));
    return lines;
  }
  invalidate() {}
  handleInput() {}
}
class Container extends Component {
  addChild(c) {
    this.children.push(c);
  }
  removeChild(c) {
    this.children = this.children.filter((x) => x !== c);
  }
  clear() {
    this.children = [];
  }
}
class Text extends Component {
  constructor(text, ...rest) {
    super(text, ...rest);
    this.text = text === undefined ? "" : String(text);
  }
  setText(t) {
    this.text = String(t);
  }
  render(width) {
    return wrapTextWithAnsi(this.text, width || 80);
  }
}
class TruncatedText extends Text {}
class Markdown extends Text {}
class Spacer extends Component {
  render() {
    return [""];
  }
}
class Box extends Container {}
class Loader extends Text {
  stop() {}
  start() {}
}
class SelectList extends Component {
  setFilter() {}
  getSelectedItem() {
    return undefined;
  }
}
class Input extends Component {
  getValue() {
    return "";
  }
  setValue() {}
}
class Editor extends Input {
  getText() {
    return "";
  }
  setText() {}
}
class Image extends Component {}

// Key names and the modifier helpers of pi-tui's Key (a key id is a
// string such as "ctrl+shift+p"; shortcuts mean nothing over RPC, but the
// ids are built the same way).
const Key = {};
for (const k of ["escape", "esc", "enter", "return", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end",
  "pageUp", "pageDown", "up", "down", "left", "right", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"]) {
  Key[k] = k;
}
Object.assign(Key, {
  backtick: "`", hyphen: "-", equals: "=", leftbracket: "[", rightbracket: "]", backslash: "\\", semicolon: ";", quote: "'",
  comma: ",", period: ".", slash: "/", exclamation: "!", at: "@", hash: "#", dollar: "$", percent: "%", caret: "^",
  ampersand: "&", asterisk: "*", leftparen: "(", rightparen: ")", underscore: "_", plus: "+", pipe: "|", tilde: "~",
  leftbrace: "{", rightbrace: "}", colon: ":", lessthan: "<", greaterthan: ">", question: "?",
});
const modifierNames = { ctrl: "ctrl", shift: "shift", alt: "alt", super: "super" };
for (const combo of ["ctrl", "shift", "alt", "super", "ctrlShift", "shiftCtrl", "ctrlAlt", "altCtrl", "shiftAlt", "altShift",
  "ctrlSuper", "superCtrl", "shiftSuper", "superShift", "altSuper", "superAlt", "ctrlShiftAlt", "ctrlShiftSuper"]) {
  const prefix = combo.split(/(?=[A-Z])/).map((m) => modifierNames[m.toLowerCase()] + "+").join("");
  Key[combo] = (key) => prefix + key;
}

// The rest of pi-tui's surface (0.73 and 1.x): there is no terminal in RPC
// mode, so terminal, image and screen helpers answer "not supported" and
// components keep their arguments; string helpers do what their names say.
class Focusable extends Component {}
const componentNames = ["CancellableLoader", "CombinedAutocompleteProvider", "KeybindingsManager", "ProcessTerminal", "SettingsList",
  "StdinBuffer", "TUI", "HStack", "VStack", "MouseRegion", "ScrollView", "TuiAltScreen", "TuiMainScreen"];
const components = {};
for (const name of componentNames) components[name] = { [name]: class extends Focusable {} }[name];
components.CancellableLoader = class CancellableLoader extends Loader {
  constructor(...args) {
    super(...args);
    this.signal = new AbortController().signal;
    this.onAbort = undefined;
  }
};

function fuzzyMatch(query, text) {
  const q = String(query).toLowerCase();
  const t = String(text).toLowerCase();
  if (q.length === 0) return { matches: true, score: 0 };
  let at = 0;
  let score = 0;
  let last = -1;
  for (const ch of q) {
    const i = t.indexOf(ch, at);
    if (i < 0) return { matches: false, score: 0 };
    // Gaps cost; consecutive characters and word starts are cheaper.
    score += last >= 0 ? i - last - 1 : i;
    if (i > 0 && /[\s\-_./:]/.test(t[i - 1])) score -= 1;
    last = i;
    at = i + 1;
  }
  return { matches: true, score };
}

function fuzzyFilter(items, query, getText) {
  const q = String(query || "").trim();
  if (!q) return items;
  const tokens = q.split(/\s+/);
  const text = typeof getText === "function" ? getText : (x) => String(x);
  const scored = [];
  for (const item of items) {
    let total = 0;
    let ok = true;
    for (const tok of tokens) {
      const m = fuzzyMatch(tok, text(item));
      if (!m.matches) {
        ok = false;
        break;
      }
      total += m.score;
    }
    if (ok) scored.push({ item, total });
  }
  return scored.sort((a, b) => a.total - b.total).map((x) => x.item);
}

const stripTerminalSequences = (s) => String(s).replace(ANSI, "");
const replaceControlCharacters = (s) => String(s).replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === "\x1b" ? "\u241b" : "\ufffd"));
function sliceByColumn(s, start, end) {
  const chars = Array.from(stripTerminalSequences(s));
  return chars.slice(start, end === undefined ? undefined : end).join("");
}
const noCapabilities = () => ({ images: null, trueColor: false, hyperlinks: false });
const nothing = () => undefined;
const noDimensions = () => null;
const rest = {
  ...components,
  CURSOR_MARKER: "\x1b_pi:c\x07",
  TUI_KEYBINDINGS: {},
  fuzzyMatch,
  fuzzyFilter,
  stripTerminalSequences,
  replaceControlCharacters,
  sliceByColumn,
  hyperlink: (text) => String(text),
  styleText: (text) => String(text),
  styleTextWithAnsi: (text) => String(text),
  isFocusable: (c) => !!c && typeof c.handleInput === "function",
  detectCapabilities: noCapabilities,
  getCapabilities: noCapabilities,
  resetCapabilitiesCache: nothing,
  setCapabilities: nothing,
  setCapabilityOverrides: nothing,
  getCellDimensions: () => ({ widthPx: 9, heightPx: 18 }),
  setCellDimensions: nothing,
  getKeybindings: () => ({}),
  setKeybindings: nothing,
  allocateImageId: () => 0,
  calculateImageRows: () => 0,
  deleteAllKittyImages: () => "",
  deleteKittyImage: () => "",
  encodeITerm2: () => "",
  encodeKitty: () => "",
  renderImage: () => null,
  imageFallback: (mimeType, dimensions, filename) => `[image${filename ? ` ${filename}` : ""}${mimeType ? ` ${mimeType}` : ""}]`,
  setImageTranscoder: nothing,
  getImageDimensions: noDimensions,
  getGifDimensions: noDimensions,
  getJpegDimensions: noDimensions,
  getPngDimensions: noDimensions,
  getWebpDimensions: noDimensions,
  getNativeClipboard: () => null,
  getOsc8LinkAtColumn: () => undefined,
  getSelectPageIndex: () => 0,
  getTerminalColorMode: () => "none",
  isAppleTerminalSession: () => false,
  isViewportTUI: () => false,
  compositeTuiLine: (line) => String(line),
  renderFakeCursor: (line) => String(line),
  renderLatex: (s) => String(s),
  formatProgramStatus: (s) => String(s === undefined ? "" : s),
  Marked: class Marked {},
  parseColor: () => null,
  parseTerminalColorSchemeReport: () => null,
  colorToHex: () => "",
  colorToRgb: () => null,
  colorToOkhsl: () => null,
  colorToOklch: () => null,
  oklabToOkhslLightness: () => 0,
  backgroundAnsi: () => "",
  foregroundAnsi: () => "",
  indexedColor: (n) => ({ kind: "indexed", index: n }),
  rgbColor: (r, g, b) => ({ kind: "rgb", r, g, b }),
  okhslColor: (h, s, l) => ({ kind: "okhsl", h, s, l }),
  oklchColor: (l, c, h) => ({ kind: "oklch", l, c, h }),
  mixColors: (a) => a,
};

module.exports = {
  __esModule: true,
  ...rest,
  Component,
  Container,
  Text,
  TruncatedText,
  Markdown,
  Spacer,
  Box,
  Loader,
  SelectList,
  Input,
  Editor,
  Image,
  Key,
  matchesKey: () => false,
  parseKey: () => undefined,
  isKeyRelease: () => false,
  isKeyRepeat: () => false,
  isKittyProtocolActive: () => false,
  setKittyProtocolActive: () => {},
  decodeKittyPrintable: () => undefined,
  visibleWidth,
  truncateToWidth,
  wrapTextWithAnsi,
};
