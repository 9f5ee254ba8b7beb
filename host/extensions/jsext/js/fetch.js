// fetch, Headers, Request and Response over Go's HTTP client (fetch.go),
// made when a script first uses one of them. Bodies are read whole (at
// most 32 MiB): `body` is a stream that yields the whole body as one
// chunk, not one that delivers data as it arrives.
"use strict";

module.exports = function (web, native) {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const kList = Symbol("headers");

  const normName = (n) => {
    const s = String(n);
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(s)) throw new TypeError(`Headers: invalid header name "${s}"`);
    return s.toLowerCase();
  };
  const normValue = (v) => {
    const s = String(v).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
    if (/[\0\r\n]/.test(s)) throw new TypeError(`Headers: invalid header value "${s}"`);
    return s;
  };

  class Headers {
    constructor(init) {
      Object.defineProperty(this, kList, { value: [], writable: true });
      if (init === undefined || init === null) return;
      if (init instanceof Headers) {
        for (const [k, v] of init[kList]) this[kList].push([k, v]);
      } else if (typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const p = [...pair];
          if (p.length !== 2) throw new TypeError("Headers: each header must be a [name, value] pair");
          this.append(p[0], p[1]);
        }
      } else if (typeof init === "object") {
        for (const k of Object.keys(init)) this.append(k, init[k]);
      } else {
        throw new TypeError("Headers: the init must be an object, an array of pairs or Headers");
      }
    }
    append(name, value) {
      this[kList].push([normName(name), normValue(value)]);
    }
    delete(name) {
      const n = normName(name);
      this[kList] = this[kList].filter(([k]) => k !== n);
    }
    get(name) {
      const n = normName(name);
      const vals = this[kList].filter(([k]) => k === n).map(([, v]) => v);
      return vals.length ? vals.join(", ") : null;
    }
    getSetCookie() {
      return this[kList].filter(([k]) => k === "set-cookie").map(([, v]) => v);
    }
    has(name) {
      const n = normName(name);
      return this[kList].some(([k]) => k === n);
    }
    set(name, value) {
      const n = normName(name);
      const v = normValue(value);
      const i = this[kList].findIndex(([k]) => k === n);
      if (i < 0) this[kList].push([n, v]);
      else this[kList] = this[kList].filter(([k], j) => k !== n || j === i).map((p, j) => (p[0] === n ? [n, v] : p));
    }
    *entries() {
      const names = [...new Set(this[kList].map(([k]) => k))].sort();
      for (const n of names) {
        if (n === "set-cookie") for (const v of this.getSetCookie()) yield [n, v];
        else yield [n, this.get(n)];
      }
    }
    *keys() {
      for (const [k] of this.entries()) yield k;
    }
    *values() {
      for (const [, v] of this.entries()) yield v;
    }
    forEach(fn, thisArg) {
      for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    get [Symbol.toStringTag]() {
      return "Headers";
    }
  }

  // A body: bytes (Uint8Array) or null, and the content type it implies.
  const extract = (body) => {
    if (body === undefined || body === null) return { bytes: null, type: null };
    if (typeof body === "string") return { bytes: enc.encode(body), type: "text/plain;charset=UTF-8" };
    if (body instanceof ArrayBuffer) return { bytes: new Uint8Array(body.slice(0)), type: null };
    if (ArrayBuffer.isView(body)) return { bytes: new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)), type: null };
    if (typeof URLSearchParams !== "undefined" && body instanceof URLSearchParams) {
      return { bytes: enc.encode(body.toString()), type: "application/x-www-form-urlencoded;charset=UTF-8" };
    }
    if (body && body[kStream]) return { bytes: body[kStream], type: null };
    return { bytes: enc.encode(String(body)), type: "text/plain;charset=UTF-8" };
  };

  // body: a minimal ReadableStream that yields the whole body in one chunk.
  const kStream = Symbol("stream");
  const makeStream = (owner) => {
    let done = false;
    const next = async () => {
      if (done) return { done: true, value: undefined };
      done = true;
      const b = owner.consume();
      return b && b.length ? { done: false, value: b } : { done: true, value: undefined };
    };
    const stream = {
      locked: false,
      getReader() {
        stream.locked = true;
        return {
          read: next,
          releaseLock() {
            stream.locked = false;
          },
          cancel: async () => {
            done = true;
          },
          closed: Promise.resolve(undefined),
        };
      },
      cancel: async () => {
        done = true;
      },
      [Symbol.asyncIterator]() {
        return { next, return: async () => ((done = true), { done: true, value: undefined }) };
      },
    };
    Object.defineProperty(stream, kStream, { get: () => owner.peek() });
    return stream;
  };

  class Body {
    constructor(bytes) {
      Object.defineProperty(this, "_bytes", { value: bytes, writable: true });
      Object.defineProperty(this, "_used", { value: false, writable: true });
      Object.defineProperty(this, "_stream", { value: null, writable: true });
    }
    get body() {
      if (this._bytes === null) return null;
      if (!this._stream) {
        this._stream = makeStream({
          consume: () => {
            this._used = true;
            return this._bytes;
          },
          peek: () => this._bytes,
        });
      }
      return this._stream;
    }
    get bodyUsed() {
      return this._used;
    }
    _take() {
      if (this._used) return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
      this._used = true;
      return Promise.resolve(this._bytes || new Uint8Array(0));
    }
    arrayBuffer() {
      return this._take().then((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    }
    bytes() {
      return this._take().then((b) => new Uint8Array(b));
    }
    text() {
      return this._take().then((b) => dec.decode(b));
    }
    json() {
      return this.text().then((t) => JSON.parse(t));
    }
    blob() {
      return Promise.reject(new TypeError("Blob bodies are not available in atomic's script runtime; use arrayBuffer() or text()"));
    }
    formData() {
      return Promise.reject(new TypeError("FormData bodies are not available in atomic's script runtime; use text()"));
    }
  }

  const METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"]);

  class Request extends Body {
    constructor(input, init = {}) {
      const from = input instanceof Request ? input : null;
      const url = from ? from.url : new URL(String(input)).href;
      let method = init.method !== undefined ? String(init.method) : from ? from.method : "GET";
      if (METHODS.has(method.toUpperCase())) method = method.toUpperCase();
      const { bytes, type } = init.body !== undefined ? extract(init.body) : { bytes: from ? from._bytes : null, type: null };
      if (bytes !== null && (method === "GET" || method === "HEAD")) throw new TypeError("Request with GET/HEAD method cannot have body.");
      super(bytes);
      this.url = url;
      this.method = method;
      this.headers = new Headers(init.headers !== undefined ? init.headers : from ? from.headers : undefined);
      if (type && !this.headers.has("content-type")) this.headers.set("content-type", type);
      this.signal = init.signal !== undefined ? init.signal : from ? from.signal : null;
      this.redirect = init.redirect || (from ? from.redirect : "follow");
      this.credentials = init.credentials || "same-origin";
      this.mode = init.mode || "cors";
      this.cache = init.cache || "default";
      this.keepalive = !!init.keepalive;
    }
    clone() {
      if (this._used) throw new TypeError("Request.clone: Body has already been consumed.");
      return new Request(this);
    }
    get [Symbol.toStringTag]() {
      return "Request";
    }
  }

  class Response extends Body {
    constructor(body = null, init = {}) {
      const { bytes, type } = extract(body);
      super(bytes);
      const status = init.status === undefined ? 200 : Number(init.status);
      if (!(status >= 200 && status <= 599)) throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`);
      this.status = status;
      this.statusText = init.statusText === undefined ? "" : String(init.statusText);
      this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
      if (type && !this.headers.has("content-type")) this.headers.set("content-type", type);
      this.type = "default";
      this.url = "";
      this.redirected = false;
    }
    get ok() {
      return this.status >= 200 && this.status <= 299;
    }
    clone() {
      if (this._used) throw new TypeError("Response.clone: Body has already been consumed.");
      const r = new Response(this._bytes, { status: this.status, statusText: this.statusText, headers: new Headers(this.headers) });
      Object.assign(r, { type: this.type, url: this.url, redirected: this.redirected });
      return r;
    }
    static json(data, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
      return new Response(JSON.stringify(data), { ...init, headers });
    }
    static error() {
      const r = new Response(null, { status: 200 });
      r.status = 0;
      r.type = "error";
      return r;
    }
    static redirect(url, status = 302) {
      if (![301, 302, 303, 307, 308].includes(status)) throw new RangeError("Invalid status code " + status);
      return new Response(null, { status, headers: { location: new URL(String(url)).href } });
    }
    get [Symbol.toStringTag]() {
      return "Response";
    }
  }

  const abortReason = (signal) => {
    const r = signal.reason;
    if (r !== undefined) return r;
    return new DOMException("This operation was aborted", "AbortError");
  };

  function fetch(input, init) {
    let req;
    try {
      req = new Request(input, init);
    } catch (e) {
      return Promise.reject(e);
    }
    const signal = req.signal;
    if (signal && signal.aborted) return Promise.reject(abortReason(signal));
    let token = 0;
    let onAbort = null;
    if (signal && typeof signal.addEventListener === "function") {
      token = native.newToken();
      onAbort = () => native.cancel(token);
      signal.addEventListener("abort", onAbort);
    }
    const headers = [];
    for (const [k, v] of req.headers[kList]) headers.push(k, v);
    const b = req._bytes;
    const body = b === null ? undefined : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    const done = () => {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    };
    return web.fetch(req.method, req.url, headers, body, String(req.redirect), token).then(
      (res) => {
        done();
        const pairs = [];
        for (let i = 0; i < res.headers.length; i += 2) pairs.push([res.headers[i], res.headers[i + 1]]);
        const out = new Response(req.method === "HEAD" || [101, 204, 205, 304].includes(res.status) ? null : new Uint8Array(res.body), {
          status: res.status >= 200 && res.status <= 599 ? res.status : 200,
          statusText: res.statusText,
          headers: pairs,
        });
        if (res.status < 200) out.status = res.status;
        out.url = res.url;
        out.redirected = res.redirected;
        out.type = "basic";
        return out;
      },
      (err) => {
        done();
        if (signal && signal.aborted) throw abortReason(signal);
        throw err;
      },
    );
  }

  return { fetch, Headers, Request, Response };
};
