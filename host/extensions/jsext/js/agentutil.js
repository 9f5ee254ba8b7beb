// The agent's utilities among pi 1.6's library exports that behave as
// pi's: skill blocks, the display and unified diffs (made with jsdiff, the
// library pi uses), renderDiff, image type sniffing and the dimension note,
// the shell pi's bash tool runs, the branch-summary entry helpers, and
// resolveCliModel over a model runtime's models.
// agent.js re-exports them. Shared by both script runtimes, as agentlib.js
// is: goja loads it with its node: modules, Node with its own built-ins.
"use strict";

const lib = require("atomic:agentlib");

const nodeBuiltin = lib.nodeBuiltin;
const fs = () => nodeBuiltin("node:fs");
const path = () => nodeBuiltin("node:path");

// jsdiff, loaded when a diff is first asked for (it is large).
let jsdiff;
const Diff = () => jsdiff || (jsdiff = require("atomic:jsdiff"));

// --- skill blocks ----------------------------------------------------------------
// parseSkillBlock(text): the parts of a message that starts with a skill's
// <skill name=… location=…> block (as /skill:name expands), or null.
const skillBlock = /^<skill name="([^"]+)" location="([^"]+)">\n([\s\S]*?)\n<\/skill>(?:\n\n([\s\S]+))?$/;
function parseSkillBlock(text) {
  const m = skillBlock.exec(String(text));
  if (m === null) return null;
  const rest = m[4] === undefined ? "" : m[4].trim();
  return { name: m[1], location: m[2], content: m[3], userMessage: rest === "" ? undefined : rest };
}

// --- diffs -----------------------------------------------------------------------
const lineCount = (text) => text.split("\n").length;

// generateUnifiedPatch: a unified patch of one file, both headers naming
// it, with contextLines lines of context.
function generateUnifiedPatch(filePath, oldContent, newContent, contextLines = 4) {
  const D = Diff();
  return D.createTwoFilesPatch(filePath, filePath, oldContent, newContent, undefined, undefined, {
    context: contextLines,
    headerOptions: D.FILE_HEADERS_ONLY,
  });
}

// generateDiffString: the diff the edit tool shows: each changed line as
// "+N text" / "-N text" (N the line's number, padded to the widest), up to
// contextLines unchanged lines around each change as " N text", and a
// "..." line for each run left out; firstChangedLine is the first change's
// line in the new text.
function generateDiffString(oldContent, newContent, contextLines = 4) {
  const width = String(Math.max(lineCount(oldContent), lineCount(newContent))).length;
  const num = (n) => String(n).padStart(width, " ");
  const gap = ` ${" ".repeat(width)} ...`;
  const parts = Diff().diffLines(oldContent, newContent);
  const out = [];
  let oldLine = 1;
  let newLine = 1;
  let firstChangedLine;
  let afterChange = false;
  const context = (lines) => {
    for (const l of lines) {
      out.push(` ${num(oldLine)} ${l}`);
      oldLine++;
      newLine++;
    }
  };
  const skip = (n) => {
    oldLine += n;
    newLine += n;
  };
  parts.forEach((part, i) => {
    const lines = part.value.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    if (part.added || part.removed) {
      if (firstChangedLine === undefined) firstChangedLine = newLine;
      for (const l of lines) {
        if (part.added) out.push(`+${num(newLine++)} ${l}`);
        else out.push(`-${num(oldLine++)} ${l}`);
      }
      afterChange = true;
      return;
    }
    const next = parts[i + 1];
    const beforeChange = next !== undefined && (next.added || next.removed);
    if (afterChange && beforeChange && lines.length > contextLines * 2) {
      context(lines.slice(0, contextLines));
      out.push(gap);
      skip(lines.length - 2 * contextLines);
      context(lines.slice(lines.length - contextLines));
    } else if (afterChange && beforeChange) {
      context(lines);
    } else if (afterChange) {
      const shown = lines.slice(0, contextLines);
      context(shown);
      if (lines.length > shown.length) {
        out.push(gap);
        skip(lines.length - shown.length);
      }
    } else if (beforeChange) {
      const hidden = Math.max(0, lines.length - contextLines);
      if (hidden > 0) {
        out.push(gap);
        skip(hidden);
      }
      context(lines.slice(hidden));
    } else {
      skip(lines.length);
    }
    afterChange = false;
  });
  return { diff: out.join("\n"), firstChangedLine };
}

// renderDiff: a generateDiffString diff as the TUI shows it, tabs as three
// spaces; a line changed in place (one removed line followed by one added)
// has its changed words marked. Over RPC the theme is plain, so the marks
// and colours are the text itself.
const plain = { fg: (_c, s) => s, inverse: (s) => s };
const diffLine = /^([+-\s])(\s*\d*)\s(.*)$/;
const untab = (s) => s.replace(/\t/g, "   ");
function markWords(before, after, theme) {
  let indent = 0;
  while (indent < before.length && before[indent] === after[indent] && /\s/.test(before[indent])) indent++;
  let removed = before.slice(0, indent);
  let added = removed;
  let firstRemoved = true;
  let firstAdded = true;
  // The first changed part of each side keeps its leading white space unmarked.
  const take = (value, first) => {
    if (!first) return ["", value];
    const ws = /^\s*/.exec(value)[0];
    return [ws, value.slice(ws.length)];
  };
  for (const part of Diff().diffWords(before.slice(indent), after.slice(indent))) {
    if (part.removed) {
      const [ws, rest] = take(part.value, firstRemoved);
      firstRemoved = false;
      removed += ws + (rest ? theme.inverse(rest) : "");
    } else if (part.added) {
      const [ws, rest] = take(part.value, firstAdded);
      firstAdded = false;
      added += ws + (rest ? theme.inverse(rest) : "");
    } else {
      removed += part.value;
      added += part.value;
    }
  }
  return [removed, added];
}
function renderDiff(diffText, _options) {
  const theme = plain;
  const lines = String(diffText).split("\n");
  const parse = (l) => {
    const m = diffLine.exec(l);
    return m && { sign: m[1], num: m[2], text: m[3] };
  };
  const out = [];
  for (let i = 0; i < lines.length; ) {
    const p = parse(lines[i]);
    if (!p) {
      out.push(theme.fg("toolDiffContext", lines[i++]));
    } else if (p.sign === "-") {
      const run = (sign) => {
        const got = [];
        for (let q = i < lines.length && parse(lines[i]); q && q.sign === sign; q = i < lines.length && parse(lines[i])) {
          got.push(q);
          i++;
        }
        return got;
      };
      const removed = run("-");
      const added = run("+");
      if (removed.length === 1 && added.length === 1) {
        const [r, a] = markWords(untab(removed[0].text), untab(added[0].text), theme);
        out.push(theme.fg("toolDiffRemoved", `-${removed[0].num} ${r}`));
        out.push(theme.fg("toolDiffAdded", `+${added[0].num} ${a}`));
      } else {
        for (const r of removed) out.push(theme.fg("toolDiffRemoved", `-${r.num} ${untab(r.text)}`));
        for (const a of added) out.push(theme.fg("toolDiffAdded", `+${a.num} ${untab(a.text)}`));
      }
    } else if (p.sign === "+") {
      out.push(theme.fg("toolDiffAdded", `+${p.num} ${untab(p.text)}`));
      i++;
    } else {
      out.push(theme.fg("toolDiffContext", ` ${p.num} ${untab(p.text)}`));
      i++;
    }
  }
  return out.join("\n");
}

// --- images ----------------------------------------------------------------------
// formatDimensionNote: the note telling the model how a resized image's
// coordinates map to the original, or undefined when it was not resized.
function formatDimensionNote(r) {
  if (!r.wasResized) return undefined;
  const scale = (r.originalWidth / r.width).toFixed(2);
  return `[Image: original ${r.originalWidth}x${r.originalHeight}, displayed at ${r.width}x${r.height}. Multiply coordinates by ${scale} to map to original image.]`;
}

// The image types the model is given, by their first bytes: JPEG (not
// JPEG-LS), PNG (not animated), GIF, WebP and BMP; anything else is null.
const sniffBytes = 4100;
const u16le = (b, o) => (b[o] || 0) + ((b[o + 1] || 0) << 8);
const u32le = (b, o) => (b[o] || 0) + ((b[o + 1] || 0) << 8) + ((b[o + 2] || 0) << 16) + (b[o + 3] || 0) * 0x1000000;
const u32be = (b, o) => (b[o] || 0) * 0x1000000 + ((b[o + 1] || 0) << 16) + ((b[o + 2] || 0) << 8) + (b[o + 3] || 0);
const bytesAt = (b, o, bytes) => b.length >= o + bytes.length && bytes.every((x, i) => b[o + i] === x);
const asciiAt = (b, o, s) => bytesAt(b, o, Array.from(s, (c) => c.charCodeAt(0)));
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
function pngKind(b) {
  if (b.length < 16 || u32be(b, 8) !== 13 || !asciiAt(b, 12, "IHDR")) return null;
  // Animated when an acTL chunk comes before the first IDAT.
  for (let at = 8; at + 8 <= b.length; ) {
    if (asciiAt(b, at + 4, "acTL")) return null;
    if (asciiAt(b, at + 4, "IDAT")) break;
    const next = at + 12 + u32be(b, at);
    if (next <= at || next > b.length) break;
    at = next;
  }
  return "image/png";
}
function isBmp(b) {
  if (b.length < 26) return false;
  const size = u32le(b, 2);
  const dataAt = u32le(b, 10);
  const header = u32le(b, 14);
  if ((size !== 0 && size < 26) || dataAt < 14 + header || (size !== 0 && dataAt >= size)) return false;
  let at;
  if (header === 12) at = 22;
  else if (header >= 40 && header <= 124) {
    if (b.length < 30) return false;
    at = 26;
  } else return false;
  return u16le(b, at) === 1 && [1, 4, 8, 16, 24, 32].includes(u16le(b, at + 2));
}
function imageMimeType(b) {
  if (bytesAt(b, 0, [0xff, 0xd8, 0xff])) return b[3] === 0xf7 ? null : "image/jpeg";
  if (bytesAt(b, 0, pngSignature)) return pngKind(b);
  if (asciiAt(b, 0, "GIF87a") || asciiAt(b, 0, "GIF89a")) return "image/gif";
  if (asciiAt(b, 0, "RIFF") && asciiAt(b, 8, "WEBP")) return "image/webp";
  if (asciiAt(b, 0, "BM") && isBmp(b)) return "image/bmp";
  return null;
}
// detectSupportedImageMimeTypeFromFile reads the file's first bytes (Node
// opens the file; goja's fs reads whole files only, up to its limits).
async function detectSupportedImageMimeTypeFromFile(filePath) {
  const fsp = fs().promises;
  let handle;
  try {
    handle = await fsp.open(filePath, "r");
  } catch (e) {
    if (e && e.code) throw e;
    const data = await fsp.readFile(filePath);
    return imageMimeType(data.subarray(0, sniffBytes));
  }
  try {
    const buf = Buffer.alloc(sniffBytes);
    const { bytesRead } = await handle.read(buf, 0, sniffBytes, 0);
    return imageMimeType(buf.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

// --- the shell -------------------------------------------------------------------
function exists(p) {
  try {
    fs().accessSync(p, fs().constants.F_OK);
    return true;
  } catch {
    return false;
  }
}
// The first executable of that name on PATH, as `which`/`where` finds it.
function onPath(name) {
  const win = process.platform === "win32";
  const sep = win ? ";" : ":";
  for (const dir of String(process.env.PATH || (win ? process.env.Path : "") || "").split(sep)) {
    if (!dir) continue;
    const p = path().join(dir, name);
    try {
      if (!fs().statSync(p).isFile()) continue;
      if (!win) fs().accessSync(p, fs().constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}
// A bash.exe in Windows' own directory is WSL's launcher: it reads the
// command from stdin.
function shellConfigFor(shell) {
  const norm = shell.replace(/\//g, "\\").toLowerCase();
  const root = process.env.SystemRoot;
  const legacy =
    process.platform === "win32" &&
    (root
      ? /^[a-z]:[\\/]/i.test(root) && ["system32", "sysnative"].some((d) => norm === `${root.replace(/\//g, "\\").replace(/\\$/, "")}\\${d}\\bash.exe`.toLowerCase())
      : /^[a-z]:\\windows\\(?:system32|sysnative)\\bash\.exe$/.test(norm));
  return legacy ? { shell, args: ["-s"], commandTransport: "stdin" } : { shell, args: ["-c"] };
}
// getShellConfig: the shell pi's bash tool runs: the given path (which must
// exist), else on Windows Git Bash or a bash.exe on PATH, else /bin/bash,
// a bash on PATH, or sh.
function getShellConfig(customShellPath) {
  if (customShellPath) {
    if (exists(customShellPath)) return shellConfigFor(customShellPath);
    throw new Error(`Custom shell path not found: ${customShellPath}`);
  }
  if (process.platform === "win32") {
    const tried = [process.env.ProgramFiles, process.env["ProgramFiles(x86)"]].filter(Boolean).map((d) => `${d}\\Git\\bin\\bash.exe`);
    const found = tried.find(exists) || onPath("bash.exe");
    if (found) return shellConfigFor(found);
    throw new Error(
      "No bash shell found. Options:\n  1. Install Git for Windows: https://git-scm.com/download/win\n  2. Add your bash to PATH (Cygwin, MSYS2, etc.)\n  3. Set shellPath in settings.json\n\n" +
        `Searched Git Bash in:\n${tried.map((p) => `  ${p}`).join("\n")}`,
    );
  }
  if (exists("/bin/bash")) return shellConfigFor("/bin/bash");
  const bash = onPath("bash");
  return bash ? shellConfigFor(bash) : { shell: "sh", args: ["-c"] };
}

// --- branch summaries --------------------------------------------------------------
// collectEntriesForBranchSummary: the entries from oldLeafId back to (not
// including) its deepest common ancestor with targetId, oldest first.
function collectEntriesForBranchSummary(session, oldLeafId, targetId) {
  if (!oldLeafId) return { entries: [], commonAncestorId: null };
  const onOld = new Set(session.getBranch(oldLeafId).map((e) => e.id));
  const toTarget = session.getBranch(targetId);
  let commonAncestorId = null;
  for (let i = toTarget.length - 1; i >= 0; i--) {
    if (onOld.has(toTarget[i].id)) {
      commonAncestorId = toTarget[i].id;
      break;
    }
  }
  const entries = [];
  for (let id = oldLeafId; id && id !== commonAncestorId; ) {
    const e = session.getEntry(id);
    if (!e) break;
    entries.push(e);
    id = e.parentId;
  }
  return { entries: entries.reverse(), commonAncestorId };
}

const ms = (ts) => new Date(ts).getTime();
// The message a branch summary sees for an entry (tool results are left
// out: their call is in the assistant's message), or undefined.
function branchMessage(entry, edit) {
  switch (entry.type) {
    case "message":
      if (entry.message.role === "toolResult") return undefined;
      return edit ? lib.projectEntry(entry, edit)[0] : entry.message;
    case "custom_message":
      if (edit) return lib.projectEntry(entry, edit)[0];
      return { role: "custom", customType: entry.customType, content: entry.content, display: entry.display, details: entry.details, timestamp: ms(entry.timestamp) };
    case "branch_summary":
      return { role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: ms(entry.timestamp) };
    case "compaction":
      return { role: "compactionSummary", summary: entry.summary, tokensBefore: entry.tokensBefore, timestamp: ms(entry.timestamp) };
    default:
      return undefined;
  }
}
function addFileOp(name, args, ops) {
  const p = args && typeof args.path === "string" ? args.path : undefined;
  if (!p) return;
  if (name === "read") ops.read.add(p);
  else if (name === "write") ops.written.add(p);
  else if (name === "edit") ops.edited.add(p);
}
function fileOpsOf(message, ops) {
  if (message.role === "toolResult") {
    const calls = (message.nestedCalls && message.nestedCalls.calls) || [];
    for (const c of calls) addFileOp(c.name, c.arguments, ops);
    return;
  }
  if (message.role !== "assistant" || !Array.isArray(message.content)) return;
  for (const b of message.content) {
    if (b && typeof b === "object" && b.type === "toolCall" && "arguments" in b && "name" in b) addFileOp(b.name, b.arguments, ops);
  }
}
// prepareBranchEntries: the messages of entries (oldest first) that fit in
// tokenBudget (0: all), the newest kept; the files read and changed (from
// every entry, and from earlier branch summaries the agent made).
function prepareBranchEntries(entries, tokenBudget = 0) {
  const fileOps = { read: new Set(), written: new Set(), edited: new Set() };
  for (const e of entries) {
    if (e.type !== "branch_summary" || e.fromHook || !e.details) continue;
    if (Array.isArray(e.details.readFiles)) for (const f of e.details.readFiles) fileOps.read.add(f);
    if (Array.isArray(e.details.modifiedFiles)) for (const f of e.details.modifiedFiles) fileOps.edited.add(f);
  }
  const edits = new Map();
  for (const e of entries) if (e.type === "context_edit") edits.set(e.targetId, e);
  const messages = [];
  let totalTokens = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    const m = branchMessage(e, edits.get(e.id));
    if (!m) continue;
    fileOpsOf(m, fileOps);
    const tokens = lib.estimateTokens(m);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      // A summary is worth keeping while the budget is not nearly spent.
      if ((e.type === "compaction" || e.type === "branch_summary") && totalTokens < tokenBudget * 0.9) {
        messages.unshift(m);
        totalTokens += tokens;
      }
      break;
    }
    messages.unshift(m);
    totalTokens += tokens;
  }
  return { messages, fileOps, totalTokens };
}

// --- model references ------------------------------------------------------------
// resolveCliModel({cliProvider, cliModel, cliThinking, inlineApiKey,
// modelRuntime}): the model a --provider/--model pair names among
// modelRuntime.getModels(), as pi's command line resolves it: an exact id
// (or provider/id), then a part of an id or name; a ":level" suffix is a
// thinking level; an id a known provider lacks is a custom model of that
// provider (with a warning). Credentials (modelRuntime.hasConfiguredAuth)
// only break ties between providers.
const thinkingLevels = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
const lower = (s) => String(s).toLowerCase();
function thinkingSuffix(text) {
  const at = text.lastIndexOf(":");
  if (at === -1) return undefined;
  const level = text.slice(at + 1);
  return thinkingLevels.includes(level) ? { base: text.slice(0, at), thinkingLevel: level } : undefined;
}
// "provider/model" where provider is a known provider (the longest that
// fits: provider names may hold "/" themselves).
function providerPrefix(text, models) {
  const lt = lower(text);
  let best;
  for (const { provider } of models) {
    const p = lower(provider.trim());
    if (!p || (best && best.provider.length >= provider.length)) continue;
    const slash = lt.indexOf("/", p.length);
    if (slash === -1 || lt.slice(0, slash).trim() !== p) continue;
    const rest = text.slice(slash + 1).trim();
    if (rest) best = { provider, modelText: rest };
  }
  return best;
}
const containing = (text, models) => {
  const lt = lower(text);
  return models.filter((m) => lower(m.id).includes(lt) || (m.name != null && lower(m.name).includes(lt)));
};
// Of several matches: an alias (no -YYYYMMDD date, or -latest) before a
// dated version, then the last id in collation order.
function preferred(models) {
  const aliases = models.filter((m) => m.id.endsWith("-latest") || !/-\d{8}$/.test(m.id));
  return (aliases.length ? aliases : models).slice().sort((a, b) => b.id.localeCompare(a.id))[0];
}
const providerCount = (models) => new Set(models.map((m) => m.provider)).size;
function byReference(text, pool, fuzzy, usable) {
  const exact = pool.filter((m) => lower(m.id) === lower(text));
  const split = providerPrefix(text, pool);
  let named;
  if (split) {
    const own = pool.filter((m) => m.provider === split.provider);
    named =
      own.find((m) => lower(m.id) === lower(split.modelText)) ||
      exact.find((m) => m.provider === split.provider) ||
      (fuzzy ? preferred(containing(split.modelText, own)) : undefined);
  }
  const others = exact.filter((m) => m !== named);
  const all = named ? [named, ...others] : others;
  if (all.length === 0) return undefined;
  if (providerCount(all) === 1) return { status: "resolved", model: all[0] };
  if (named && usable(named.provider)) return { status: "resolved", model: named };
  const usableOthers = others.filter((m) => usable(m.provider));
  if (usableOthers.length === 1) return { status: "resolved", model: usableOthers[0] };
  if (usableOthers.length === 0 && named) return { status: "resolved", model: named };
  return { status: "ambiguous", candidates: all, usableCount: usableOthers.length };
}
function byPart(matches, usable) {
  if (matches.length === 0) return undefined;
  const usableOnes = providerCount(matches) > 1 ? matches.filter((m) => usable(m.provider)) : [];
  const pool = usableOnes.length ? usableOnes : matches;
  const best = preferred(pool);
  if (!best) return undefined;
  const same = pool.filter((m) => m.id === best.id);
  if (providerCount(same) === 1) return { status: "resolved", model: best };
  return { status: "ambiguous", candidates: same, usableCount: usableOnes.length ? same.length : 0 };
}
function resolveIn(text, req, pool, usable) {
  const found = byReference(text, pool, req.fuzzy, usable) || (req.fuzzy ? byPart(containing(text, pool), usable) : undefined);
  if (found) return found;
  if (req.thinkingSuffix === "none") return { status: "not-found" };
  const t = thinkingSuffix(text);
  if (t) {
    const inner = resolveIn(t.base, req, pool, usable);
    if (inner.status === "not-found") return inner;
    return Object.assign({}, inner, { thinkingLevel: inner.warning ? undefined : t.thinkingLevel });
  }
  if (req.thinkingSuffix === "strict") return { status: "not-found" };
  const at = text.lastIndexOf(":");
  if (at === -1) return { status: "not-found" };
  const inner = resolveIn(text.slice(0, at), req, pool, usable);
  if (inner.status === "not-found") return inner;
  return Object.assign({}, inner, { thinkingLevel: undefined, warning: `Invalid thinking level "${text.slice(at + 1)}" in pattern "${text}". Using default instead.` });
}
function resolveReference(req, models, usable) {
  const text = String(req.text).trim();
  if (!text) return { status: "not-found" };
  const only = req.provider ? lower(req.provider) : undefined;
  const pool = only ? models.filter((m) => lower(m.provider) === only) : models;
  const result = resolveIn(text, req, pool, usable);
  if (result.status !== "not-found") return result;
  // Not found: a custom id of the named (or given) provider.
  const split = providerPrefix(text, pool);
  const anchor = only ? pool[0] : pool.find((m) => split && m.provider === split.provider);
  if (!anchor) return result;
  const modelText = split ? split.modelText : text;
  const t = req.thinkingSuffix === "none" ? undefined : thinkingSuffix(modelText);
  return {
    status: "not-found",
    target: {
      provider: anchor.provider,
      providerModels: [anchor, ...pool.filter((m) => m.provider === anchor.provider && m !== anchor)],
      modelText,
      modelId: t ? t.base : modelText,
      thinkingLevel: t && t.thinkingLevel,
    },
  };
}
function resolveCliModel(options) {
  const { cliProvider, cliModel, cliThinking, inlineApiKey, modelRuntime } = options;
  const none = { model: undefined, warning: undefined, error: undefined };
  if (!cliModel) return none;
  const models = Array.from(modelRuntime.getModels());
  if (models.length === 0) return Object.assign(none, { error: "No models available. Check your installation or add models to models.json." });
  let provider;
  if (cliProvider) {
    const hit = models.find((m) => lower(m.provider) === lower(cliProvider));
    if (!hit) return Object.assign(none, { error: `Unknown provider "${cliProvider}". Use --list-models to see available providers/models.` });
    provider = hit.provider;
  }
  // An inline key serves whichever provider is chosen: stored credentials must not choose.
  const usable = inlineApiKey ? () => false : (p) => modelRuntime.hasConfiguredAuth(p);
  const r = resolveReference({ text: cliModel, provider, thinkingSuffix: "strict", fuzzy: true }, models, usable);
  if (r.status === "resolved") return { model: r.model, thinkingLevel: r.thinkingLevel, warning: r.warning, error: undefined };
  if (r.status === "ambiguous") {
    const names = r.candidates.map((m) => `${m.provider}/${m.id}`).sort((a, b) => a.localeCompare(b)).join(", ");
    const hint = inlineApiKey
      ? "--api-key does not choose a provider."
      : r.usableCount === 0
        ? "No matching provider is authenticated."
        : "More than one matching provider is authenticated.";
    return Object.assign(none, { error: `Model "${cliModel}" is ambiguous across providers: ${names}. ${hint} Use --provider or provider/model.` });
  }
  const target = r.target;
  if (!target) return Object.assign(none, { error: `Model "${cliModel}" not found. Use --list-models to see available models.` });
  // With --thinking the suffix stays part of the custom id.
  const modelId = cliThinking ? target.modelText : target.modelId;
  const fallbackThinking = cliThinking ? undefined : target.thinkingLevel;
  // The custom model copies its provider's default model: the first of
  // the provider's models (atomic's catalog lists each provider's default
  // first).
  const base = Object.assign({}, target.providerModels[0], { id: modelId, name: modelId });
  const thinking = cliThinking || fallbackThinking;
  return {
    model: thinking && thinking !== "off" ? Object.assign(base, { reasoning: true }) : base,
    thinkingLevel: fallbackThinking,
    warning: `Model "${modelId}" not found for provider "${target.provider}". Using custom model id.`,
    error: undefined,
  };
}

module.exports = {
  __esModule: true,
  parseSkillBlock,
  generateUnifiedPatch,
  generateDiffString,
  renderDiff,
  formatDimensionNote,
  detectSupportedImageMimeTypeFromFile,
  getShellConfig,
  collectEntriesForBranchSummary,
  prepareBranchEntries,
  resolveCliModel,
};
