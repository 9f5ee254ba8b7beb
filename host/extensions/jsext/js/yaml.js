// A YAML reader for the front matter of prompts, skills and agents (the
// parts of YAML those use): block maps and sequences by indentation,
// plain, single- and double-quoted scalars, flow sequences and maps,
// literal (|) and folded (>) block scalars, comments. Plain scalars become
// numbers, booleans and null as YAML 1.2's core schema says. What it does
// not read (anchors, tags, multi-document streams) is an error naming the
// line, as a YAML parser's would be.
"use strict";

class YAMLError extends Error {
  constructor(message, line) {
    super(line === undefined ? message : `${message} at line ${line + 1}`);
    this.name = "YAMLParseError";
  }
}

function plainScalar(s) {
  if (s === "" || s === "~" || s === "null" || s === "Null" || s === "NULL") return null;
  if (/^(true|True|TRUE)$/.test(s)) return true;
  if (/^(false|False|FALSE)$/.test(s)) return false;
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.slice(2), 16);
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.slice(2), 8);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return parseFloat(s);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) return s[0] === "-" ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(s)) return NaN;
  return s;
}

const escapes = { 0: "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\u0085", _: "\u00a0" };

// readQuoted reads the quoted scalar starting at s[i]; returns [value, end].
function readQuoted(s, i, line) {
  const q = s[i];
  let out = "";
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (q === "'" && c === "'") {
      if (s[j + 1] === "'") {
        out += "'";
        j++;
        continue;
      }
      return [out, j + 1];
    }
    if (q === '"' && c === '"') return [out, j + 1];
    if (q === '"' && c === "\\") {
      const e = s[j + 1];
      if (e === "x" || e === "u" || e === "U") {
        const n = { x: 2, u: 4, U: 8 }[e];
        const hex = s.slice(j + 2, j + 2 + n);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) throw new YAMLError("bad escape in a double-quoted scalar", line);
        out += String.fromCodePoint(parseInt(hex, 16));
        j += 1 + n;
        continue;
      }
      if (!(e in escapes)) throw new YAMLError("bad escape in a double-quoted scalar", line);
      out += escapes[e];
      j++;
      continue;
    }
    out += c;
  }
  throw new YAMLError("unterminated quoted scalar", line);
}

// stripComment drops a comment (a # at the start or after whitespace)
// outside quotes.
function stripComment(s) {
  let q = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = "";
      else if (q === '"' && c === "\\") i++;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s,[{:]/.test(s[i - 1])) q = c;
    } else if (c === "#" && (i === 0 || /\s/.test(s[i - 1]))) {
      return s.slice(0, i).trimEnd();
    }
  }
  return s.trimEnd();
}

// flow reads a flow collection or scalar at s[i] (inside [ ] or { }).
function flow(s, i, line) {
  const skip = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const value = () => {
    skip();
    const c = s[i];
    if (c === "[") {
      i++;
      const out = [];
      for (;;) {
        skip();
        if (s[i] === "]") {
          i++;
          return out;
        }
        out.push(value());
        skip();
        if (s[i] === ",") i++;
        else if (s[i] !== "]") throw new YAMLError("expected , or ] in a flow sequence", line);
      }
    }
    if (c === "{") {
      i++;
      const out = {};
      for (;;) {
        skip();
        if (s[i] === "}") {
          i++;
          return out;
        }
        const k = value();
        skip();
        let v = null;
        if (s[i] === ":") {
          i++;
          v = value();
          skip();
        }
        out[String(k)] = v;
        if (s[i] === ",") i++;
        else if (s[i] !== "}") throw new YAMLError("expected , or } in a flow map", line);
      }
    }
    if (c === '"' || c === "'") {
      const [v, end] = readQuoted(s, i, line);
      i = end;
      return v;
    }
    const start = i;
    while (i < s.length && !/[,\]}]/.test(s[i]) && !(s[i] === ":" && (i + 1 >= s.length || /[\s,\]}]/.test(s[i + 1])))) i++;
    return plainScalar(s.slice(start, i).trim());
  };
  const v = value();
  return [v, i];
}

