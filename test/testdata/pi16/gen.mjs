// Generates session files written by pi 1.6 itself, for the tests that
// check that atomic reads them as pi does (host/rpc/pi16_sessions_e2e_test.go).
//
// Run by hand (not in CI), with Node 22 and pi 1.6 installed:
//
//   npm install --prefix /tmp/pi16 @earendil-works/pi-coding-agent@1.6.0
//   node test/testdata/pi16/gen.mjs /tmp/pi16/node_modules/@earendil-works/pi-coding-agent
//
// It starts a local fake model (OpenAI chat completions, streamed as SSE),
// points pi at it through models.json in an isolated HOME and agent
// directory, drives `pi --mode rpc` (prompts, a bash tool call, a manual
// `compact` with customInstructions, a prompt after it), and copies the
// session files pi wrote into this directory as compacted.jsonl. The
// requests pi sent to the model are written to requests.json (the context
// pi built after the compaction is the last one).
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const piDir = process.argv[2];
if (!piDir) {
	console.error("usage: node gen.mjs <path of @earendil-works/pi-coding-agent>");
	process.exit(2);
}

// The fake model: each request gets the next scripted reply; a request
// whose last message asks for a summary gets the summary.
const replies = [
	{ text: "Hello! I am the local model." },
	{ tool: { id: "call_pi16_1", name: "bash", args: { command: "echo hi" } } },
	{ text: "The command printed hi." },
	{ text: "Third answer, with\nseveral lines\nof text." },
	{ text: "After the compaction." },
];
const requests = [];
let next = 0;

function sse(res, chunks) {
	res.writeHead(200, { "content-type": "text/event-stream" });
	for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
	res.end("data: [DONE]\n\n");
}

function chunk(delta, finish) {
	return { id: "c1", object: "chat.completion.chunk", created: 1, model: "local-model", choices: [{ index: 0, delta, finish_reason: finish ?? null }] };
}

const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

const server = createServer((req, res) => {
	let body = "";
	req.on("data", (d) => (body += d));
	req.on("end", () => {
		const parsed = JSON.parse(body);
		requests.push(parsed);
		const last = JSON.stringify(parsed.messages.at(-1) ?? {});
		if (/summar/i.test(last) && !/"tools"/.test(Object.keys(parsed).join('"'))) {
			const text = "## Goal\nSay hello and run echo hi.\n\n## Progress\nThe command printed hi.";
			return sse(res, [chunk({ role: "assistant", content: text }), { ...chunk({}, "stop"), usage }]);
		}
		const r = replies[next++] ?? { text: "out of script" };
		if (r.tool) {
			return sse(res, [
				chunk({ role: "assistant", tool_calls: [{ index: 0, id: r.tool.id, type: "function", function: { name: r.tool.name, arguments: "" } }] }),
				chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(r.tool.args) } }] }),
				{ ...chunk({}, "tool_calls"), usage },
			]);
		}
		return sse(res, [chunk({ role: "assistant", content: r.text }), { ...chunk({}, "stop"), usage }]);
	});
});

await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;

const home = mkdtempSync(join(tmpdir(), "pi16-gen-"));
const agentDir = join(home, ".pi", "agent");
const cwd = join(home, "project");
mkdirSync(agentDir, { recursive: true });
mkdirSync(cwd, { recursive: true });
writeFileSync(
	join(agentDir, "models.json"),
	JSON.stringify({
		providers: {
			local: {
				baseUrl: `http://127.0.0.1:${port}/v1`,
				api: "openai-completions",
				apiKey: "local-key",
				models: [{ id: "local-model", name: "Local Model", contextWindow: 16000, maxTokens: 1024 }],
			},
		},
	}),
);

// Keep only the last few tokens, so that a short conversation compacts
// (and automatic compaction stays out of the way).
writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 30 } }));

const child = spawn(process.execPath, [join(piDir, "dist/bundle/cli.js"), "--mode", "rpc", "--provider", "local", "--model", "local-model"], {
	cwd,
	env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
	stdio: ["pipe", "pipe", "inherit"],
});

let buf = "";
const waiters = [];
child.stdout.on("data", (d) => {
	buf += d;
	let i;
	while ((i = buf.indexOf("\n")) >= 0) {
		const line = buf.slice(0, i);
		buf = buf.slice(i + 1);
		const rec = JSON.parse(line);
		for (const w of [...waiters]) {
			if (w.match(rec)) {
				waiters.splice(waiters.indexOf(w), 1);
				w.resolve(rec);
			}
		}
	}
});
const wait = (match) => new Promise((resolve) => waiters.push({ match, resolve }));
let ids = 0;
async function send(cmd) {
	const id = `g${++ids}`;
	const resp = wait((r) => r.type === "response" && r.id === id);
	child.stdin.write(JSON.stringify({ id, ...cmd }) + "\n");
	const r = await resp;
	if (!r.success) throw new Error(`${cmd.type}: ${r.error}`);
	return r;
}
async function prompt(message) {
	const settled = wait((r) => r.type === "agent_settled");
	await send({ type: "prompt", message });
	await settled;
}

await prompt("hello");
await prompt("run echo hi");
await prompt("tell me more");
const compacted = await send({ type: "compact", customInstructions: "Focus on the command" });
await prompt("what now?");
const state = await send({ type: "get_state" });
child.stdin.end();
await new Promise((r) => child.on("exit", r));
server.close();

const sessionFile = state.data.sessionFile;
copyFileSync(sessionFile, join(here, "compacted.jsonl"));
writeFileSync(join(here, "requests.json"), JSON.stringify({ compact: compacted.data, requests }, null, 1) + "\n");
console.error(`wrote ${join(here, "compacted.jsonl")} from ${sessionFile}`);
console.error(readdirSync(dirname(sessionFile)).join("\n"));
