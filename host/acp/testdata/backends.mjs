// An editor on the official TypeScript ACP SDK that offers its buffers,
// its terminals and form elicitation: the agent (with acp.useClientFs and
// acp.useClientTerminal on) reads, edits and runs commands through it.
// Usage: node backends.mjs <agent binary> <cwd> <out.json> [agent args...]
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClientApp, ndJsonStream } from "@agentclientprotocol/sdk";

const [bin, cwd, outPath, ...args] = process.argv.slice(2);
const child = spawn(bin, args.length ? args : ["--mode", "acp"], { cwd, stdio: ["pipe", "pipe", "inherit"], env: process.env });
const updates = [];
const buffers = { [join(cwd, "f.txt")]: "unsaved buffer\n" };
const terminals = new Map();
const log = { reads: [], writes: [], created: [], released: [], elicitations: [] };
let next = 0;
const app = new ClientApp()
  .onNotification("session/update", (ctx) => { updates.push(ctx.params.update); })
  .onRequest("fs/read_text_file", (ctx) => {
    log.reads.push(ctx.params);
    const text = buffers[ctx.params.path];
    if (text === undefined) throw Object.assign(new Error("Resource not found"), { code: -32002 });
    return { content: text };
  })
  .onRequest("fs/write_text_file", (ctx) => {
    log.writes.push(ctx.params);
    buffers[ctx.params.path] = ctx.params.content;
    return {};
  })
  .onRequest("terminal/create", (ctx) => {
    log.created.push(ctx.params);
    const env = { ...process.env };
    for (const v of ctx.params.env ?? []) env[v.name] = v.value;
    const p = spawn(ctx.params.command, ctx.params.args ?? [], { cwd: ctx.params.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const t = { output: "", exit: null, done: null };
    t.done = new Promise((r) => p.on("exit", (code, signal) => { t.exit = { exitCode: code, signal }; r(); }));
    p.stdout.on("data", (d) => { t.output += d; });
    p.stderr.on("data", (d) => { t.output += d; });
    t.proc = p;
    const id = "ts-term-" + (++next);
    terminals.set(id, t);
    return { terminalId: id };
  })
  .onRequest("terminal/output", (ctx) => {
    const t = terminals.get(ctx.params.terminalId);
    return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
  })
  .onRequest("terminal/wait_for_exit", async (ctx) => {
    const t = terminals.get(ctx.params.terminalId);
    await t.done;
    return t.exit;
  })
  .onRequest("terminal/kill", (ctx) => { terminals.get(ctx.params.terminalId).proc.kill(); return {}; })
  .onRequest("terminal/release", (ctx) => {
    log.released.push(ctx.params.terminalId);
    terminals.get(ctx.params.terminalId).proc.kill();
    return {};
  })
  .onRequest("elicitation/create", (ctx) => {
    log.elicitations.push(ctx.params);
    return { action: "accept", content: { value: "Ada" } };
  });
const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
const out = { steps: {} };
try {
  out.steps.initialize = await agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, elicitation: { form: {} } },
  });
  const ns = await agent.request("session/new", { cwd, mcpServers: [] });
  const sessionId = ns.sessionId;
  for (const step of ["read", "edit", "bash", "ask"]) {
    out.steps[step] = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: step }] });
  }
} catch (e) {
  out.fatal = String(e && e.stack || e);
}
out.updates = updates;
out.buffers = buffers;
out.log = log;
writeFileSync(outPath, JSON.stringify(out));
child.stdin.end();
conn.close();
await new Promise((r) => child.on("exit", r));