// keyOf splits "key: rest" (the key plain or quoted); null when the text
// is not a map entry.
function keyOf(s, line) {
  if (s[0] === '"' || s[0] === "'") {
    const [k, end] = readQuoted(s, 0, line);
    const rest = s.slice(end);
    if (/^\s*:(\s|$)/.test(rest)) return [k, rest.replace(/^\s*:/, "").trim()];
    return null;
  }
  const m = /^([^#\s:[\]{},][^:]*?|[^#\s[\]{},]):(\s+|$)(.*)$/.exec(s);
  if (!m || /^[-?]\s/.test(s)) return null;
  return [m[1].trim(), m[3]];
}

function parseYAML(source) {
  const lines = String(source).replace(/\r\n?/g, "\n").split("\n");
  let n = 0; // the next line
  const indentOf = (l) => /^ */.exec(l)[0].length;
  const blank = (l) => stripComment(l).trim() === "";
  const nextContent = () => {
    while (n < lines.length && (blank(lines[n]) || /^(---|\.\.\.)\s*$/.test(lines[n]))) {
      if (/^(---|\.\.\.)\s*$/.test(lines[n]) && n > 0) throw new YAMLError("more than one document", n);
      n++;
    }
    return n < lines.length;
  };

  // blockScalar reads the lines of a | or > scalar more indented than
  // parent.
  function blockScalar(header, parent) {
    const folded = header[0] === ">";
    const chomp = /-/.test(header) ? "strip" : /\+/.test(header) ? "keep" : "clip";
    const body = [];
    let indent = -1;
    while (n < lines.length) {
      const l = lines[n];
      if (l.trim() === "") {
        body.push("");
        n++;
        continue;
      }
      const ind = indentOf(l);
      if (ind <= parent) break;
      if (indent < 0) indent = ind;
      if (ind < indent) break;
      body.push(l.slice(indent));
      n++;
    }
    let trailing = 0;
    while (body.length && body[body.length - 1] === "") {
      body.pop();
      trailing++;
    }
    let out;
    if (folded) {
      out = "";
      for (let i = 0; i < body.length; i++) {
        const l = body[i];
        if (i === 0) out = l;
        else if (l === "" || /^\s/.test(l) || body[i - 1] === "" || /^\s/.test(body[i - 1])) out += "\n" + l;
        else out += " " + l;
      }
      out = out.replace(/\n(?=[^\n\s])/g, (m, off) => (out[off - 1] === "\n" ? "" : m));
    } else out = body.join("\n");
    if (chomp === "strip" || body.length === 0) return out;
    return out + "\n" + (chomp === "keep" ? "\n".repeat(trailing) : "");
  }

  // inlineValue reads the value after "key:" or "- " on line `at`, which
  // may continue on the next, more indented lines.
  function inlineValue(rest, parent, at) {
    const v = stripComment(rest).trim();
    if (v === "") {
      if (!nextContent()) return null;
      const ind = indentOf(lines[n]);
      const isSeq = /^-(\s|$)/.test(lines[n].slice(ind));
      if (ind > parent || (isSeq && ind === parent)) return block(ind);
      return null;
    }
    if (v[0] === "|" || v[0] === ">") {
      if (!/^[|>][-+0-9]*$/.test(v)) throw new YAMLError("bad block scalar header", at);
      return blockScalar(v, parent);
    }
    if (v[0] === "&" || v[0] === "*" || v[0] === "!") throw new YAMLError("anchors, aliases and tags are not supported", at);
    if (v[0] === "[" || v[0] === "{") {
      let s = v;
      // A flow collection may span lines.
      for (;;) {
        try {
          const [val, end] = flow(s, 0, at);
          if (s.slice(end).trim() !== "") throw new YAMLError("text after a flow collection", at);
          return val;
        } catch (e) {
          if (n >= lines.length || indentOf(lines[n]) <= parent || !/expected|unterminated/.test(e.message)) throw e;
          s += " " + stripComment(lines[n]).trim();
          n++;
        }
      }
    }
    if (v[0] === '"' || v[0] === "'") {
      let s = v;
      for (;;) {
        try {
          const [val, end] = readQuoted(s, 0, at);
          if (stripComment(s.slice(end)).trim() !== "") throw new YAMLError("text after a quoted scalar", at);
          return val;
        } catch (e) {
          if (n >= lines.length || !/unterminated/.test(e.message)) throw e;
          s += " " + lines[n].trim();
          n++;
        }
      }
    }
    // A plain scalar continues on more indented lines.
    let s = v;
    while (n < lines.length && !blank(lines[n]) && indentOf(lines[n]) > parent && !keyOf(lines[n].trim(), n)) {
      s += " " + stripComment(lines[n]).trim();
      n++;
    }
    return plainScalar(s);
  }

  // block reads the map or sequence whose entries start at column indent.
  function block(indent) {
    nextContent();
    const first = lines[n].slice(indent);
    if (/^-(\s|$)/.test(first)) {
      const out = [];
      while (nextContent() && indentOf(lines[n]) === indent && /^-(\s|$)/.test(lines[n].slice(indent))) {
        const at = n;
        const item = lines[n].slice(indent + 1);
        const inner = indent + 1 + indentOf(item);
        n++;
        if (keyOf(item.trim(), at) && item.trim() !== "") {
          // "- key: value": a map whose entries are at the item's column.
          lines[at] = " ".repeat(inner) + item.trim();
          n = at;
          out.push(block(inner));
        } else out.push(inlineValue(item, indent, at));
      }
      if (n < lines.length && nextContent() && indentOf(lines[n]) > indent) throw new YAMLError("bad indentation", n);
      return out;
    }
    const out = {};
    while (nextContent() && indentOf(lines[n]) === indent) {
      const at = n;
      const text = lines[n].slice(indent);
      if (/^-(\s|$)/.test(text)) throw new YAMLError("a sequence item where a map entry was expected", at);
      const kv = keyOf(text, at);
      if (!kv) throw new YAMLError("expected a map entry (key: value)", at);
      n++;
      if (Object.prototype.hasOwnProperty.call(out, kv[0])) throw new YAMLError(`duplicate key "${kv[0]}"`, at);
      out[kv[0]] = inlineValue(kv[1], indent, at);
    }
    if (n < lines.length && nextContent() && indentOf(lines[n]) > indent) throw new YAMLError("bad indentation", n);
    return out;
  }

  if (!nextContent()) return null;
  const ind = indentOf(lines[n]);
  const head = lines[n].slice(ind);
  if (!/^-(\s|$)/.test(head) && !keyOf(head, n)) {
    // A lone scalar document.
    const at = n;
    n++;
    const v = inlineValue(head, -1, at);
    if (nextContent()) throw new YAMLError("unexpected text after a scalar", n);
    return v;
  }
  const v = block(ind);
  if (nextContent()) throw new YAMLError("bad indentation", n);
  return v;
}

module.exports = { parseYAML, YAMLError };
