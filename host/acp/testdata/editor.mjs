// A minimal editor on the official TypeScript ACP SDK: it starts the agent,
// runs a short session and writes what it saw to a JSON file for the Go
// test to check. Usage: node editor.mjs <agent binary> <cwd> <out.json>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { writeFileSync } from "node:fs";
import { ClientApp, ndJsonStream } from "@agentclientprotocol/sdk";

const [bin, cwd, outPath] = process.argv.slice(2);
const child = spawn(bin, ["--mode", "acp"], { cwd, stdio: ["pipe", "pipe", "inherit"], env: process.env });
const updates = [];
const permissions = [];
const app = new ClientApp()
  .onNotification("session/update", (ctx) => { updates.push(ctx.params.update); })
  .onRequest("session/request_permission", (ctx) => {
    permissions.push(ctx.params);
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });
const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
const out = { steps: {} };
try {
  out.steps.initialize = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const ns = await agent.request("session/new", { cwd, mcpServers: [] });
  out.steps.newSession = ns;
  const sessionId = ns.sessionId;
  out.steps.prompt = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
  out.steps.bash = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
  out.steps.edit = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit" }] });
  out.steps.config = await agent.request("session/set_config_option", { sessionId, configId: "thinking", value: "high" });
  out.steps.list = await agent.request("session/list", {});
  try {
    await agent.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] });
    out.steps.unknown = "accepted";
  } catch (e) {
    out.steps.unknown = { code: e.code, message: e.message };
  }
  out.steps.close = await agent.request("session/close", { sessionId });
} catch (e) {
  out.fatal = String(e && e.stack || e);
}
out.updates = updates;
out.permissions = permissions;
writeFileSync(outPath, JSON.stringify(out));
child.stdin.end();
conn.close();
await new Promise((r) => child.on("exit", r));
