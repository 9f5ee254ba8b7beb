// A tool-call guard written in plain JavaScript: bash commands that look
// destructive need the user's confirmation (a confirm dialog in the
// client); without a UI (print mode) they are blocked.
//
//   cp examples/js-guard/guard.js ~/.atomic/agent/extensions/
//   atomic --mode rpc            # or: atomic --mode rpc -e examples/js-guard/guard.js

const risky = [/\brm\s+-[a-z]*r[a-z]*f?\b/, /\bgit\s+push\b.*--force\b/, /\bsudo\b/, /\bmkfs\b/, /\bdd\s+if=/];

export default function (pi) {
  let allowed = 0;
  let blocked = 0;

  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    const command = String(event.input.command || "");
    if (!risky.some((re) => re.test(command))) return undefined;

    if (!ctx.hasUI) {
      blocked++;
      return { block: true, reason: "guard: risky command blocked (no one to ask)" };
    }
    const ok = await ctx.ui.confirm("Run this command?", command, { timeout: 60000 });
    if (ok) {
      allowed++;
      return undefined;
    }
    blocked++;
    ctx.ui.notify(`guard blocked: ${command}`, "warning");
    return { block: true, reason: "guard: the user declined this command" };
  });

  pi.registerCommand("guard", {
    description: "Show what the guard allowed and blocked",
    handler: async (_args, ctx) => {
      ctx.ui.notify(`guard: ${allowed} allowed, ${blocked} blocked`, "info");
    },
  });
}
