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

const Key = new Proxy({}, { get: (_t, k) => (typeof k === "string" ? k : undefined) });

module.exports = {
  __esModule: true,
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
  visibleWidth,
  truncateToWidth,
  wrapTextWithAnsi,
};
