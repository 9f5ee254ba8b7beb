// The run-time part of the coding agent package that extensions import:
// event type guards, truncation helpers and UI component stand-ins.
"use strict";

const tui = require("@mariozechner/pi-tui");
const native = require("atomic:internal");

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

class DynamicBorder extends tui.Component {}
class BorderedLoader extends tui.Loader {
  constructor(...args) {
    super(...args);
    this.signal = new AbortController().signal;
    this.onAbort = undefined;
  }
}
class CustomEditor extends tui.Editor {}

module.exports = {
  __esModule: true,
  VERSION: native.version,
  CONFIG_DIR_NAME: ".atomic",
  DEFAULT_MAX_LINES,
  DEFAULT_MAX_BYTES,
  getAgentDir: () => native.agentDir,
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
  getMarkdownTheme: () => ({}),
  getSettingsListTheme: () => ({}),
  getSelectListTheme: () => ({}),
  DynamicBorder,
  BorderedLoader,
  CustomEditor,
};
