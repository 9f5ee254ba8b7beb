// Drives an agent through the published pi RpcClient and writes what each
// step returned to a JSON file; the Go test checks the values.
//
//   node driver.mjs <cliPath> <cwd> <results.json>
import { RpcClient } from "@mariozechner/pi-coding-agent";
import { writeFileSync } from "node:fs";

const [cliPath, cwd, outPath] = process.argv.slice(2);
const results = { steps: [] };
const events = []; // every event the client saw, in order
const save = () => writeFileSync(outPath, JSON.stringify(results, null, 1));

const client = new RpcClient({ cliPath, cwd, args: ["--no-skills"] });

async function step(name, fn) {
	const from = events.length;
	const rec = { name };
	try {
		rec.value = await fn();
	} catch (err) {
		rec.error = String(err?.message ?? err);
	}
	rec.events = events.slice(from);
	results.steps.push(rec);
	save();
}

// waitFor resolves once the client has seen n events of a type.
function waitFor(type, n, timeoutMs = 10000) {
	return new Promise((resolve, reject) => {
		const deadline = Date.now() + timeoutMs;
		const tick = () => {
			if (events.filter((e) => e.type === type).length >= n) return resolve();
			if (Date.now() > deadline) return reject(new Error(`timeout waiting for ${n} ${type}`));
			setTimeout(tick, 5);
		};
		tick();
	});
}

try {
	await client.start();
	client.onEvent((e) => events.push(e));

	await step("getState", () => client.getState());
	await step("getAvailableModels", () => client.getAvailableModels());
	await step("setModel", () => client.setModel("local", "local-other"));
	await step("promptText", async () => {
		const collected = await client.promptAndWait("Say hello", undefined, 20000);
		await waitFor("agent_settled", 1);
		return collected;
	});
	await step("promptBash", async () => {
		const idle = client.waitForIdle(20000);
		await client.prompt("Run the check");
		await idle;
		await waitFor("agent_settled", 2);
		return null;
	});
	await step("getMessages", () => client.getMessages());
	await step("getLastAssistantText", () => client.getLastAssistantText());
	await step("getSessionStats", () => client.getSessionStats());
	await step("bash", () => client.bash("echo direct-$((20+22)) && pwd"));
	await step("newSession", () => client.newSession());
	await step("getStateAfterNewSession", () => client.getState());
	await step("getCommands", () => client.getCommands());
	// The client has no method for an unknown command; its send() is the
	// raw path every method uses (private in the typings only).
	await step("unknownCommand", () => client.send({ type: "interop_unknown" }));
	await step("stop", async () => {
		const child = client.process;
		const t0 = Date.now();
		await client.stop();
		return { exitCode: child.exitCode, signalCode: child.signalCode, stoppedWithinGrace: Date.now() - t0 < 1000 };
	});
	results.stderr = client.getStderr();
} catch (err) {
	results.fatal = String(err?.stack ?? err);
	try {
		results.stderr = client.getStderr();
		await client.stop();
	} catch {}
}
save();
