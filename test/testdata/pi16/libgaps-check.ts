// The extension TestPi16UtilitiesInGoja and TestPi16UtilitiesInNode load
// (and libgaps.mjs runs against pi 1.6 itself to record libgaps.golden):
// it calls the library functions of pi 1.6 that atomic provides as pi's
// (skill blocks, diffs, renderDiff, image sniffing, the dimension note,
// the shell, the branch-summary helpers, resolveCliModel) on a fixed
// corpus, in a directory the runner prepends as `workDir`, and puts what
// they gave, as JSON, in its command's description (compact; the golden
// file is that JSON indented by one space). Plain JavaScript (no type
// annotations), so Node runs it as it is when recording.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  collectEntriesForBranchSummary,
  convertToLlm,
  detectSupportedImageMimeTypeFromFile,
  formatDimensionNote,
  generateDiffString,
  generateUnifiedPatch,
  getShellConfig,
  parseSkillBlock,
  prepareBranchEntries,
  renderDiff,
  resolveCliModel,
} from "@earendil-works/pi-coding-agent";
import {
  collapseSystemMessages,
  createInitialSystemMessage,
  getCurrentSystemMessage,
  getCurrentSystemPrompt,
  getCurrentTools,
  normalizeContext,
} from "@earendil-works/pi-ai";

const hide = (v) => JSON.parse(JSON.stringify(v === undefined ? null : v).split(workDir).join("<work>"));
function attempt(f) {
  try {
    return { value: f() };
  } catch (e) {
    return { error: String(e && e.message).split(workDir).join("<work>") };
  }
}

