// The run-time part of the coding agent package that extensions import:
// event type guards, truncation helpers and UI component stand-ins.
"use strict";

const tui = require("@mariozechner/pi-tui");
const native = require("atomic:internal");
// The library part (agentlib.js); its helpers for piai.js stay out.
const { uuidv7: _u, contentText: _c, userMessage: _m, unsupported: _n, unsupportedClass: _k, projectEntry: _p, nodeBuiltin: _b, ...libExports } = require("atomic:agentlib");
// The agent's utilities that behave as pi's (agentutil.js).
const { __esModule: _e, ...utilExports } = require("atomic:agentutil");
// Nested sessions (agentsession.js).
const { AgentSession, createAgentSession } = require("atomic:agentsession");

const DEFAULT_MAX_LINES = 2000;
const DEFAULT_MAX_BYTES = 50 * 1024;

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

const byteLength = (s) => native.byteLength(s);

function result(content, truncated, by, lines, totalBytes, outLines, o, extra) {
  return Object.assign(
    {
      content,
      truncated,
      truncatedBy: by,
      totalLines: lines.length,
      totalBytes,
      outputLines: outLines,
      outputBytes: byteLength(content),
      lastLinePartial: false,
      firstLineExceedsLimit: false,
      maxLines: o.maxLines,
      maxBytes: o.maxBytes,
    },
    extra || {},
  );
}

function limits(options) {
  const o = options || {};
  return { maxLines: o.maxLines || DEFAULT_MAX_LINES, maxBytes: o.maxBytes || DEFAULT_MAX_BYTES };
}

function truncateHead(content, options) {
  const o = limits(options);
  const text = String(content);
  const lines = text.split("\n");
  const total = byteLength(text);
  if (lines.length <= o.maxLines && total <= o.maxBytes) return result(text, false, null, lines, total, lines.length, o);
  if (byteLength(lines[0]) > o.maxBytes) return result("", true, "bytes", lines, total, 0, o, { firstLineExceedsLimit: true });
  const out = [];
  let bytes = 0;
  let by = "lines";
  for (const line of lines) {
    if (out.length >= o.maxLines) break;
    const b = byteLength(line) + (out.length ? 1 : 0);
    if (bytes + b > o.maxBytes) {
      by = "bytes";
      break;
    }
    out.push(line);
    bytes += b;
  }
  return result(out.join("\n"), true, by, lines, total, out.length, o);
}

function truncateTail(content, options) {
  const o = limits(options);
  const text = String(content);
  const lines = text.split("\n");
  const total = byteLength(text);
  if (lines.length <= o.maxLines && total <= o.maxBytes) return result(text, false, null, lines, total, lines.length, o);
  const out = [];
  let bytes = 0;
  let by = "lines";
  let partial = false;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (out.length >= o.maxLines) break;
    const line = lines[i];
    const b = byteLength(line) + (out.length ? 1 : 0);
    if (bytes + b > o.maxBytes) {
      by = "bytes";
      if (out.length === 0) {
        const chars = Array.from(line);
        let kept = "";
        for (let j = chars.length - 1; j >= 0 && byteLength(chars[j] + kept) <= o.maxBytes; j--) kept = chars[j] + kept;
        out.unshift(kept);
        partial = true;
      }
      break;
    }
    out.unshift(line);
    bytes += b;
  }
  return result(out.join("\n"), true, by, lines, total, out.length, o, { lastLinePartial: partial });
}

const isToolCallEventType = (toolName, event) => !!event && event.toolName === toolName;
const toolResultGuard = (name) => (event) => !!event && event.toolName === name;

// pi's built-in tool factories (createReadTool(cwd, options), …): tool
// objects that run the agent's own built-in tool. For bash, the options
// commandPrefix and spawnHook apply; custom operations (another machine's
// file system or shell) are not supported and fail the call.
const builtinNames = { read: "Read", bash: "Bash", edit: "Edit", write: "Write", grep: "Grep", find: "Find", ls: "Ls" };

