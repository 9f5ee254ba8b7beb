// tool_call handlers for the event lane's tests: one waits for its
// signal, one throws, one ends the process.
export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    const cmd = String(event.input.command);
    if (cmd === "wait") {
      await new Promise<void>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          ctx.ui.notify("aborted", "info");
          resolve();
        });
      });
      return undefined;
    }
    if (cmd === "throw") throw new Error("lane boom");
    if (cmd === "die") process.exit(3);
    if (cmd === "rm -rf /") return { block: true, reason: `refused in ${process.pid}` };
    return undefined;
  });
}