const numbered = (n, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n") + "\n";
function edit(text, changes) {
  const lines = text.split("\n");
  for (const [at, repl] of changes) lines.splice(at, 1, ...(repl === undefined ? [] : [].concat(repl)));
  return lines.join("\n");
}
const long = numbered(60);
const diffCases = [
  ["same", "a\nb\n", "a\nb\n"],
  ["empty to text", "", "one\ntwo\n"],
  ["text to empty", "one\ntwo\n", ""],
  ["both empty", "", ""],
  ["no final newline", "a\nb", "a\nc"],
  ["newline added at end", "a\nb", "a\nb\n"],
  ["one line changed", "alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n"],
  ["middle of a long file", long, edit(long, [[30, "changed 31"]])],
  ["two changes close", long, edit(edit(long, [[10, "ten"]]), [[14, "fourteen"]])],
  ["two changes far", long, edit(edit(long, [[3, "three"]]), [[50, "fifty"]])],
  ["insert and delete", long, edit(edit(long, [[5, ["new a", "new b", "new c"]]]), [[40, undefined]])],
  ["at the start", long, edit(long, [[0, "first"]])],
  ["at the end", long, edit(long, [[59, "last"]])],
  ["crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"],
  ["tabs and words", "\tconst x = foo(1, 2);\n\treturn x;\n", "\tconst x = bar(1, 3);\n\treturn x;\n"],
  ["indent changed", "if (a) {\n  go();\n}\n", "if (a) {\n    go();\n}\n"],
  ["unicode", "héllo wörld\n日本\n", "héllo world\n日本語\n"],
  ["block replaced", numbered(8), numbered(8, 100)],
  ["repeated lines", "x\nx\nx\ny\nx\nx\n", "x\ny\nx\nx\ny\nx\n"],
  ["wide numbers", numbered(1200), edit(numbered(1200), [[1000, "thousand"], [7, "seven"]])],
];

async function run() {
  const out = {};

  out.skillBlocks = [
    '<skill name="deploy" location="/skills/deploy/SKILL.md">\nStep one.\nStep two.\n</skill>',
    '<skill name="deploy" location="/s/SKILL.md">\nBody\n</skill>\n\nPlease deploy now.  ',
    '<skill name="x" location="/l">\n\n</skill>\n\n   ',
    '<skill name="x" location="/l">\nBody\n</skill>\nno blank line',
    '<skill name="x">\nBody\n</skill>',
    "plain text",
    ' <skill name="x" location="/l">\nBody\n</skill>',
    '<skill name="a b" location="C:\\dir\\SKILL.md">\nline\n</skill>\n\nfirst\n\nsecond',
  ].map((t) => hide(parseSkillBlock(t)));

  out.diffs = diffCases.map(([name, a, b]) => {
    const shown = generateDiffString(a, b);
    return {
      name,
      shown: hide(shown),
      context1: generateDiffString(a, b, 1).diff,
      context0: generateDiffString(a, b, 0).diff,
      patch: generateUnifiedPatch("src/file name.ts", a, b),
      patch1: generateUnifiedPatch("f", a, b, 1),
      rendered: renderDiff(shown.diff),
    };
  });
  out.renderOther = ["", "not a diff", "\tx tab-prefixed", "-  3 gone\n+  3 back\n+  4 more", "- 1 a\n- 2 b\n+ 1 c", "+\t1 odd", "   ...", "-1\tx\n+1\ty"].map((t) =>
    renderDiff(t),
  );

  out.dimensionNotes = [
    { wasResized: false, width: 10, height: 10, originalWidth: 10, originalHeight: 10 },
    { wasResized: true, width: 1000, height: 500, originalWidth: 4000, originalHeight: 2000 },
    { wasResized: true, width: 768, height: 1024, originalWidth: 1000, originalHeight: 1333 },
    { wasResized: true, width: 3, height: 1, originalWidth: 10, originalHeight: 3 },
  ].map((r) => hide(formatDimensionNote(r)));

  const u32be = (n) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const u32le = (n) => u32be(n).reverse();
  const ascii = (s) => Array.from(s, (c) => c.charCodeAt(0));
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const ihdr = [...u32be(13), ...ascii("IHDR"), ...new Array(13).fill(1), 0, 0, 0, 0];
  const chunk = (type, n) => [...u32be(n), ...ascii(type), ...new Array(n).fill(0), 0, 0, 0, 0];
  const bmp = (header, planes, bpp, size = 70, dataAt = 54) => {
    const b = [...ascii("BM"), ...u32le(size), 0, 0, 0, 0, ...u32le(dataAt), ...u32le(header)];
    while (b.length < 40) b.push(0);
    const at = header === 12 ? 22 : 26;
    b[at] = planes;
    b[at + 2] = bpp;
    return b;
  };
  const images = {
    png: [...png, ...ihdr, ...chunk("IDAT", 4)],
    apng: [...png, ...ihdr, ...chunk("acTL", 8), ...chunk("IDAT", 4)],
    apngAfterData: [...png, ...ihdr, ...chunk("IDAT", 4), ...chunk("acTL", 8)],
    pngBadHeader: [...png, ...u32be(12), ...ascii("IHDR"), 0, 0, 0, 0],
    pngShort: png,
    jpeg: [0xff, 0xd8, 0xff, 0xe0, 0, 16],
    jpegLs: [0xff, 0xd8, 0xff, 0xf7, 0, 16],
    gif87: ascii("GIF87a......"),
    gif89: ascii("GIF89a......"),
    webp: [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBPVP8 ")],
    riffWave: [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WAVEfmt ")],
    bmp: bmp(40, 1, 24),
    bmpCore: bmp(12, 1, 8),
    bmpBadPlanes: bmp(40, 2, 24),
    bmpBadBpp: bmp(40, 1, 7),
    bmpBadOffset: bmp(40, 1, 24, 70, 20),
    bmpShort: ascii("BM1234"),
    text: ascii("hello, world\n"),
    empty: [],
  };
  const dir = path.join(workDir, "images");
  fs.mkdirSync(dir, { recursive: true });
  out.images = {};
  for (const [name, bytes] of Object.entries(images)) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, Buffer.from(bytes));
    out.images[name] = await detectSupportedImageMimeTypeFromFile(file);
  }
  try {
    await detectSupportedImageMimeTypeFromFile(path.join(dir, "missing"));
    out.images.missing = "no error";
  } catch (e) {
    out.images.missing = e.code;
  }

  const shellFile = path.join(workDir, "my shell");
  fs.writeFileSync(shellFile, "#!/bin/sh\n");
  out.shell = [attempt(() => getShellConfig()), attempt(() => getShellConfig(shellFile)), attempt(() => getShellConfig(path.join(workDir, "nope")))].map(hide);

  // A session tree: root u1 → a1 → u2 → a2 → (c1 | u3 → a3 → bs1 → cm1 → ce1 …)
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 };
  const ts = (n) => `2026-01-0${n}T10:00:00.000Z`;
  const msg = (id, parentId, message) => ({ type: "message", id, parentId, timestamp: ts(1), message });
  const entries = [
    msg("u1", null, { role: "user", content: "Read the config and fix it.", timestamp: 1 }),
    msg("a1", "u1", {
      role: "assistant",
      content: [
        { type: "text", text: "Reading." },
        { type: "toolCall", id: "t1", name: "read", arguments: { path: "config.json" } },
        { type: "toolCall", id: "t2", name: "bash", arguments: { command: "ls" } },
      ],
      usage,
      stopReason: "toolUse",
      timestamp: 2,
    }),
    msg("r1", "a1", { role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "{}" }], isError: false, timestamp: 3 }),
    msg("a2", "r1", {
      role: "assistant",
      content: [
        { type: "toolCall", id: "t3", name: "edit", arguments: { path: "config.json", edits: [] } },
        { type: "toolCall", id: "t4", name: "write", arguments: { path: "notes.md", content: "x".repeat(400) } },
        { type: "toolCall", id: "t5", name: "read", arguments: { path: "notes.md" } },
      ],
      usage,
      stopReason: "toolUse",
      timestamp: 4,
    }),
    msg("c1", "a2", { role: "user", content: "the other branch", timestamp: 5 }),
    { type: "model_change", id: "mc1", parentId: "a2", timestamp: ts(2), provider: "p", modelId: "m" },
    { type: "branch_summary", id: "bs1", parentId: "mc1", timestamp: ts(3), fromId: "zz", summary: "Explored a fix.", details: { readFiles: ["old.txt"], modifiedFiles: ["older.txt"] } },
    { type: "branch_summary", id: "bs2", parentId: "bs1", timestamp: ts(3), fromId: "zz", summary: "From a hook.", fromHook: true, details: { readFiles: ["hook.txt"] } },
    { type: "custom_message", id: "cm1", parentId: "bs2", timestamp: ts(4), customType: "note", content: "A note " + "y".repeat(300), display: true, details: { k: 1 } },
    { type: "compaction", id: "k1", parentId: "cm1", timestamp: ts(5), summary: "Compacted summary.", firstKeptEntryId: "cm1", tokensBefore: 1234 },
    msg("u3", "k1", { role: "user", content: [{ type: "text", text: "Now something else, please." }], timestamp: 6 }),
    { type: "label", id: "l1", parentId: "u3", timestamp: ts(6), targetId: "u3", label: "here" },
    msg("a3", "l1", { role: "assistant", content: [{ type: "text", text: "Sure " + "z".repeat(200) }], usage, stopReason: "stop", timestamp: 7 }),
    { type: "context_edit", id: "ce1", parentId: "a3", timestamp: ts(7), targetId: "a3", replacement: { content: "edited answer" } },
    { type: "context_edit", id: "ce2", parentId: "ce1", timestamp: ts(7), targetId: "cm1", replacement: null },
    msg("u4", "ce2", { role: "user", content: "last", timestamp: 8 }),
  ];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const session = {
    getEntry: (id) => byId.get(id),
    getBranch: (id) => {
      const p = [];
      for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) p.unshift(e);
      return p;
    },
  };
  const ids = (r) => ({ entries: r.entries.map((e) => e.id), commonAncestorId: r.commonAncestorId });
  out.collect = [
    ids(collectEntriesForBranchSummary(session, "u4", "c1")),
    ids(collectEntriesForBranchSummary(session, "c1", "u4")),
    ids(collectEntriesForBranchSummary(session, "u4", "u4")),
    ids(collectEntriesForBranchSummary(session, "u4", "u1")),
    ids(collectEntriesForBranchSummary(session, null, "u1")),
    ids(collectEntriesForBranchSummary(session, "u4", "missing")),
  ];
  const branch = collectEntriesForBranchSummary(session, "u4", "c1").entries;
  const whole = session.getBranch("u4");
  const prepared = (list, budget) => {
    const r = budget === undefined ? prepareBranchEntries(list) : prepareBranchEntries(list, budget);
    return {
      messages: r.messages,
      totalTokens: r.totalTokens,
      read: Array.from(r.fileOps.read),
      written: Array.from(r.fileOps.written),
      edited: Array.from(r.fileOps.edited),
    };
  };
  out.prepare = [prepared(branch), prepared(whole), prepared(whole, 0), prepared(whole, 60), prepared(whole, 130), prepared(whole, 10), prepared(whole, 20), prepared(whole, 26), prepared(whole, 150), prepared([])];
  const model = (provider, id, name, extra) => Object.assign({ provider, id, name: name || id, api: "openai-completions", contextWindow: 1000, maxTokens: 100, reasoning: false }, extra || {});
  const catalog = [
    model("anthropic", "claude-opus-5-5", "Claude Opus 5.5", { reasoning: true }),
    model("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5 (dated)"),
    model("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5"),
    model("anthropic", "claude-haiku-4-5-20251001", "Claude Haiku"),
    model("acme", "rocket-1", "Rocket One"),
    model("acme", "rocket-2-latest", "Rocket Two"),
    model("acme", "shared-model", "Shared"),
    model("other", "shared-model", "Shared elsewhere"),
    model("third", "shared-model", "Shared third"),
    model("zai", "glm-5", "GLM 5"),
    model("gateway", "zai/glm-5", "GLM via gateway"),
    model("gateway", "mystery", "Has rocket in name"),
    model("my/proxy", "proxied", "Proxied"),
  ];
  const runtime = (models, authed) => ({ getModels: () => models, hasConfiguredAuth: (p) => authed.includes(p) });
  const rt = runtime(catalog, ["anthropic", "acme"]);
  const cli = [
    [{}, rt],
    [{ cliModel: "x" }, runtime([], [])],
    [{ cliProvider: "nope", cliModel: "x" }, rt],
    [{ cliModel: "rocket-1" }, rt],
    [{ cliModel: "ROCKET-1" }, rt],
    [{ cliModel: "  rocket-1  " }, rt],
    [{ cliModel: "acme/rocket-1" }, rt],
    [{ cliModel: "sonnet" }, rt],
    [{ cliModel: "haiku" }, rt],
    [{ cliModel: "rocket" }, rt],
    [{ cliModel: "rocket-1:high" }, rt],
    [{ cliModel: "rocket-1:bogus" }, rt],
    [{ cliModel: "acme/brand-new" }, rt],
    [{ cliModel: "acme/brand-new:high" }, rt],
    [{ cliModel: "acme/brand-new:off" }, rt],
    [{ cliModel: "acme/brand-new:high", cliThinking: "low" }, rt],
    [{ cliModel: "anthropic/claude-next" }, rt],
    [{ cliProvider: "ACME", cliModel: "unknown-one" }, rt],
    [{ cliProvider: "anthropic", cliModel: "sonnet" }, rt],
    [{ cliModel: "shared-model" }, rt],
    [{ cliModel: "shared-model" }, runtime(catalog, [])],
    [{ cliModel: "shared-model" }, runtime(catalog, ["other", "third"])],
    [{ cliModel: "shared-model" }, runtime(catalog, ["other"])],
    [{ cliModel: "shared-model", inlineApiKey: "k" }, rt],
    [{ cliModel: "shared" }, runtime(catalog, ["other", "third"])],
    [{ cliModel: "zai/glm-5" }, runtime(catalog, ["zai"])],
    [{ cliModel: "zai/glm-5" }, runtime(catalog, ["gateway"])],
    [{ cliModel: "zai/glm-5" }, runtime(catalog, [])],
    [{ cliModel: "my/proxy/proxied" }, rt],
    [{ cliModel: "my/proxy/other" }, rt],
    [{ cliModel: "nothing-like-it" }, rt],
    [{ cliModel: "gateway/rocket" }, rt],
  ];
  out.cliModels = cli.map(([o, runtime]) => hide(resolveCliModel(Object.assign({ modelRuntime: runtime }, o))));

  // The agent's messages as the model sees them.
  out.convertToLlm = hide(
    convertToLlm([
      { role: "user", content: "plain", timestamp: 1700000000000 },
      { role: "assistant", content: [{ type: "text", text: "answer" }], stopReason: "stop", timestamp: 1700000000000 },
      { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "out" }], isError: false, timestamp: 1700000000000 },
      { role: "bashExecution", command: "ls", output: "a\nb\n", exitCode: 0, cancelled: false, truncated: false, timestamp: 1700000000000 },
      { role: "bashExecution", command: "make", output: "", exitCode: 2, cancelled: false, truncated: true, fullOutputPath: "/tmp/full.log", timestamp: 1700000000000 },
      { role: "bashExecution", command: "sleep 9", output: "x", cancelled: true, truncated: true, timestamp: 1700000000000 },
      { role: "bashExecution", command: "secret", output: "hidden", exitCode: 0, excludeFromContext: true, timestamp: 1700000000000 },
      { role: "custom", customType: "note", content: "as text", display: true, timestamp: 1700000000000 },
      { role: "custom", customType: "note", content: [{ type: "text", text: "as blocks" }], display: false, timestamp: 1700000000000 },
      { role: "branchSummary", summary: "went left", fromId: "abc", timestamp: 1700000000000 },
      { role: "compactionSummary", summary: "earlier talk", tokensBefore: 1000, timestamp: 1700000000000 },
      { role: "unknownRole", content: "dropped", timestamp: 1700000000000 },
    ]),
  );

  // pi 1.6's transcript: system messages replayed into one prompt and
  // one tool set.
  const tool = (name) => ({ name, description: name + " tool", parameters: { type: "object", properties: {} } });
  const transcript = [
    { role: "system", content: "Base prompt.", sections: { rules: "<rules>be brief</rules>", style: "<style>plain</style>" }, toolsAdded: [tool("read"), tool("bash")], timestamp: 5 },
    { role: "user", content: "hi", timestamp: 6 },
    { role: "system", content: [{ type: "text", text: "More." }, { type: "text", text: "Again." }], sections: { rules: null, extra: "<extra/>" }, toolsRemoved: [{ name: "read" }], toolsAdded: [tool("grep")], timestamp: 7 },
  ];
  out.transcript = hide({
    current: getCurrentSystemMessage(transcript),
    prompt: getCurrentSystemPrompt(transcript),
    none: getCurrentSystemPrompt([{ role: "user", content: "x", timestamp: 1 }]),
    tools: getCurrentTools(transcript).map((t) => t.name),
    collapsed: collapseSystemMessages({ messages: transcript }).messages.map((m) => m.role),
    initial: createInitialSystemMessage("P", [tool("ls")]),
    empty: createInitialSystemMessage("", []),
    normalized: normalizeContext({ systemPrompt: "S", messages: [{ role: "user", content: "u", timestamp: 1 }] }).messages.map((m) => m.role),
  });
  return out;
}

export default async function (pi) {
  let description;
  try {
    // Compact: the runners indent it (goja's JSON.stringify indents what
    // follows an empty array one level too deep).
    description = JSON.stringify(await run());
  } catch (e) {
    description = `failed: ${(e && e.stack) || e}`;
  }
  pi.registerCommand("utilities", { description, handler: async () => {} });
}
