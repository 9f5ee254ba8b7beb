// The library part of pi's coding agent package (pi 1.6's exports beyond
// the extension API): front matter, paths, the token and compaction
// helpers, sessions as JSONL files (SessionManager), the settings files
// (SettingsManager), the event bus, and the names atomic does not provide
// yet, which exist and fail with an Error naming what is unsupported.
// agent.js re-exports all of it. Shared by both script runtimes: goja
// loads it with its node: modules, Node with its own built-ins.
"use strict";

const native = require("atomic:internal");
const { parseYAML } = require("atomic:yaml");

// nodeBuiltin returns a Node built-in module: Node's own (the Node
// runtime's stand-ins have no require of their own for them) or goja's.
function nodeBuiltin(name) {
  if (typeof process === "object" && process && typeof process.getBuiltinModule === "function") {
    const m = process.getBuiltinModule(name);
    if (m) return m;
  }
  return require(name);
}
const fs = () => nodeBuiltin("node:fs");
const path = () => nodeBuiltin("node:path");

// --- not supported yet ----------------------------------------------------------
const unsupportedText = (name, why) => `${name} is not supported by atomic yet${why ? `: ${why}` : ""}`;
function unsupported(name, why) {
  const f = function () {
    throw new Error(unsupportedText(`${name}()`, why));
  };
  Object.defineProperty(f, "name", { value: name });
  return f;
}
function unsupportedClass(name, why) {
  const C = class {
    constructor() {
      throw new Error(unsupportedText(`new ${name}()`, why));
    }
  };
  Object.defineProperty(C, "name", { value: name });
  return C;
}

// --- front matter ------------------------------------------------------------
function extractFrontmatter(content) {
  const text = String(content).replace(/^\uFEFF/, "").replace(/\r\n/g, "\n").replace(/\r/g, "\n");
  if (!text.startsWith("---")) return { yaml: null, body: text };
  const end = text.indexOf("\n---", 3);
  if (end === -1) return { yaml: null, body: text };
  return { yaml: text.slice(4, end), body: text.slice(end + 4).trim() };
}
function parseFrontmatter(content) {
  const { yaml, body } = extractFrontmatter(content);
  if (!yaml) return { frontmatter: {}, body };
  const parsed = parseYAML(yaml);
  return { frontmatter: parsed === null || parsed === undefined ? {} : parsed, body };
}
const stripFrontmatter = (content) => parseFrontmatter(content).body;

// --- paths -------------------------------------------------------------------
// The agent's install directory: PI_PACKAGE_DIR when set, else the
// directory of atomic's executable (process.execPath in goja; the Node
// runtime's host passes it as ATOMIC_PACKAGE_DIR, its execPath is Node's).
function getPackageDir() {
  const env = process.env.PI_PACKAGE_DIR;
  if (env) return resolvePath(env);
  if (process.env.ATOMIC_PACKAGE_DIR) return process.env.ATOMIC_PACKAGE_DIR;
  return path().dirname(String(process.execPath || ""));
}
const getReadmePath = () => path().resolve(path().join(getPackageDir(), "README.md"));
const getDocsPath = () => path().resolve(path().join(getPackageDir(), "docs"));
const getExamplesPath = () => path().resolve(path().join(getPackageDir(), "examples"));
const getAgentDir = () => native.agentDir;

// --- ids ---------------------------------------------------------------------
const randomUUID = () => nodeBuiltin("node:crypto").randomUUID();
function uuidv7() {
  const hex = randomUUID().replace(/-/g, "");
  const ms = Date.now().toString(16).padStart(12, "0").slice(-12);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = ms + "7" + hex.slice(13, 16) + variant + hex.slice(17, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
function shortId(byId) {
  for (let i = 0; i < 100; i++) {
    const id = randomUUID().slice(0, 8);
    if (!byId.has(id)) return id;
  }
  return randomUUID();
}

// --- messages as the model sees them ------------------------------------------
// pi's wording, as host/llm/convert.go's (the Go side converts the agent's
// own transcript; this one converts what an extension hands over).
const BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUMMARY_SUFFIX = "</summary>";
const COMPACTION_SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";

function bashExecutionToText(m) {
  let text = `Ran \`${m.command}\`\n`;
  text += m.output ? "```\n" + m.output + "\n```" : "(no output)";
  if (m.cancelled) text += "\n\n(command cancelled)";
  else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0) text += `\n\nCommand exited with code ${m.exitCode}`;
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
  return text;
}

const userText = (text, timestamp) => ({ role: "user", content: [{ type: "text", text }], timestamp });

// convertToLlm turns the coding agent's messages into the user, assistant
// and toolResult messages a model takes: shell executions, custom messages
// and summaries become user messages; other roles are dropped.
function convertToLlm(messages) {
  const out = [];
  for (const m of Array.from(messages || [])) {
    if (!m) continue;
    switch (m.role) {
      case "bashExecution":
        if (!m.excludeFromContext) out.push(userText(bashExecutionToText(m), m.timestamp));
        break;
      case "custom":
        out.push({ role: "user", content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content, timestamp: m.timestamp });
        break;
      case "branchSummary":
        out.push(userText(BRANCH_SUMMARY_PREFIX + m.summary + BRANCH_SUMMARY_SUFFIX, m.timestamp));
        break;
      case "compactionSummary":
        out.push(userText(COMPACTION_SUMMARY_PREFIX + m.summary + COMPACTION_SUMMARY_SUFFIX, m.timestamp));
        break;
      case "system":
      case "user":
      case "assistant":
      case "toolResult":
        out.push(m);
    }
  }
  return out;
}

// userMessage is a prompt's text and images as a user message.
function userMessage(text, images) {
  const content = [{ type: "text", text: String(text) }];
  for (const img of images || []) content.push(img);
  return { role: "user", content, timestamp: Date.now() };
}

// --- text helpers ------------------------------------------------------------
function contentText(content, separator) {
  if (typeof content === "string") return content;
  return Array.from(content || [])
    .filter((b) => b && b.type === "text")
    .map((b) => b.text)
    .join(separator === undefined ? "\n" : separator);
}
const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;
function sliceHead(text, max) {
  const end = Math.max(0, max);
  return isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end)) ? text.slice(0, end - 1) : text.slice(0, end);
}
function truncateLine(line, maxChars) {
  const max = maxChars === undefined ? 500 : maxChars;
  const s = String(line);
  if (s.length <= max) return { text: s, wasTruncated: false };
  return { text: `${sliceHead(s, max)}... [truncated]`, wasTruncated: true };
}
const escapeXml = (s) =>
  String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