function builtinTool(name, cwd, options) {
  const factory = `create${builtinNames[name]}Tool`;
  if (typeof native.builtinToolInfo !== "function") {
    throw new Error(`${factory} is not available in this script runtime of atomic (it is in the built-in one: runtime "goja")`);
  }
  const info = JSON.parse(native.builtinToolInfo(name));
  const o = options || {};
  const dir = cwd === undefined ? undefined : String(cwd);
  const tool = {
    name,
    label: name,
    description: info.description,
    parameters: info.parameters,
    async execute(_toolCallId, params, signal, onUpdate) {
      if (o.operations) {
        throw new Error(`${factory}: custom operations are not supported by atomic; only the local ${name} tool runs`);
      }
      const args = Object.assign({}, params);
      let runCwd = dir === undefined ? process.cwd() : dir;
      const env = [];
      if (name === "bash") {
        let command = String(args.command === undefined ? "" : args.command);
        if (o.commandPrefix) command = `${o.commandPrefix}\n${command}`;
        if (typeof o.spawnHook === "function") {
          const base = Object.assign({}, process.env);
          const spawned = o.spawnHook({ command, cwd: runCwd, env: base }) || {};
          if (spawned.command !== undefined) command = String(spawned.command);
          if (spawned.cwd !== undefined) runCwd = String(spawned.cwd);
          for (const [k, v] of Object.entries(spawned.env || {})) {
            if (v !== undefined && base[k] !== String(v)) env.push(`${k}=${v}`);
          }
        }
        args.command = command;
      }
      if (signal && signal.aborted) throw new Error("aborted");
      const token = native.newToken();
      if (signal) signal.addEventListener("abort", () => native.cancel(token));
      const update = typeof onUpdate === "function" ? (s) => onUpdate(JSON.parse(s)) : undefined;
      return JSON.parse(await native.runBuiltinTool(token, name, runCwd, JSON.stringify(args), JSON.stringify(env), update));
    },
  };
  if (info.promptSnippet) tool.promptSnippet = info.promptSnippet;
  if (info.promptGuidelines && info.promptGuidelines.length) tool.promptGuidelines = info.promptGuidelines;
  return tool;
}

const toolFactories = {};
for (const name of Object.keys(builtinNames)) {
  const f = (cwd, options) => builtinTool(name, cwd, options);
  toolFactories[`create${builtinNames[name]}Tool`] = f;
  toolFactories[`create${builtinNames[name]}ToolDefinition`] = f;
}
const pick = (names) => (cwd, options) => names.map((n) => builtinTool(n, cwd, options && options[n]));
const all = (cwd, options) => {
  const out = {};
  for (const n of Object.keys(builtinNames)) out[n] = builtinTool(n, cwd, options && options[n]);
  return out;
};
Object.assign(toolFactories, {
  createCodingTools: pick(["read", "bash", "edit", "write"]),
  createCodingToolDefinitions: pick(["read", "bash", "edit", "write"]),
  createReadOnlyTools: pick(["read", "grep", "find", "ls"]),
  createReadOnlyToolDefinitions: pick(["read", "grep", "find", "ls"]),
  createAllTools: all,
  createAllToolDefinitions: all,
});

// withFileMutationQueue(path, fn): fn runs once the mutations queued
// before it for the same file have settled (one at a time per file).
const fileQueues = new Map();
function withFileMutationQueue(filePath, fn) {
  const key = String(filePath);
  const prev = fileQueues.get(key) || Promise.resolve();
  const run = prev.then(
    () => fn(),
    () => fn(),
  );
  const tail = run.then(
    () => {},
    () => {},
  );
  fileQueues.set(key, tail);
  tail.then(() => {
    if (fileQueues.get(key) === tail) fileQueues.delete(key);
  });
  return run;
}

const languages = { ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript", js: "javascript", jsx: "javascript",
  mjs: "javascript", cjs: "javascript", py: "python", rb: "ruby", go: "go", rs: "rust", java: "java", kt: "kotlin", c: "c", h: "c",
  cpp: "cpp", cc: "cpp", hpp: "cpp", cs: "csharp", php: "php", sh: "bash", bash: "bash", zsh: "bash", json: "json", yaml: "yaml",
  yml: "yaml", toml: "toml", md: "markdown", html: "html", css: "css", sql: "sql", swift: "swift", lua: "lua" };
function getLanguageFromPath(p) {
  const m = /\.([A-Za-z0-9]+)$/.exec(String(p));
  return m ? languages[m[1].toLowerCase()] : undefined;
}
class DynamicBorder extends tui.Component {}
class BorderedLoader extends tui.Loader {
  constructor(...args) {
    super(...args);
    this.signal = new AbortController().signal;
    this.onAbort = undefined;
  }
}
class CustomEditor extends tui.Editor {}

