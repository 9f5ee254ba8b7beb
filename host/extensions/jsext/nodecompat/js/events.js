// node:events: EventEmitter.
"use strict";

class EventEmitter {
  constructor() {
    this._events = new Map();
    this._max = 10;
  }
  _list(name) {
    let l = this._events.get(name);
    if (!l) {
      l = [];
      this._events.set(name, l);
    }
    return l;
  }
  on(name, fn) {
    this._list(name).push({ fn, once: false });
    return this;
  }
  addListener(name, fn) {
    return this.on(name, fn);
  }
  prependListener(name, fn) {
    this._list(name).unshift({ fn, once: false });
    return this;
  }
  once(name, fn) {
    this._list(name).push({ fn, once: true });
    return this;
  }
  off(name, fn) {
    const l = this._events.get(name);
    if (l) {
      const i = l.findIndex((x) => x.fn === fn);
      if (i >= 0) l.splice(i, 1);
    }
    return this;
  }
  removeListener(name, fn) {
    return this.off(name, fn);
  }
  removeAllListeners(name) {
    if (name === undefined) this._events.clear();
    else this._events.delete(name);
    return this;
  }
  emit(name, ...args) {
    const l = this._events.get(name);
    if (!l || l.length === 0) {
      if (name === "error") throw args[0] instanceof Error ? args[0] : new Error("Unhandled error: " + args[0]);
      return false;
    }
    for (const x of l.slice()) {
      if (x.once) this.off(name, x.fn);
      x.fn.apply(this, args);
    }
    return true;
  }
  listeners(name) {
    return (this._events.get(name) || []).map((x) => x.fn);
  }
  listenerCount(name) {
    return (this._events.get(name) || []).length;
  }
  eventNames() {
    return Array.from(this._events.keys()).filter((k) => this._events.get(k).length > 0);
  }
  setMaxListeners(n) {
    this._max = n;
    return this;
  }
  getMaxListeners() {
    return this._max;
  }
}
EventEmitter.EventEmitter = EventEmitter;
EventEmitter.default = EventEmitter;
EventEmitter.once = (emitter, name) =>
  new Promise((resolve) => emitter.once(name, (...args) => resolve(args)));
module.exports = EventEmitter;