function formatSkillsForPrompt(skills, fileReadTool) {
  const tool = fileReadTool === undefined ? "read" : fileReadTool;
  const visible = Array.from(skills || []).filter((s) => !s.disableModelInvocation);
  if (visible.length === 0) return "";
  const lines = [
    "\n\nThe following skills provide specialized instructions for specific tasks.",
    tool === "read"
      ? "Use the read tool to load a skill's file when the task matches its description."
      : tool === "bash"
        ? "Use bash to load a skill's file when the task matches its description."
        : "Load a skill's file when the task matches its description.",
    "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.",
    "",
    "<available_skills>",
  ];
  for (const s of visible) {
    lines.push("  <skill>", `    <name>${escapeXml(s.name)}</name>`, `    <description>${escapeXml(s.description)}</description>`);
    lines.push(`    <location>${escapeXml(s.filePath)}</location>`, "  </skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
function formatReadLineRange(offset, limit) {
  if (offset === undefined && limit === undefined) return "";
  const start = offset === undefined ? 1 : offset;
  return limit === undefined ? `:${start}` : `:${start}-${start + limit - 1}`;
}

// --- session entries -----------------------------------------------------------
const CURRENT_SESSION_VERSION = 3;

function migrateToCurrentVersion(entries) {
  const header = entries.find((e) => e.type === "session");
  const version = (header && header.version) || 1;
  if (version >= CURRENT_SESSION_VERSION) return false;
  if (version < 2) {
    const ids = new Set();
    let prev = null;
    for (const e of entries) {
      if (e.type === "session") {
        e.version = 2;
        continue;
      }
      e.id = shortId(ids);
      ids.add(e.id);
      e.parentId = prev;
      prev = e.id;
      if (e.type === "compaction" && typeof e.firstKeptEntryIndex === "number") {
        const target = entries[e.firstKeptEntryIndex];
        if (target && target.type !== "session") e.firstKeptEntryId = target.id;
        delete e.firstKeptEntryIndex;
      }
    }
  }
  for (const e of entries) {
    if (e.type === "session") e.version = 3;
    else if (e.type === "message" && e.message && e.message.role === "hookMessage") e.message.role = "custom";
  }
  return true;
}
function migrateSessionEntries(entries) {
  migrateToCurrentVersion(entries);
}
function parseLine(line) {
  if (!line.trim()) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
function parseSessionEntries(content) {
  const out = [];
  for (const line of String(content).trim().split("\n")) {
    const e = parseLine(line);
    if (e) out.push(e);
  }
  return out;
}
function getLatestCompactionEntry(entries) {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].type === "compaction") return entries[i];
  return null;
}
const ms = (ts) => new Date(ts).getTime();
function sessionEntryToContextMessages(entry) {
  if (entry.type === "message") {
    const m = entry.message;
    if (m.role === "system" && m.content == null) return [Object.assign({}, m, { content: "" })];
    if ((m.role === "user" || m.role === "assistant" || m.role === "toolResult") && m.content == null) {
      return [Object.assign({}, m, { content: [] })];
    }
    return [m];
  }
  if (entry.type === "custom_message") {
    return [{ role: "custom", customType: entry.customType, content: entry.content || [], display: entry.display, details: entry.details, timestamp: ms(entry.timestamp) }];
  }
  if (entry.type === "branch_summary" && entry.summary) {
    return [{ role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: ms(entry.timestamp) }];
  }
  if (entry.type === "compaction") {
    const summary = { role: "compactionSummary", summary: entry.summary, tokensBefore: entry.tokensBefore, timestamp: ms(entry.timestamp) };
    return entry.systemMessage ? [entry.systemMessage, summary] : [summary];
  }
  return [];
}
function sessionPath(entries, leafId, byId) {
  const index = byId || new Map(entries.map((e) => [e.id, e]));
  if (leafId === null) return [];
  let leaf = leafId ? index.get(leafId) : undefined;
  if (!leaf) leaf = entries[entries.length - 1];
  const out = [];
  const seen = new Set();
  for (let cur = leaf; cur && !seen.has(cur.id); cur = cur.parentId ? index.get(cur.parentId) : undefined) {
    seen.add(cur.id);
    out.push(cur);
  }
  return out.reverse();
}
function buildContextEntries(entries, leafId, byId) {
  const p = sessionPath(entries, leafId, byId);
  let compaction = null;
  for (const e of p) if (e.type === "compaction") compaction = e;
  if (!compaction) return p;
  const at = p.findIndex((e) => e.id === compaction.id);
  const out = [compaction];
  let kept = false;
  for (let i = 0; i < at; i++) {
    const e = p[i];
    if (e.id === compaction.firstKeptEntryId) kept = true;
    if (kept && !(e.type === "message" && e.message.role === "system")) out.push(e);
  }
  return out.concat(p.slice(at + 1));
}
function projectEntry(entry, edit) {
  const messages = sessionEntryToContextMessages(entry);
  if (!edit) return messages;
  const r = edit.replacement;
  if (r === null) return [];
  return messages.map((m) => {
    if (!["user", "assistant", "toolResult", "custom"].includes(m.role)) return m;
    const content = (m.role === "assistant" || m.role === "toolResult") && typeof r.content === "string" ? [{ type: "text", text: r.content }] : r.content;
    return Object.assign({}, m, { content });
  });
}
function buildSessionProjection(entries, leafId, byId) {
  const p = sessionPath(entries, leafId, byId);
  let thinkingLevel = "off";
  let model = null;
  for (const e of p) {
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel;
    else if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId };
    else if (e.type === "message" && e.message.role === "assistant") model = { provider: e.message.provider, modelId: e.message.model };
  }
  const ctx = buildContextEntries(entries, leafId, byId);
  const edits = new Map();
  for (const e of ctx) if (e.type === "context_edit") edits.set(e.targetId, e);
  const projected = ctx.map((sourceEntry, i) => ({
    sourceEntry,
    messages: sourceEntry.type === "compaction" && i > 0 ? [] : projectEntry(sourceEntry, edits.get(sourceEntry.id)),
  }));
  return { entries: projected, messages: [].concat(...projected.map((e) => e.messages)), thinkingLevel, model };
}
function buildSessionContext(entries, leafId, byId) {
  const { messages, thinkingLevel, model } = buildSessionProjection(entries, leafId, byId);
  return { messages, thinkingLevel, model };
}

// --- tokens and compaction -----------------------------------------------------
const DEFAULT_COMPACTION_SETTINGS = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };
const calculateContextTokens = (u) => u.totalTokens || u.input + u.output + u.cacheRead + u.cacheWrite;
function assistantUsage(m) {
  if (m && m.role === "assistant" && m.usage && m.stopReason !== "aborted" && m.stopReason !== "error" && calculateContextTokens(m.usage) > 0) return m.usage;
  return undefined;
}
function getLastAssistantUsage(entries) {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].type === "message") {
      const u = assistantUsage(entries[i].message);
      if (u) return u;
    }
  }
  return undefined;
}
const shouldCompact = (contextTokens, contextWindow, settings) => !!settings.enabled && contextTokens > contextWindow - settings.reserveTokens;
function contentChars(content) {
  if (typeof content === "string") return content.length;
  let n = 0;
  for (const b of content || []) {
    if (b.type === "text" && b.text) n += b.text.length;
    else if (b.type === "image") n += 4800;
  }
  return n;
}
function estimateTokens(m) {
  let n = 0;
  switch (m.role) {
    case "system":
      n = contentChars(m.content);
      for (const s of Object.values(m.sections || {})) if (s) n += s.length;
      if (m.toolsAdded) n += JSON.stringify(m.toolsAdded).length;
      break;
    case "user":
    case "custom":
    case "toolResult":
      n = contentChars(m.content);
      break;
    case "assistant":
      for (const b of m.content || []) {
        if (b.type === "text") n += b.text.length;
        else if (b.type === "thinking") n += b.thinking.length;
        else if (b.type === "toolCall") n += b.name.length + JSON.stringify(b.arguments).length;
      }
      break;
    case "bashExecution":
      n = m.command.length + m.output.length;
      break;
    case "branchSummary":
    case "compactionSummary":
      n = m.summary.length;
      break;
    default:
      return 0;
  }
  return Math.ceil(n / 4);
}
const cutRoles = new Set(["user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"]);
const turnRoles = new Set(["user", "bashExecution", "custom", "branchSummary", "compactionSummary"]);
const startsTurn = (e) => e.type !== "compaction" && sessionEntryToContextMessages(e).some((m) => turnRoles.has(m.role));
function findTurnStartIndex(entries, entryIndex, startIndex) {
  for (let i = entryIndex; i >= startIndex; i--) if (startsTurn(entries[i])) return i;
  return -1;
}
function findCutPoint(entries, startIndex, endIndex, keepRecentTokens) {
  const cuts = [];
  for (let i = startIndex; i < endIndex; i++) {
    const e = entries[i];
    if (e.type !== "compaction" && sessionEntryToContextMessages(e).some((m) => cutRoles.has(m.role))) cuts.push(i);
  }
  if (cuts.length === 0) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };
  let acc = 0;
  let cut = cuts[0];
  for (let i = endIndex - 1; i >= startIndex; i--) {
    const t = sessionEntryToContextMessages(entries[i]).reduce((s, m) => s + estimateTokens(m), 0);
    if (t === 0) continue;
    acc += t;
    if (acc >= keepRecentTokens) {
      const c = cuts.find((x) => x >= i);
      cut = c === undefined ? cuts[cuts.length - 1] : c;
      break;
    }
  }
  while (cut > startIndex) {
    const prev = entries[cut - 1];
    if (prev.type === "compaction" || sessionEntryToContextMessages(prev).length > 0) break;
    cut--;
  }
  const starts = startsTurn(entries[cut]);
  const turnStartIndex = starts ? -1 : findTurnStartIndex(entries, cut, startIndex);
  return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: !starts && turnStartIndex !== -1 };
}
function serializeConversation(messages) {
  const parts = [];
  for (const m of messages) {
    if (m.role === "user") {
      const c = contentText(m.content, "");
      if (c) parts.push(`[User]: ${c}`);
    } else if (m.role === "assistant") {
      const calls = [];
      for (const b of m.content) {
        if (b.type === "toolCall") {
          const args = Object.entries(b.arguments)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(", ");
          calls.push(`${b.name}(${args})`);
        }
      }
      if (m.content.some((b) => b.type === "text")) parts.push(`[Assistant]: ${contentText(m.content)}`);
      if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
    } else if (m.role === "toolResult") {
      const c = contentText(m.content, "");
      if (c) parts.push(`[Tool result]: ${c.length <= 2000 ? c : `${sliceHead(c, 2000)}\n\n[... ${c.length - 2000} more characters truncated]`}`);
    }
  }
  return parts.join("\n\n");
}

