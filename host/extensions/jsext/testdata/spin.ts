// A handler stuck in a loop: the agent must interrupt it at the deadline.
export default function (pi: any) {
  pi.on("tool_call", (event: any) => {
    if (event.toolName === "bash" && String(event.input.command).includes("spin")) {
      for (;;) {}
    }
  });
}
