// The agent core package: extensions import mostly its types. Running an
// agent loop inside an extension is not available: Agent and the loop
// functions exist for imports and fail when called.
"use strict";
const { unsupported } = require("atomic:agentlib");

const why = "running an agent loop inside an extension is not available in atomic: run subagents as processes, or use pi.sendUserMessage";
class Agent {
  constructor() {
    throw new Error(`Agent (from pi-agent-core) is not available to extensions in atomic: run subagents as processes, or use pi.sendUserMessage`);
  }
}
const loop = {};
for (const n of ["agentLoop", "agentLoopContinue", "runAgentLoop", "runAgentLoopContinue", "runToolCall", "streamProxy"]) loop[n] = unsupported(n, why);

module.exports = {
  __esModule: true,
  Agent,
  ...loop,
  // The stream function an Agent would use: none runs here, so setting it
  // has no effect.
  setDefaultStreamFn: () => {},
  DEFAULT_AGENT_IDENTITY: { attribution: { name: "atomic", url: "https://github.com/atomic-go/atomic", categories: ["cli-agent"] } },
};