// --- SessionManager --------------------------------------------------------------
// pi's sessions as a library: a conversation tree kept in memory and, when
// persisted, in a JSONL file of pi's format (a session header line, then
// one entry a line; written once the conversation has a user or assistant
// message, appended to after).
const resolvePath = (p) => path().resolve(String(p).replace(/^~(?=$|[\\/])/, () => nodeBuiltin("node:os").homedir()));
function defaultSessionDir(cwd) {
  const safe = `--${resolvePath(cwd).replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
  return path().join(resolvePath(getAgentDir()), "sessions", safe);
}
function ensureDir(dir) {
  if (!fs().existsSync(dir)) fs().mkdirSync(dir, { recursive: true });
  return dir;
}
function loadEntriesFromFile(file) {
  if (!fs().existsSync(file)) return [];
  const text = String(fs().readFileSync(file, "utf8"));
  const entries = [];
  for (const line of text.split("\n")) {
    const e = parseLine(line);
    if (e) entries.push(e);
  }
  if (entries.length === 0) return entries;
  if (entries[0].type !== "session" || typeof entries[0].id !== "string") return [];
  if (text.length && !text.endsWith("\n")) fs().appendFileSync(file, "\n");
  return entries;
}
function readHeader(file) {
  try {
    const text = String(fs().readFileSync(file, "utf8"));
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const e = parseLine(line);
      return e && e.type === "session" && typeof e.id === "string" ? e : null;
    }
  } catch {}
  return null;
}
const validSessionId = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

class SessionManager {
  constructor(cwd, sessionDir, sessionFile, persist, options, entries) {
    this.cwd = resolvePath(cwd);
    this.sessionDir = sessionDir ? resolvePath(sessionDir) : "";
    this.persist = !!persist;
    this.flushed = false;
    this.fileEntries = [];
    this.byId = new Map();
    this.labelsById = new Map();
    this.labelTimestampsById = new Map();
    this.leafId = null;
    this.sessionId = "";
    this.sessionFile = undefined;
    if (this.persist && this.sessionDir) ensureDir(this.sessionDir);
    if (sessionFile) this._setSessionFile(sessionFile, entries);
    else if (entries && entries.length) this._loadEntries(entries, options);
    else this.newSession(options);
  }
  setSessionFile(file) {
    this._setSessionFile(file);
  }
  _setSessionFile(file, preloaded) {
    this.sessionFile = resolvePath(file);
    if (!fs().existsSync(this.sessionFile)) {
      const explicit = this.sessionFile;
      this.newSession();
      this.sessionFile = explicit;
      return;
    }
    const entries = preloaded || loadEntriesFromFile(this.sessionFile);
    if (entries.length === 0) {
      const explicit = this.sessionFile;
      if (fs().statSync(explicit).size > 0) throw new Error(`Session file is not a valid pi session: ${explicit}`);
      this.newSession();
      this.sessionFile = explicit;
      this._rewriteFile();
      this.flushed = true;
      return;
    }
    this._loadEntries(entries);
    this.flushed = true;
  }
  newSession(options) {
    const o = options || {};
    if (o.id !== undefined && !validSessionId.test(String(o.id))) {
      throw new Error(
        "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character",
      );
    }
    this.sessionId = o.id === undefined ? uuidv7() : String(o.id);
    const timestamp = new Date().toISOString();
    this.fileEntries = [{ type: "session", version: CURRENT_SESSION_VERSION, id: this.sessionId, timestamp, cwd: this.cwd, parentSession: o.parentSession }];
    this.byId.clear();
    this.labelsById.clear();
    this.labelTimestampsById.clear();
    this.leafId = null;
    this.flushed = false;
    if (this.persist) this.sessionFile = path().join(this.getSessionDir(), `${timestamp.replace(/[:.]/g, "-")}_${this.sessionId}.jsonl`);
    return this.sessionFile;
  }
  _loadEntries(entries, options) {
    const header = entries.find((e) => e.type === "session");
    if (header) {
      this.fileEntries = entries;
      this.sessionId = header.id;
      if (migrateToCurrentVersion(this.fileEntries)) this._rewriteFile();
    } else {
      this.newSession(options);
      this.fileEntries = this.fileEntries.concat(entries);
    }
    this._buildIndex();
  }
  _buildIndex() {
    this.byId.clear();
    this.labelsById.clear();
    this.labelTimestampsById.clear();
    this.leafId = null;
    for (const e of this.fileEntries) {
      if (e.type === "session") continue;
      this.byId.set(e.id, e);
      this.leafId = e.id;
      if (e.type === "label") this._label(e.targetId, e.label, e.timestamp);
    }
  }
  _label(target, label, ts) {
    if (label) {
      this.labelsById.set(target, label);
      this.labelTimestampsById.set(target, ts);
    } else {
      this.labelsById.delete(target);
      this.labelTimestampsById.delete(target);
    }
  }
  _rewriteFile() {
    if (!this.persist || !this.sessionFile) return;
    fs().writeFileSync(this.sessionFile, this.fileEntries.map((e) => `${JSON.stringify(e)}\n`).join(""));
  }
  _hasConversation() {
    return this.fileEntries.some((e) => e.type === "message" && (e.message.role === "user" || e.message.role === "assistant"));
  }
  _persist(entry) {
    if (!this.persist || !this.sessionFile) return;
    if (this.flushed) {
      fs().appendFileSync(this.sessionFile, `${JSON.stringify(entry)}\n`);
      return;
    }
    if (!this._hasConversation()) return;
    if (fs().existsSync(this.sessionFile)) throw new Error(`EEXIST: file already exists, open '${this.sessionFile}'`);
    fs().writeFileSync(this.sessionFile, this.fileEntries.map((e) => `${JSON.stringify(e)}\n`).join(""));
    this.flushed = true;
  }
  _append(fields) {
    const entry = Object.assign({ type: fields.type, id: shortId(this.byId), parentId: this.leafId, timestamp: new Date().toISOString() }, fields);
    const prevLeaf = this.leafId;
    this.fileEntries.push(entry);
    this.byId.set(entry.id, entry);
    this.leafId = entry.id;
    try {
      this._persist(entry);
    } catch (e) {
      this.fileEntries.pop();
      this.byId.delete(entry.id);
      this.leafId = prevLeaf;
      throw e;
    }
    return entry;
  }
  isPersisted() {
    return this.persist;
  }
  getCwd() {
    return this.cwd;
  }
  getSessionDir() {
    return this.sessionDir;
  }
  usesDefaultSessionDir() {
    return this.sessionDir === defaultSessionDir(this.cwd);
  }
  getSessionId() {
    return this.sessionId;
  }
  getSessionFile() {
    return this.sessionFile;
  }
  appendMessage(message) {
    return this._append({ type: "message", message }).id;
  }
  appendThinkingLevelChange(thinkingLevel) {
    return this._append({ type: "thinking_level_change", thinkingLevel }).id;
  }
  appendModelChange(provider, modelId) {
    return this._append({ type: "model_change", provider, modelId }).id;
  }
  appendUsage(kind, provider, model, usage, note) {
    return this._append(Object.assign({ type: "usage", kind, provider, model, usage }, note ? { note } : {}));
  }
  appendCompaction(summary, firstKeptEntryId, tokensBefore, details, fromHook, usage) {
    const id = shortId(this.byId);
    const e = { type: "compaction", id, summary, firstKeptEntryId: firstKeptEntryId === undefined || firstKeptEntryId === null ? id : firstKeptEntryId, tokensBefore };
    Object.assign(e, { details, usage, fromHook });
    return this._append(e).id;
  }
  appendCustomEntry(customType, data) {
    return this._append({ type: "custom", customType, data }).id;
  }
  appendSessionInfo(name) {
    return this._append({ type: "session_info", name: String(name).replace(/[\r\n]+/g, " ").trim() }).id;
  }
  getSessionName() {
    for (let i = this.fileEntries.length - 1; i >= 0; i--) {
      const e = this.fileEntries[i];
      if (e.type === "session_info") return (e.name && e.name.trim()) || undefined;
    }
    return undefined;
  }
  appendCustomMessageEntry(customType, content, display, details) {
    return this._append({ type: "custom_message", customType, content, display, details }).id;
  }
  appendContextEdit(targetId, replacement) {
    if (replacement !== null && (typeof replacement !== "object" || !("content" in replacement) || (typeof replacement.content !== "string" && !Array.isArray(replacement.content)))) {
      throw new Error("Context edit replacement must be null or contain string/array content");
    }
    const target = this.byId.get(targetId);
    if (!target) throw new Error(`Entry ${targetId} not found`);
    if (!this.getBranch().some((e) => e.id === targetId)) throw new Error(`Entry ${targetId} is not on the active branch`);
    const role = target.type === "message" ? target.message.role : target.type === "custom_message" ? "custom" : "";
    if (!["user", "assistant", "toolResult", "custom"].includes(role)) throw new Error(`Entry ${targetId} does not contribute editable model content`);
    const r = replacement !== null && (role === "assistant" || role === "toolResult") && typeof replacement.content === "string" ? { content: [{ type: "text", text: replacement.content }] } : replacement;
    return this._append({ type: "context_edit", targetId, replacement: r }).id;
  }
  getLeafId() {
    return this.leafId;
  }
  getLeafEntry() {
    return this.leafId ? this.byId.get(this.leafId) : undefined;
  }
  getEntry(id) {
    return this.byId.get(id);
  }
  getChildren(parentId) {
    return Array.from(this.byId.values()).filter((e) => e.parentId === parentId);
  }
  getLabel(id) {
    return this.labelsById.get(id);
  }
  appendLabelChange(targetId, label) {
    if (!this.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
    const e = this._append({ type: "label", targetId, label });
    this._label(targetId, label, e.timestamp);
    return e.id;
  }
  getBranch(fromId) {
    const start = fromId === undefined ? this.leafId : fromId;
    const out = [];
    const seen = new Set();
    for (let cur = start ? this.byId.get(start) : undefined; cur && !seen.has(cur.id); cur = cur.parentId ? this.byId.get(cur.parentId) : undefined) {
      seen.add(cur.id);
      out.push(cur);
    }
    return out.reverse();
  }
  buildContextEntries() {
    return buildContextEntries(this.getEntries(), this.leafId, this.byId);
  }
  buildSessionProjection() {
    return buildSessionProjection(this.getEntries(), this.leafId, this.byId);
  }
  buildSessionContext() {
    return buildSessionContext(this.getEntries(), this.leafId, this.byId);
  }
  getHeader() {
    return this.fileEntries.find((e) => e.type === "session") || null;
  }
  getEntryCount() {
    return this.byId.size;
  }
  getEntries() {
    return this.fileEntries.filter((e) => e.type !== "session");
  }
  getTree() {
    const entries = this.getEntries();
    const nodes = new Map();
    const roots = [];
    for (const entry of entries) nodes.set(entry.id, { entry, children: [], label: this.labelsById.get(entry.id), labelTimestamp: this.labelTimestampsById.get(entry.id) });
    for (const entry of entries) {
      const node = nodes.get(entry.id);
      const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : nodes.get(entry.parentId);
      (parent ? parent.children : roots).push(node);
    }
    const stack = roots.slice();
    while (stack.length) {
      const node = stack.pop();
      node.children.sort((a, b) => ms(a.entry.timestamp) - ms(b.entry.timestamp));
      stack.push(...node.children);
    }
    return roots;
  }
  branch(fromId) {
    if (!this.byId.has(fromId)) throw new Error(`Entry ${fromId} not found`);
    this.leafId = fromId;
  }
  resetLeaf() {
    this.leafId = null;
  }
  branchWithSummary(fromEntryId, summary, details, fromHook, usage) {
    if (fromEntryId !== null && !this.byId.has(fromEntryId)) throw new Error(`Entry ${fromEntryId} not found`);
    const fromId = this.leafId === null ? "root" : this.leafId;
    this.leafId = fromEntryId;
    return this._append({ type: "branch_summary", parentId: fromEntryId, fromId, summary, details, usage, fromHook }).id;
  }
  createBranchedSession() {
    throw new Error(unsupportedText("SessionManager.createBranchedSession()", "fork with ctx.fork or SessionManager.forkFrom"));
  }
  static create(cwd, sessionDir, options) {
    const dir = sessionDir ? resolvePath(sessionDir) : ensureDir(defaultSessionDir(cwd));
    return new SessionManager(cwd, dir, undefined, true, options);
  }
  static open(file, sessionDir, cwdOverride) {
    const p = resolvePath(file);
    const header = cwdOverride === undefined && fs().existsSync(p) ? readHeader(p) : null;
    const cwd = cwdOverride !== undefined ? cwdOverride : header && typeof header.cwd === "string" ? header.cwd : process.cwd();
    const dir = sessionDir ? resolvePath(sessionDir) : path().dirname(p);
    return new SessionManager(cwd, dir, p, true);
  }
  static continueRecent(cwd, sessionDir) {
    const dir = sessionDir ? resolvePath(sessionDir) : ensureDir(defaultSessionDir(cwd));
    const filter = sessionDir !== undefined && dir !== defaultSessionDir(cwd);
    const recent = sessionFiles(dir)
      .map((p) => ({ p, t: fs().statSync(p).mtimeMs }))
      .sort((a, b) => b.t - a.t)
      .find(({ p }) => {
        const h = readHeader(p);
        return h && (!filter || (typeof h.cwd === "string" && h.cwd !== "" && resolvePath(h.cwd) === resolvePath(cwd)));
      });
    return new SessionManager(cwd, dir, recent ? recent.p : undefined, true);
  }
  static inMemory(cwd, options, entries) {
    return new SessionManager(cwd === undefined ? process.cwd() : cwd, "", undefined, false, options, entries);
  }
  static forkFrom(sourcePath, targetCwd, sessionDir, options) {
    const src = resolvePath(sourcePath);
    const target = resolvePath(targetCwd);
    const entries = loadEntriesFromFile(src);
    if (entries.length === 0) throw new Error(`Cannot fork: source session file is empty or invalid: ${src}`);
    const dir = ensureDir(sessionDir ? resolvePath(sessionDir) : defaultSessionDir(target));
    const o = options || {};
    if (o.id !== undefined && !validSessionId.test(String(o.id))) throw new Error(`invalid session id ${JSON.stringify(o.id)}`);
    const id = o.id === undefined ? uuidv7() : String(o.id);
    const timestamp = new Date().toISOString();
    const file = path().join(dir, `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
    if (fs().existsSync(file)) throw new Error(`EEXIST: file already exists, open '${file}'`);
    const header = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd: target, parentSession: src };
    fs().writeFileSync(file, [header].concat(entries.filter((e) => e.type !== "session")).map((e) => `${JSON.stringify(e)}\n`).join(""));
    return new SessionManager(target, dir, file, true);
  }
  static findById(cwd, id, sessionDir) {
    const dir = sessionDir ? resolvePath(sessionDir) : defaultSessionDir(cwd);
    const filter = sessionDir !== undefined && dir !== defaultSessionDir(cwd);
    for (const p of sessionFiles(dir)) {
      const h = readHeader(p);
      if (h && h.id === id && (!filter || (h.cwd && resolvePath(h.cwd) === resolvePath(cwd)))) return p;
    }
    return undefined;
  }
  static async list(cwd, sessionDir, onProgress) {
    const dir = sessionDir ? resolvePath(sessionDir) : defaultSessionDir(cwd);
    const filter = sessionDir !== undefined && dir !== defaultSessionDir(cwd);
    const all = listSessions(sessionFiles(dir), onProgress);
    return all.filter((s) => !filter || (s.cwd && resolvePath(s.cwd) === resolvePath(cwd)));
  }
  static async listAll(dirOrProgress, progress) {
    if (typeof dirOrProgress === "string") return listSessions(sessionFiles(resolvePath(dirOrProgress)), progress);
    const root = path().join(resolvePath(getAgentDir()), "sessions");
    let files = [];
    try {
      for (const d of fs().readdirSync(root)) files = files.concat(sessionFiles(path().join(root, d)));
    } catch {}
    return listSessions(files, typeof dirOrProgress === "function" ? dirOrProgress : undefined);
  }
}
function sessionFiles(dir) {
  try {
    return fs()
      .readdirSync(dir)
      .filter((f) => String(f).endsWith(".jsonl"))
      .map((f) => path().join(dir, String(f)));
  } catch {
    return [];
  }
}
function sessionInfo(file) {
  let text;
  try {
    text = String(fs().readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  let header = null;
  let count = 0;
  let first = "";
  let name;
  let last;
  const texts = [];
  for (const line of text.split("\n")) {
    const e = parseLine(line);
    if (!e) continue;
    if (!header) {
      if (e.type !== "session") return null;
      header = e;
      continue;
    }
    if (e.type === "session_info") name = (e.name && e.name.trim()) || undefined;
    if (e.type !== "message") continue;
    count++;
    const m = e.message;
    if (!m || typeof m.role !== "string" || !("content" in m) || (m.role !== "user" && m.role !== "assistant")) continue;
    const t = typeof m.timestamp === "number" ? m.timestamp : ms(e.timestamp);
    if (!Number.isNaN(t)) last = Math.max(last || 0, t);
    const s = typeof m.content === "string" ? m.content : contentText(m.content, " ");
    if (!s) continue;
    texts.push(s);
    if (!first && m.role === "user") first = s;
  }
  if (!header) return null;
  const headerTime = typeof header.timestamp === "string" ? ms(header.timestamp) : NaN;
  const modified = last > 0 ? new Date(last) : !Number.isNaN(headerTime) ? new Date(headerTime) : new Date(fs().statSync(file).mtimeMs);
  return {
    path: file,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    name,
    parentSessionPath: header.parentSession,
    created: new Date(header.timestamp),
    modified,
    messageCount: count,
    firstMessage: first || "(no messages)",
    allMessagesText: texts.join(" "),
  };
}
function listSessions(files, onProgress) {
  const out = [];
  files.forEach((f, i) => {
    const s = sessionInfo(f);
    if (s) out.push(s);
    if (typeof onProgress === "function") onProgress(i + 1, files.length);
  });
  return out.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

// --- SettingsManager -------------------------------------------------------------
// The agent's settings files as pi reads them: <agentDir>/settings.json
// (global) and <cwd>/<CONFIG_DIR_NAME>/settings.json (project, when the
// project is trusted), the project's values over the global ones, nested
// objects merged. Setters change the global settings; flush() writes the
// fields changed, read again and merged into the file as it is then.
const CONFIG_DIR_NAME = ".atomic";
const plainObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function deepMerge(base, over) {
  const out = Object.assign({}, base);
  for (const [k, v] of Object.entries(over || {})) {
    if (v === undefined) continue;
    out[k] = plainObject(v) && plainObject(out[k]) ? deepMerge(out[k], v) : v;
  }
  return out;
}
const clone = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
function migrateSettings(s) {
  if ("queueMode" in s && !("steeringMode" in s)) {
    s.steeringMode = s.queueMode;
    delete s.queueMode;
  }
  if (!("transport" in s) && typeof s.websockets === "boolean") {
    s.transport = s.websockets ? "websocket" : "sse";
    delete s.websockets;
  }
  if (plainObject(s.skills)) {
    const sk = s.skills;
    if (sk.enableSkillCommands !== undefined && s.enableSkillCommands === undefined) s.enableSkillCommands = sk.enableSkillCommands;
    if (Array.isArray(sk.customDirectories) && sk.customDirectories.length) s.skills = sk.customDirectories;
    else delete s.skills;
  }
  return s;
}
function readSettingsFile(file) {
  if (!file || !fs().existsSync(file)) return {};
  const text = String(fs().readFileSync(file, "utf8")).replace(/^\uFEFF/, "");
  if (!text.trim()) return {};
  const v = JSON.parse(text);
  return plainObject(v) ? migrateSettings(v) : {};
}
const SETTINGS_DEFAULTS = {
  steeringMode: "one-at-a-time",
  followUpMode: "one-at-a-time",
  transport: "sse",
  compaction: DEFAULT_COMPACTION_SETTINGS,
  branchSummary: { reserveTokens: 16384, skipPrompt: false },
  retry: { enabled: true, maxRetries: 3, baseDelayMs: 2000 },
};

class SettingsManager {
  constructor(paths, global, project, errors, projectTrusted) {
    this._paths = paths || {};
    this.globalSettings = global || {};
    this.projectSettings = project || {};
    this.projectTrusted = projectTrusted !== false;
    this._errors = errors || [];
    this._modified = new Set();
    this._projectModified = new Set();
    this.settings = deepMerge(this.globalSettings, this.projectSettings);
  }
  static create(cwd, agentDir, options) {
    const o = options || {};
    const dir = resolvePath(agentDir === undefined ? getAgentDir() : agentDir);
    const paths = { global: path().join(dir, "settings.json"), project: path().join(resolvePath(cwd === undefined ? process.cwd() : cwd), CONFIG_DIR_NAME, "settings.json") };
    const trusted = o.projectTrusted === undefined ? true : !!o.projectTrusted;
    const errors = [];
    const load = (scope, file) => {
      try {
        return readSettingsFile(file);
      } catch (error) {
        errors.push({ scope, error, path: file });
        return {};
      }
    };
    const global = load("global", paths.global);
    const project = trusted ? load("project", paths.project) : {};
    return new SettingsManager(paths, global, project, errors, trusted);
  }
  static inMemory(settings, options) {
    const o = options || {};
    return new SettingsManager({}, migrateSettings(clone(settings || {})), {}, [], o.projectTrusted);
  }
  static fromStorage() {
    throw new Error(unsupportedText("SettingsManager.fromStorage()", "use SettingsManager.create or SettingsManager.inMemory"));
  }
  static migrateSettings(settings) {
    return migrateSettings(settings);
  }
  getSettings() {
    return clone(this.settings);
  }
  getGlobalSettings() {
    return clone(this.globalSettings);
  }
  getProjectSettings() {
    return clone(this.projectSettings);
  }
  isProjectTrusted() {
    return this.projectTrusted;
  }
  applyOverrides(overrides) {
    this.settings = deepMerge(this.settings, overrides);
  }
  drainErrors() {
    const out = this._errors;
    this._errors = [];
    return out;
  }
  _setGlobal(field, value) {
    this.globalSettings[field] = value;
    this._modified.add(field);
    this.settings = deepMerge(this.globalSettings, this.projectSettings);
  }
  _setNested(field, key, value) {
    const cur = plainObject(this.globalSettings[field]) ? this.globalSettings[field] : {};
    this._setGlobal(field, Object.assign({}, cur, { [key]: value }));
  }
  _setProject(field, value) {
    if (!this.projectTrusted) throw new Error("Project settings cannot be changed: the project is not trusted");
    this.projectSettings[field] = value;
    this._projectModified.add(field);
    this.settings = deepMerge(this.globalSettings, this.projectSettings);
  }
  _write(file, values, fields) {
    if (!file || fields.size === 0) return;
    let current = {};
    try {
      current = readSettingsFile(file);
    } catch (error) {
      this._errors.push({ scope: file === this._paths.global ? "global" : "project", error, path: file });
      return;
    }
    for (const f of fields) current[f] = values[f];
    ensureDir(path().dirname(file));
    fs().writeFileSync(file, `${JSON.stringify(current, null, 2)}\n`);
    fields.clear();
  }
  save() {
    this._write(this._paths.global, this.globalSettings, this._modified);
    this._write(this._paths.project, this.projectSettings, this._projectModified);
  }
  async flush() {
    this.save();
  }
  async reload() {
    const fresh = SettingsManager.create(path().dirname(path().dirname(this._paths.project || path().join(process.cwd(), CONFIG_DIR_NAME, "x"))), this._paths.global ? path().dirname(this._paths.global) : undefined, { projectTrusted: this.projectTrusted });
    if (!this._paths.global) return;
    Object.assign(this, { globalSettings: fresh.globalSettings, projectSettings: fresh.projectSettings, settings: fresh.settings });
    this._errors = this._errors.concat(fresh.drainErrors());
  }
  getSessionDir() {
    return this.settings.sessionDir ? resolvePath(this.settings.sessionDir) : this.settings.sessionDir;
  }
  setDefaultModelAndProvider(provider, modelId) {
    this._setGlobal("defaultProvider", provider);
    this._setGlobal("defaultModel", modelId);
  }
  getThemeSetting() {
    return typeof this.settings.theme === "string" ? this.settings.theme : undefined;
  }
  getTheme() {
    const t = this.getThemeSetting();
    return t && t.includes("/") ? undefined : t;
  }
  setTheme(theme) {
    this._setGlobal("theme", theme);
  }
  getModelThinkingLevel(provider, modelId) {
    return (this.settings.modelThinkingLevels || {})[`${provider}/${modelId}`];
  }
  getAllModelThinkingLevels() {
    return Object.assign({}, this.settings.modelThinkingLevels || {});
  }
  setModelThinkingLevel(provider, modelId, level) {
    this._setNested("modelThinkingLevels", `${provider}/${modelId}`, level);
  }
  getCompactionEnabled() {
    const c = this.settings.compaction || {};
    return c.enabled === undefined ? DEFAULT_COMPACTION_SETTINGS.enabled : c.enabled;
  }
  setCompactionEnabled(enabled) {
    this._setNested("compaction", "enabled", enabled);
  }
  _compactionTokens(field) {
    const v = (this.settings.compaction || {})[field];
    if (v === undefined) return DEFAULT_COMPACTION_SETTINGS[field];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw new Error(`Invalid compaction.${field} setting: ${String(v)}. Expected a non-negative safe integer.`);
    return v;
  }
  getCompactionReserveTokens() {
    return this._compactionTokens("reserveTokens");
  }
  getCompactionKeepRecentTokens() {
    return this._compactionTokens("keepRecentTokens");
  }
  getCompactionSettings() {
    return { enabled: this.getCompactionEnabled(), reserveTokens: this.getCompactionReserveTokens(), keepRecentTokens: this.getCompactionKeepRecentTokens() };
  }
  getBranchSummarySettings() {
    const b = this.settings.branchSummary || {};
    const d = SETTINGS_DEFAULTS.branchSummary;
    return { reserveTokens: b.reserveTokens === undefined ? d.reserveTokens : b.reserveTokens, skipPrompt: b.skipPrompt === undefined ? d.skipPrompt : b.skipPrompt };
  }
  getBranchSummarySkipPrompt() {
    return this.getBranchSummarySettings().skipPrompt;
  }
  getRetryEnabled() {
    const r = this.settings.retry || {};
    return r.enabled === undefined ? SETTINGS_DEFAULTS.retry.enabled : r.enabled;
  }
  setRetryEnabled(enabled) {
    this._setNested("retry", "enabled", enabled);
  }
  getRetrySettings() {
    const r = this.settings.retry || {};
    const d = SETTINGS_DEFAULTS.retry;
    return { enabled: this.getRetryEnabled(), maxRetries: r.maxRetries === undefined ? d.maxRetries : r.maxRetries, baseDelayMs: r.baseDelayMs === undefined ? d.baseDelayMs : r.baseDelayMs };
  }
  getNpmCommand() {
    return Array.isArray(this.settings.npmCommand) ? this.settings.npmCommand.slice() : undefined;
  }
  getShowImages() {
    const t = this.settings.terminal || {};
    return t.showImages === undefined ? true : t.showImages;
  }
  getImageAutoResize() {
    const i = this.settings.images || {};
    return i.autoResize === undefined ? true : i.autoResize;
  }
  getBlockImages() {
    const i = this.settings.images || {};
    return i.blockImages === true;
  }
  getDoubleEscapeAction() {
    return this.settings.doubleEscapeAction || "tree";
  }
}
// The plain settings: getX() reads the merged value (with its default),
// setX(v) changes the global one.
const asIs = (v) => v;
const onlyTrue = (v) => v === true;
for (const [name, field, get] of [
  ["DefaultProvider", "defaultProvider", asIs],
  ["DefaultModel", "defaultModel", asIs],
  ["SteeringMode", "steeringMode", (v) => v || SETTINGS_DEFAULTS.steeringMode],
  ["FollowUpMode", "followUpMode", (v) => v || SETTINGS_DEFAULTS.followUpMode],
  ["DefaultThinkingLevel", "defaultThinkingLevel", asIs],
  ["Transport", "transport", (v) => v || SETTINGS_DEFAULTS.transport],
  ["HideThinkingBlock", "hideThinkingBlock", onlyTrue],
  ["ShellPath", "shellPath", asIs],
  ["QuietStartup", "quietStartup", onlyTrue],
  ["ShellCommandPrefix", "shellCommandPrefix", asIs],
  ["EnableSkillCommands", "enableSkillCommands", (v) => v !== false],
  ["EnabledModels", "enabledModels", asIs],
  ["LastChangelogVersion", "lastChangelogVersion", asIs],
  ["ThinkingBudgets", "thinkingBudgets", asIs],
  ["CollapseChangelog", "collapseChangelog", onlyTrue],
]) {
  SettingsManager.prototype[`get${name}`] = function () {
    return get(this.settings[field]);
  };
  SettingsManager.prototype[`set${name}`] = function (v) {
    this._setGlobal(field, v);
  };
}
// The resource lists: getPackages(), setPackages(…), setProjectPackages(…)…
for (const [name, field] of [
  ["Packages", "packages"],
  ["ExtensionPaths", "extensions"],
  ["SkillPaths", "skills"],
  ["PromptTemplatePaths", "prompts"],
  ["ThemePaths", "themes"],
]) {
  SettingsManager.prototype[`get${name}`] = function () {
    return Array.from(this.settings[field] || []);
  };
  SettingsManager.prototype[`set${name}`] = function (v) {
    this._setGlobal(field, v);
  };
  SettingsManager.prototype[`setProject${name}`] = function (v) {
    this._setProject(field, v);
  };
}

// --- the event bus -----------------------------------------------------------------
function createEventBus() {
  const handlers = new Map(); // channel -> Set(fn)
  return {
    emit(channel, data) {
      for (const h of Array.from(handlers.get(channel) || [])) h(data);
    },
    on(channel, handler) {
      const safe = async (data) => {
        try {
          await handler(data);
        } catch (err) {
          console.error(`Event handler error (${channel}):`, err);
        }
      };
      if (!handlers.has(channel)) handlers.set(channel, new Set());
      handlers.get(channel).add(safe);
      return () => {
        const set = handlers.get(channel);
        if (set) set.delete(safe);
      };
    },
    clear() {
      handlers.clear();
    },
  };
}

// --- extension runtime helpers -------------------------------------------------------
// createExtensionRuntime(): the object pi's loaded extensions share; an
// extension that builds its own resource loader passes it along.
function createExtensionRuntime() {
  const notInitialized = () => {
    throw new Error("Extension runtime not initialized. Action methods cannot be called during extension loading.");
  };
  return {
    sendMessage: notInitialized,
    sendUserMessage: notInitialized,
    appendEntry: notInitialized,
    setSessionName: notInitialized,
    getSessionName: notInitialized,
    setLabel: notInitialized,
    getActiveTools: notInitialized,
    getAllTools: notInitialized,
    setActiveTools: notInitialized,
    refreshTools: () => {},
    getCommands: notInitialized,
    setModel: () => Promise.reject(new Error("Extension runtime not initialized")),
    getThinkingLevel: notInitialized,
    setThinkingLevel: notInitialized,
    flagValues: new Map(),
    pendingProviderRegistrations: [],
    registerProvider: () => {},
    unregisterProvider: () => {},
  };
}
// wrapRegisteredTool(registered, runner): the tool definition of an
// extension's registered tool, as the agent runs it.
function wrapRegisteredTool(registered) {
  const def = registered && registered.definition ? registered.definition : registered;
  return Object.assign({}, def);
}
const wrapRegisteredTools = (tools, runner) => Array.from(tools || []).map((t) => wrapRegisteredTool(t, runner));
const createSyntheticSourceInfo = (p, options) => {
  const o = options || {};
  return { path: p, source: o.source, scope: o.scope || "temporary", origin: o.origin || "top-level", baseDir: o.baseDir };
};

// DefaultResourceLoader: the skills, prompts, themes and extensions of a
// nested session (createAgentSession). It holds its options; reload()
// finds nothing of the agent's (a nested session loads no extensions,
// skills or templates), the options' own overrides apply to the empty
// lists, and its system prompt options are the session's.
class DefaultResourceLoader {
  constructor(options) {
    this.options = Object.assign({}, options || {});
    this.cwd = this.options.cwd || process.cwd();
    this.agentDir = this.options.agentDir || getAgentDir();
    this._loaded = { extensions: { extensions: [], errors: [], runtime: createExtensionRuntime() }, skills: { skills: [], diagnostics: [] }, prompts: { prompts: [], diagnostics: [] }, themes: { themes: [], diagnostics: [] } };
  }
  async reload() {}
  _over(kind, base) {
    const f = this.options[`${kind}Override`];
    return typeof f === "function" ? f(base) : base;
  }
  getExtensions() {
    return this._over("extensions", this._loaded.extensions);
  }
  getSkills() {
    return this._over("skills", this._loaded.skills);
  }
  getPrompts() {
    return this._over("prompts", this._loaded.prompts);
  }
  getThemes() {
    return this._over("themes", this._loaded.themes);
  }
  getAgentsFiles() {
    return this._over("agentsFiles", { agentsFiles: [] });
  }
  getSystemPrompt() {
    const o = this.options;
    const base = typeof o.systemPrompt === "string" ? o.systemPrompt : undefined;
    return typeof o.systemPromptOverride === "function" ? o.systemPromptOverride(base) : base;
  }
  getAppendSystemPrompt() {
    const o = this.options;
    const base = o.appendSystemPrompt === undefined ? [] : [].concat(o.appendSystemPrompt);
    return typeof o.appendSystemPromptOverride === "function" ? o.appendSystemPromptOverride(base) : base;
  }
  extendResources() {}
}

// --- what atomic does not provide yet -------------------------------------------------
const nested = "a nested session is made with createAgentSession in atomic; its services and runtime are the agent's";
const notHere = (what) => `${what} is the agent's, not available to extensions in atomic`;
const unsupportedNames = {
  createAgentSessionFromServices: unsupported("createAgentSessionFromServices", nested),
  createAgentSessionRuntime: unsupported("createAgentSessionRuntime", nested),
  createAgentSessionServices: unsupported("createAgentSessionServices", nested),
  AgentSessionRuntime: unsupportedClass("AgentSessionRuntime", nested),
  compact: unsupported("compact", "summarizing calls the model; use ctx.compact()"),
  generateSummary: unsupported("generateSummary", "summarizing calls the model; use ctx.compact()"),
  generateSummaryWithUsage: unsupported("generateSummaryWithUsage", "summarizing calls the model; use ctx.compact()"),
  generateBranchSummary: unsupported("generateBranchSummary", "summarizing calls the model"),
  main: unsupported("main", notHere("the command line")),
  parseArgs: unsupported("parseArgs", notHere("the command line")),
  runPrintMode: unsupported("runPrintMode", notHere("print mode")),
  runRpcMode: unsupported("runRpcMode", notHere("RPC mode")),
  InteractiveMode: unsupportedClass("InteractiveMode", notHere("the interactive mode")),
  RpcClient: unsupportedClass("RpcClient", "run atomic --mode rpc as a process"),
  ExtensionRunner: unsupportedClass("ExtensionRunner", notHere("the extension runner")),
  discoverAndLoadExtensions: unsupported("discoverAndLoadExtensions", notHere("loading extensions")),
  DefaultPackageManager: unsupportedClass("DefaultPackageManager", "packages are the agent's; use atomic install / atomic list"),
  ProjectTrustStore: unsupportedClass("ProjectTrustStore", "the trust store is the agent's; use ctx.isProjectTrusted()"),
  hasTrustRequiringProjectResources: unsupported("hasTrustRequiringProjectResources", "the trust rules are the agent's; use ctx.isProjectTrusted()"),
  ModelRuntime: unsupportedClass("ModelRuntime", "no host method lists the agent's model catalog yet; use ctx.modelRegistry"),
  CredentialSynchronizationError: class CredentialSynchronizationError extends Error {
    constructor(message) {
      super(message);
      this.name = "CredentialSynchronizationError";
    }
  },
  readStoredCredential: unsupported("readStoredCredential", "credentials are not given to extensions; use ctx.modelRegistry"),
  resolveModelScopeWithDiagnostics: unsupported("resolveModelScopeWithDiagnostics", "use ctx.modelRegistry"),
  createCodemodeExtension: unsupported("createCodemodeExtension"),
  createMcpExtension: unsupported("createMcpExtension", "configure MCP servers in atomic's settings"),
  createToolSearchExtension: unsupported("createToolSearchExtension"),
  loadSkills: unsupported("loadSkills", "the agent's skill loader is not exposed to extensions yet; the agent loads skills itself (see pi.getCommands())"),
  loadSkillsFromDir: unsupported("loadSkillsFromDir", "the agent's skill loader is not exposed to extensions yet"),
  loadProjectContextFiles: unsupported("loadProjectContextFiles", "the agent's AGENTS.md loader is not exposed to extensions yet"),
  convertToPng: unsupported("convertToPng", "neither engine has an image codec (pi uses Photon, WebAssembly)"),
  resizeImage: unsupported("resizeImage", "neither engine has an image codec (pi uses Photon, WebAssembly)"),
  copyToClipboard: unsupported("copyToClipboard", "there is no terminal clipboard over RPC"),
  createLocalBashOperations: unsupported("createLocalBashOperations", "custom bash operations are not available; the built-in bash tool (createBashTool) runs commands locally"),
  createLocalPowerShellOperations: unsupported("createLocalPowerShellOperations", "PowerShell"),
  createPowerShellTool: unsupported("createPowerShellTool", "PowerShell"),
  createPowerShellToolDefinition: unsupported("createPowerShellToolDefinition", "PowerShell"),
  getPowerShellConfig: unsupported("getPowerShellConfig", "PowerShell"),
  ModelRegistry: unsupportedClass("ModelRegistry", "no host method lists the agent's model catalog yet; use ctx.modelRegistry"),
  initTheme: () => {},
};

module.exports = {
  __esModule: true,
  CURRENT_SESSION_VERSION,
  DEFAULT_COMPACTION_SETTINGS,
  VIRTUAL_MODEL_STATE_ENTRY: "pi.virtual-model-state",
  getAgentDir,
  getPackageDir,
  getReadmePath,
  getDocsPath,
  getExamplesPath,
  parseFrontmatter,
  stripFrontmatter,
  truncateLine,
  formatSkillsForPrompt,
  formatReadLineRange,
  calculateContextTokens,
  getLastAssistantUsage,
  estimateTokens,
  shouldCompact,
  findCutPoint,
  findTurnStartIndex,
  serializeConversation,
  parseSessionEntries,
  migrateSessionEntries,
  getLatestCompactionEntry,
  sessionEntryToContextMessages,
  buildContextEntries,
  buildSessionProjection,
  buildSessionContext,
  SessionManager,
  SettingsManager,
  DefaultResourceLoader,
  createEventBus,
  createExtensionRuntime,
  wrapRegisteredTool,
  wrapRegisteredTools,
  createSyntheticSourceInfo,
  ...unsupportedNames,
  convertToLlm,
  // for piai.js, agentcore.js and agentsession.js
  uuidv7,
  contentText,
  userMessage,
  unsupported,
  unsupportedClass,
  // for agentutil.js
  projectEntry,
  nodeBuiltin,
};
