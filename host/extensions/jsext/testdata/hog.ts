// A handler that allocates without bound (with process isolation the
// child is killed at its memory limit).
export default function (pi: any) {
  pi.on("tool_call", (event: any) => {
    if (event.toolName === "bash" && String(event.input.command).includes("hog")) {
      const keep: number[][] = [];
      for (;;) keep.push(new Array(100000).fill(keep.length));
    }
  });
}
