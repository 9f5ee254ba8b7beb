// The agent core package: extensions import mostly its types. Running an
// agent loop inside an extension is not available: Agent exists for
// imports and fails when constructed.
"use strict";
class Agent {
  constructor() {
    throw new Error("Agent (from pi-agent-core) is not available to extensions in atomic: run subagents as processes, or use pi.sendUserMessage");
  }
}
module.exports = { __esModule: true, Agent };