// pi's interactive components: atomic's UI is the client's (RPC), so these
// construct and render nothing, as the tui stand-in's components do.
const componentNames = ["ArminComponent", "AssistantMessageComponent", "BashExecutionComponent", "BranchSummaryMessageComponent",
  "CompactionSummaryMessageComponent", "CustomMessageComponent", "ExtensionEditorComponent", "ExtensionInputComponent",
  "ExtensionSelectorComponent", "FooterComponent", "LoginDialogComponent", "ModelSelectorComponent", "OAuthSelectorComponent",
  "SessionSelectorComponent", "SettingsSelectorComponent", "ShowImagesSelectorComponent", "SkillInvocationMessageComponent",
  "ThemeSelectorComponent", "ThinkingSelectorComponent", "ToolExecutionComponent", "TreeSelectorComponent",
  "UserMessageComponent", "UserMessageSelectorComponent"];
const components = {};
for (const name of componentNames) {
  const C = class extends tui.Container {};
  Object.defineProperty(C, "name", { value: name });
  components[name] = C;
}

// Theme: pi's colour theme; over RPC text is plain, so every style gives
// the text back as it is.
class Theme {
  constructor(fgColors, bgColors, mode) {
    this.fgColors = fgColors || {};
    this.bgColors = bgColors || {};
    this.mode = mode || "truecolor";
  }
  fg(_color, text) {
    return String(text);
  }
  bg(_color, text) {
    return String(text);
  }
  bold(text) {
    return String(text);
  }
  italic(text) {
    return String(text);
  }
  underline(text) {
    return String(text);
  }
  strikethrough(text) {
    return String(text);
  }
  inverse(text) {
    return String(text);
  }
  getFgAnsi() {
    return "";
  }
  getBgAnsi() {
    return "";
  }
  getColorMode() {
    return this.mode;
  }
  getThinkingBorderColor() {
    return (s) => String(s);
  }
  getBashModeBorderColor() {
    return (s) => String(s);
  }
}

// truncateToVisualLines(text, maxVisualLines, width): the last lines of
// text that fit, wrapped at width, as pi's tool output previews show them.
function truncateToVisualLines(text, maxVisualLines, width, paddingX, keep) {
  if (!text) return { visualLines: [], skippedCount: 0 };
  const w = Math.max(1, (width || 80) - 2 * (paddingX || 0));
  const lines = [];
  for (const line of String(text).split("\n")) lines.push(...tui.wrapTextWithAnsi(line, w));
  if (lines.length <= maxVisualLines) return { visualLines: lines, skippedCount: 0 };
  const kept = keep === "start" ? lines.slice(0, maxVisualLines) : lines.slice(lines.length - maxVisualLines);
  return { visualLines: kept, skippedCount: lines.length - maxVisualLines };
}

module.exports = {
  __esModule: true,
  ...libExports,
  ...utilExports,
  ...components,
  Theme,
  truncateToVisualLines,
  isPowerShellToolResult: toolResultGuard("powershell"),
  VERSION: native.version,
  CONFIG_DIR_NAME: ".atomic",
  DEFAULT_MAX_LINES,
  DEFAULT_MAX_BYTES,
  formatSize,
  truncateHead,
  truncateTail,
  isToolCallEventType,
  isBashToolResult: toolResultGuard("bash"),
  isReadToolResult: toolResultGuard("read"),
  isEditToolResult: toolResultGuard("edit"),
  isWriteToolResult: toolResultGuard("write"),
  isGrepToolResult: toolResultGuard("grep"),
  isFindToolResult: toolResultGuard("find"),
  isLsToolResult: toolResultGuard("ls"),
  defineTool: (def) => def,
  keyHint: (key, description) => (description ? `${key} ${description}` : String(key)),
  rawKeyHint: (key, description) => (description ? `${key} ${description}` : String(key)),
  keyText: (key) => String(key),
  keyDisplayText: (key) => String(key),
  getLanguageFromPath,
  highlightCode: (code) => String(code).split("\n"),
  getMarkdownTheme: () => ({}),
  getSettingsListTheme: () => ({}),
  getSelectListTheme: () => ({}),
  DynamicBorder,
  BorderedLoader,
  CustomEditor,
  ...toolFactories,
  withFileMutationQueue,
  AgentSession,
  createAgentSession,
};
