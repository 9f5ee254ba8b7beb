// The places where goja's and Node's pi API used to disagree, each as pi
// 1.6 behaves (parity_e2e_test.go runs it in every engine).
export default function (pi: any) {
  // Several failing handlers of a notification: one extension_error each.
  pi.on("agent_start", () => {
    throw new Error("first handler failed");
  });
  pi.on("agent_start", async () => {
    throw new Error("second handler failed");
  });
  // ctx.model is live: the model now, not when the call began.
  pi.registerCommand("model", {
    handler: async (_args: string, ctx: any) => {
      const before = ctx.model && ctx.model.id;
      await pi.setModel({ provider: "faux", id: "faux-2" });
      ctx.ui.notify(`model ${before} then ${ctx.model && ctx.model.id}`);
    },
  });
  // ctx.compact() reports its outcome to onComplete/onError only.
  pi.registerCommand("compact", {
    handler: (_args: string, ctx: any) => {
      ctx.compact();
      ctx.compact({ onError: (e: Error) => ctx.ui.notify(`compact failed: ${e.message}`) });
    },
  });
  // ctx.waitForIdle() settles once the agent is idle.
  pi.registerCommand("idle", {
    handler: async (_args: string, ctx: any) => {
      await ctx.waitForIdle();
      ctx.ui.notify(`idle ${ctx.isIdle()}`);
    },
  });
  // ctx.shutdown() ends the agent.
  pi.registerCommand("bye", {
    handler: (_args: string, ctx: any) => {
      ctx.shutdown();
    },
  });
}
