// The pi RpcClient starts its agent as `node <cliPath> --mode rpc …`.
// Given as cliPath, this file runs the binary named by ATOMIC_INTEROP_BIN
// instead, with the same arguments and the same stdin, stdout and stderr;
// it forwards SIGTERM, SIGINT and SIGHUP to it and ends the way it ended
// (its exit code, or the signal that killed it).
import { spawn } from "node:child_process";

const bin = process.env.ATOMIC_INTEROP_BIN;
if (!bin) {
	console.error("launcher: ATOMIC_INTEROP_BIN is not set");
	process.exit(127);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
	process.on(sig, () => {
		if (child.exitCode === null && child.signalCode === null) child.kill(sig);
	});
}
child.on("error", (err) => {
	console.error(`launcher: cannot start ${bin}: ${err.message}`);
	process.exit(127);
});
child.on("exit", (code, signal) => {
	if (signal) {
		process.removeAllListeners(signal);
		process.kill(process.pid, signal);
		return;
	}
	process.exit(code ?? 1);
});
