// node:readline over strings and the stream objects atomic provides
// (child process output): createInterface emits "line" for each line of
// the input's "data" events and "close" at its "end". There is no
// terminal: question() answers with an empty string.
"use strict";

const { EventEmitter } = require("events");

class Interface extends EventEmitter {
  constructor(input) {
    super();
    this._buf = "";
    this._closed = false;
    this._waiters = [];
    this._lines = [];
    if (input && typeof input.on === "function") {
      input.on("data", (d) => this._push(String(d)));
      input.on("end", () => this.close());
      input.on("close", () => this.close());
    } else if (typeof input === "string") {
      Promise.resolve().then(() => {
        this._push(input);
        this.close();
      });
    }
  }
  _push(text) {
    if (this._closed) return;
    this._buf += text;
    let i;
    while ((i = this._buf.indexOf("\n")) >= 0) {
      let line = this._buf.slice(0, i);
      this._buf = this._buf.slice(i + 1);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      this._line(line);
    }
  }
  _line(line) {
    this.emit("line", line);
    const w = this._waiters.shift();
    if (w) w({ value: line, done: false });
    else this._lines.push(line);
  }
  close() {
    if (this._closed) return;
    if (this._buf !== "") {
      const rest = this._buf;
      this._buf = "";
      this._line(rest);
    }
    this._closed = true;
    this.emit("close");
    for (const w of this._waiters.splice(0)) w({ value: undefined, done: true });
  }
  question(_query, a, b) {
    const cb = typeof a === "function" ? a : b;
    if (cb) Promise.resolve().then(() => cb(""));
  }
  setPrompt() {}
  prompt() {}
  write() {}
  pause() {
    return this;
  }
  resume() {
    return this;
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this._lines.length) return Promise.resolve({ value: this._lines.shift(), done: false });
        if (this._closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this._waiters.push(resolve));
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

function createInterface(opts) {
  const input = opts && typeof opts === "object" && !(typeof opts.on === "function") && "input" in opts ? opts.input : opts;
  return new Interface(input);
}

const promises = {
  createInterface: (o) => {
    const rl = createInterface(o);
    rl.question = (q) => Promise.resolve("");
    return rl;
  },
};

module.exports = { createInterface, Interface, promises, emitKeypressEvents() {}, clearLine() {}, cursorTo() {}, moveCursor() {} };
module.exports.default = module.exports;
