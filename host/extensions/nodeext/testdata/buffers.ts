// Memory outside the V8 heap: Buffers, up to 512 MiB (a bound of the
// test's own, so that a regression fails the test, not the machine).
export default function (pi: any) {
  pi.registerCommand("buffers", {
    description: "allocates Buffers",
    handler: async (_a: string, ctx: any) => {
      const keep: Buffer[] = [];
      for (let i = 0; i < 32; i++) keep.push(Buffer.alloc(16 << 20, 1));
      ctx.ui.notify(`kept ${keep.length} buffers`, "info");
    },
  });
  pi.registerCommand("ok", { description: "answers", handler: async (_a: string, ctx: any) => ctx.ui.notify(`ok ${process.pid}`, "info") });
}
