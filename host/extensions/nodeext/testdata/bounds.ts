// Misbehaving handlers: an endless loop and unbounded allocation.
export default function (pi: any) {
  pi.registerCommand("spin", { description: "loops forever", handler: async () => { for (;;) {} } });
  pi.registerCommand("hog", {
    description: "allocates without bound",
    handler: async () => {
      const keep: string[][] = [];
      for (;;) keep.push(new Array(1 << 16).fill("x".repeat(16)));
    },
  });
  pi.registerCommand("ok", { description: "answers", handler: async (_a: string, ctx: any) => ctx.ui.notify(`ok ${process.pid}`, "info") });
}
