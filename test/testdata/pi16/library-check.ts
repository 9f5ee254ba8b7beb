// The extension TestPi16LibraryInGoja and TestPi16LibraryInNode load: it
// uses pi 1.6's library functions (front matter, sessions as files,
// settings files, the token and compaction helpers, a name atomic does
// not support yet) in a directory the test prepends as `workDir`, and
// puts what they gave, as JSON, in its command's description. Both
// runtimes must give library-check.golden.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  SessionManager, SettingsManager, buildSessionContext, calculateContextTokens, createAgentSessionRuntime, createEventBus,
  estimateTokens, findCutPoint, getLastAssistantUsage, parseFrontmatter, serializeConversation, shouldCompact,
  stripFrontmatter, DEFAULT_COMPACTION_SETTINGS, CURRENT_SESSION_VERSION, parseSessionEntries,
} from "@earendil-works/pi-coding-agent";
import { getSupportedThinkingLevels, parseStreamingJson, contentText } from "@earendil-works/pi-ai";

declare const workDir: string;

function errorOf(f: () => unknown): string {
  try {
    f();
    return "no error";
  } catch (e) {
    return (e as Error).message;
  }
}

async function run() {
  const out: Record<string, unknown> = {};
  out.frontmatter = parseFrontmatter("---\nname: helper\ntools:\n  - read\n  - bash\ndescription: |\n  Two\n  lines\n---\n\nThe body.\n");
  out.stripped = stripFrontmatter("---\na: 1\n---\nonly this");
  out.noFrontmatter = parseFrontmatter("plain text");
  out.yaml = parseFrontmatter(
    "---\r\n# a comment\r\nfolded: >\r\n  one\r\n  two\r\n\r\n  three\r\nflow: {a: 1, b: [x, 'y z'], c: null}\r\n" +
      "quoted: \"tab\\there \\u00e9\"\r\nsingle: 'it''s' # trailing\r\nagents:\r\n  - name: a\r\n    tools: [read]\r\n  - name: b\r\n" +
      "numbers: [0x1f, 1e3, -2, .5, ~, yes]\r\nurl: http://x.y/z?q=1#frag\r\nkeep: |+\r\n  text\r\n\r\nlast: end\r\n---\r\nbody",
  ).frontmatter;
  out.badYaml = errorOf(() => parseFrontmatter("---\nkey: [unclosed\n---\n")) !== "no error";

  const cwd = path.join(workDir, "project");
  fs.mkdirSync(path.join(cwd, ".atomic"), { recursive: true });
  const agentDir = path.join(workDir, "agent");
  fs.mkdirSync(agentDir, { recursive: true });
  fs.writeFileSync(path.join(agentDir, "settings.json"), JSON.stringify({ defaultModel: "m1", compaction: { reserveTokens: 1000 }, queueMode: "all" }));
  fs.writeFileSync(path.join(cwd, ".atomic", "settings.json"), JSON.stringify({ defaultModel: "m2" }));
  const settings = SettingsManager.create(cwd, agentDir);
  out.settings = {
    model: settings.getDefaultModel(),
    compaction: settings.getCompactionSettings(),
    steering: settings.getSteeringMode(),
    global: settings.getGlobalSettings().defaultModel,
  };
  settings.setDefaultThinkingLevel("high");
  await settings.flush();
  out.settingsFile = JSON.parse(fs.readFileSync(path.join(agentDir, "settings.json"), "utf8"));
  out.inMemory = SettingsManager.inMemory({ theme: "dark" }).getTheme();

  const sessionDir = path.join(workDir, "sessions");
  const sm = SessionManager.create(cwd, sessionDir);
  const file = sm.getSessionFile()!;
  out.notWrittenYet = fs.existsSync(file);
  sm.appendModelChange("faux", "m1");
  const u1 = sm.appendMessage({ role: "user", content: [{ type: "text", text: "hello there" }], timestamp: 1 });
  const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
  sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "hi" }, { type: "toolCall", id: "t1", name: "read", arguments: { path: "a.txt" } }], provider: "faux", model: "m1", usage, stopReason: "toolUse", timestamp: 2 });
  sm.appendMessage({ role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "file text" }], isError: false, timestamp: 3 });
  sm.appendLabelChange(u1, "start");
  sm.appendSessionInfo("my\nsession");
  out.written = fs.existsSync(file);
  const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  out.fileTypes = lines.map((e) => e.type);
  out.header = { version: lines[0].version, cwd: lines[0].cwd === cwd, version3: CURRENT_SESSION_VERSION };
  const reopened = SessionManager.open(file);
  out.reopened = {
    id: reopened.getSessionId() === sm.getSessionId(),
    name: reopened.getSessionName(),
    label: reopened.getLabel(u1),
    entries: reopened.getEntries().length,
    branch: reopened.getBranch().length,
    tree: reopened.getTree().length,
  };
  const ctx = buildSessionContext(reopened.getEntries(), reopened.getLeafId());
  out.context = { roles: ctx.messages.map((m: any) => m.role), model: ctx.model, thinking: ctx.thinkingLevel };
  out.serialized = serializeConversation(ctx.messages as any);
  out.tokens = ctx.messages.map((m: any) => estimateTokens(m));
  out.lastUsage = calculateContextTokens(getLastAssistantUsage(reopened.getEntries())!);
  out.shouldCompact = [shouldCompact(190000, 200000, DEFAULT_COMPACTION_SETTINGS), shouldCompact(1000, 200000, DEFAULT_COMPACTION_SETTINGS)];
  out.cut = findCutPoint(reopened.getEntries(), 0, reopened.getEntries().length, 5);
  const list = await SessionManager.list(cwd, sessionDir);
  out.list = list.map((s) => ({ name: s.name, first: s.firstMessage, count: s.messageCount }));
  const mem = SessionManager.inMemory(cwd);
  mem.appendMessage({ role: "user", content: "x", timestamp: 1 });
  out.inMemorySession = { persisted: mem.isPersisted(), file: mem.getSessionFile() === undefined, entries: mem.getEntries().length };
  out.parsed = parseSessionEntries('{"type":"session","id":"a"}\nnot json\n{"type":"message","id":"b"}\n').length;

  const bus = createEventBus();
  const seen: unknown[] = [];
  const off = bus.on("ch", (d) => { seen.push(d); });
  bus.emit("ch", 1);
  off();
  bus.emit("ch", 2);
  await Promise.resolve();
  out.bus = seen;

  out.thinking = [getSupportedThinkingLevels({ reasoning: false } as any), getSupportedThinkingLevels({ reasoning: true, thinkingLevelMap: { minimal: null, xhigh: "max" } } as any)];
  out.partialJson = parseStreamingJson('{"path": "a.txt", "lines": [1, 2');
  out.contentText = contentText([{ type: "text", text: "a" }, { type: "image" } as any, { type: "text", text: "b" }]);
  out.unsupported = errorOf(() => (createAgentSessionRuntime as any)({}));
  return out;
}

export default async function (pi: any) {
  let description: string;
  try {
    description = JSON.stringify(await run(), null, 1);
  } catch (e) {
    description = `failed: ${(e as Error).stack || e}`;
  }
  pi.registerCommand("library", { description, handler: async () => {} });
}
