// Nested agent sessions (createAgentSession, AgentSession): a second
// agent an extension runs beside the user's, as pi's SDK gives it. The
// session runs pi-agent-core's loop (js/agentcore.js): its model requests
// go through the agent's providers and credentials, its built-in tools are
// the agent's own, its conversation is kept by the SessionManager given
// (in memory, or a session file). Extensions are not loaded into a nested
// session: bindExtensions() starts none.
"use strict";
const { Agent } = require("@mariozechner/pi-agent-core");
const lib = require("atomic:agentlib");

const builtinTools = ["read", "bash", "edit", "write", "grep", "find", "ls"];
const defaultTools = ["read", "bash", "edit", "write"];
const factoryName = { read: "Read", bash: "Bash", edit: "Edit", write: "Write", grep: "Grep", find: "Find", ls: "Ls" };

// host is what the agent tells a nested session (js/api.js sets it): the
// user's current model and system prompt.
const host = () => globalThis.__atomicSessionHost || {};

const textOf = (m) => lib.contentText(m && m.content, "");
const { userMessage, convertToLlm } = lib;

class AgentSession {
  constructor(config) {
    this.agent = config.agent;
    this.sessionManager = config.sessionManager;
    this.settingsManager = config.settingsManager;
    this.cwd = config.cwd;
    this._resourceLoader = config.resourceLoader;
    this._modelRegistry = config.modelRegistry;
    this._toolsByName = config.tools; // name -> tool, every tool it may use
    this._listeners = new Set();
    this._disposed = false;
    this._steerTexts = [];
    this._followTexts = [];
    this._unsub = this.agent.subscribe((event) => this._onEvent(event));
  }
  get modelRegistry() {
    return this._modelRegistry;
  }
  get resourceLoader() {
    return this._resourceLoader;
  }
  async _onEvent(event) {
    if (event.type === "message_end" && this.sessionManager && typeof this.sessionManager.appendMessage === "function") {
      this.sessionManager.appendMessage(event.message);
    }
    if (event.type === "message_start" && event.message && event.message.role === "user") {
      // A queued message leaves its queue when it is delivered.
      const text = textOf(event.message);
      for (const q of [this._steerTexts, this._followTexts]) {
        const i = q.indexOf(text);
        if (i >= 0) {
          q.splice(i, 1);
          this._emit({ type: "queue_update", steering: [...this._steerTexts], followUp: [...this._followTexts] });
          break;
        }
      }
    }
    this._emit(event.type === "agent_end" ? { ...event, willRetry: false } : event);
  }
  _emit(event) {
    for (const l of [...this._listeners]) {
      try {
        l(event);
      } catch (e) {
        // A listener's failure is its own: the session goes on.
        console.error(`AgentSession listener failed: ${e && e.message ? e.message : e}`);
      }
    }
  }
  subscribe(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }
  dispose() {
    this._disposed = true;
    this.agent.abort();
    this._listeners.clear();
    this._unsub();
  }
  get state() {
    return this.agent.state;
  }
  get messages() {
    return this.agent.state.messages;
  }
  get model() {
    return this.agent.state.model;
  }
  get thinkingLevel() {
    return this.agent.state.thinkingLevel;
  }
  get isStreaming() {
    return this.agent.state.isStreaming;
  }
  get isIdle() {
    return !this.agent.state.isStreaming;
  }
  get isCompacting() {
    return false;
  }
  get retryAttempt() {
    return 0;
  }
  get systemPrompt() {
    return this.agent.state.systemPrompt;
  }
  get sessionFile() {
    return this.sessionManager.getSessionFile();
  }
  get sessionId() {
    return this.sessionManager.getSessionId();
  }
  get sessionName() {
    return this.sessionManager.getSessionName();
  }
  get steeringMode() {
    return this.agent.steeringMode;
  }
  get followUpMode() {
    return this.agent.followUpMode;
  }
  setSteeringMode(mode) {
    this.agent.steeringMode = mode;
  }
  setFollowUpMode(mode) {
    this.agent.followUpMode = mode;
  }
  get scopedModels() {
    return [];
  }
  setScopedModels() {}
  get promptTemplates() {
    return [];
  }
  get pendingMessageCount() {
    return this._steerTexts.length + this._followTexts.length;
  }
  getSteeringMessages() {
    return [...this._steerTexts];
  }
  getFollowUpMessages() {
    return [...this._followTexts];
  }
  clearQueue() {
    const out = { steering: [...this._steerTexts], followUp: [...this._followTexts] };
    this._steerTexts = [];
    this._followTexts = [];
    this.agent.clearAllQueues();
    this._emit({ type: "queue_update", steering: [], followUp: [] });
    return out;
  }
  getActiveToolNames() {
    return this.agent.state.tools.map((t) => t.name);
  }
  getCallableToolNames() {
    return this.getActiveToolNames();
  }
  getAllTools() {
    return [...this._toolsByName.values()].map((t) => ({ name: t.name, description: t.description || "", parameters: t.parameters }));
  }
  getToolDefinition(name) {
    return this._toolsByName.get(name);
  }
  setActiveToolsByName(names) {
    this.agent.state.tools = names.map((n) => this._toolsByName.get(n)).filter(Boolean);
  }
  getLastAssistantText() {
    const msgs = this.agent.state.messages;
    for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === "assistant") return textOf(msgs[i]);
    return undefined;
  }
  setSessionName(name) {
    this.sessionManager.appendSessionInfo(name);
    this._emit({ type: "session_info_changed", name });
  }
  async setModel(model) {
    this.agent.state.model = model;
    this.sessionManager.appendModelChange(model.provider, model.id);
  }
  setThinkingLevel(level) {
    this.agent.state.thinkingLevel = level;
    this.sessionManager.appendThinkingLevelChange(level);
    this._emit({ type: "thinking_level_changed", level });
  }
  getAvailableThinkingLevels() {
    const m = this.agent.state.model;
    return m && m.reasoning ? ["off", "minimal", "low", "medium", "high"] : ["off"];
  }
  supportsThinking() {
    const m = this.agent.state.model;
    return !!(m && m.reasoning);
  }
  // Extensions do not run inside a nested session (see the file's top).
  async bindExtensions() {}
  refreshContext() {}
  async prompt(text, options) {
    const o = options || {};
    if (this._disposed) throw new Error("This session has been disposed");
    if (this.agent.state.isStreaming) {
      if (o.streamingBehavior === "steer") return void this.steer(text, o.images);
      if (o.streamingBehavior === "followUp") return void this.followUp(text, o.images);
      throw new Error("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.");
    }
    if (!this.agent.state.model) throw new Error("No model selected.");
    let aborted = false;
    try {
      await this.agent.prompt(userMessage(text, o.images));
      aborted = this._aborted === true;
    } finally {
      this._aborted = false;
      this._emit({ type: "agent_settled", aborted });
    }
  }
  sendUserMessage(content, options) {
    const text = typeof content === "string" ? content : textOf({ content });
    const images = typeof content === "string" ? [] : content.filter((c) => c && c.type === "image");
    const deliverAs = options && options.deliverAs;
    if (this.agent.state.isStreaming) return deliverAs === "steer" ? this.steer(text, images) : this.followUp(text, images);
    return this.prompt(text, { images });
  }
  async steer(text, images) {
    this._steerTexts.push(String(text));
    this.agent.steer(userMessage(text, images));
    this._emit({ type: "queue_update", steering: [...this._steerTexts], followUp: [...this._followTexts] });
    return "queued";
  }
  async followUp(text, images) {
    this._followTexts.push(String(text));
    this.agent.followUp(userMessage(text, images));
    this._emit({ type: "queue_update", steering: [...this._steerTexts], followUp: [...this._followTexts] });
    return "queued";
  }
  async abort() {
    if (this.agent.state.isStreaming) this._aborted = true;
    this.agent.abort();
    await this.agent.waitForIdle();
  }
  waitForIdle() {
    return this.agent.waitForIdle();
  }
  async compact() {
    throw new Error("compacting a nested session is not available in atomic");
  }
  abortCompaction() {}
  getSessionStats() {
    const msgs = this.agent.state.messages;
    const count = (role) => msgs.filter((m) => m.role === role).length;
    const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    let cost = 0;
    let toolCalls = 0;
    for (const m of msgs) {
      if (m.role !== "assistant") continue;
      toolCalls += (m.content || []).filter((c) => c.type === "toolCall").length;
      const u = m.usage || {};
      tokens.input += u.input || 0;
      tokens.output += u.output || 0;
      tokens.cacheRead += u.cacheRead || 0;
      tokens.cacheWrite += u.cacheWrite || 0;
      cost += (u.cost && u.cost.total) || 0;
    }
    tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
    return {
      sessionFile: this.sessionFile,
      sessionId: this.sessionId,
      userMessages: count("user"),
      assistantMessages: count("assistant"),
      toolCalls,
      toolResults: count("toolResult"),
      totalMessages: msgs.length,
      tokens,
      cost,
    };
  }
}

// systemPromptOf is the nested session's system prompt: the resource
// loader's own (else the user's current one) with its additions.
function systemPromptOf(loader) {
  let base;
  let append = [];
  if (loader) {
    if (typeof loader.getSystemPrompt === "function") base = loader.getSystemPrompt();
    if (typeof loader.getAppendSystemPrompt === "function") append = [].concat(loader.getAppendSystemPrompt() || []);
  }
  if (typeof base !== "string") base = typeof host().systemPrompt === "function" ? host().systemPrompt() : "";
  return [base, ...append.filter((s) => typeof s === "string" && s !== "")].filter((s) => s !== "").join("\n\n");
}

// toolsOf is the session's tool set: the built-in tools (all of them may
// be activated later) and the custom ones; active are those named in
// options.tools (the coding tools when not given), or none with noTools.
function toolsOf(cwd, options) {
  const coding = require("@mariozechner/pi-coding-agent");
  const all = new Map();
  for (const n of builtinTools) all.set(n, coding[`create${factoryName[n]}Tool`](cwd));
  for (const t of options.customTools || []) if (t && t.name) all.set(t.name, t);
  let active;
  if (options.noTools === true || options.noTools === "all") active = (options.customTools || []).map((t) => t.name);
  else if (Array.isArray(options.tools)) active = options.tools.map(String);
  else active = [...defaultTools, ...(options.customTools || []).map((t) => t.name)];
  const exclude = new Set(options.excludeTools || []);
  // Names the session has no tool for (another extension's tools, which a
  // nested session does not load) are left out, as pi leaves out names
  // it has no tool for.
  return { all, active: active.filter((n) => all.has(n) && !exclude.has(n)).map((n) => all.get(n)) };
}

async function createAgentSession(options) {
  const o = options || {};
  const sessionManager = o.sessionManager || lib.SessionManager.create(o.cwd === undefined ? process.cwd() : o.cwd);
  const cwd = o.cwd !== undefined ? String(o.cwd) : sessionManager.getCwd ? sessionManager.getCwd() : process.cwd();
  const settingsManager = o.settingsManager || lib.SettingsManager.create(cwd, o.agentDir);
  let model = o.model;
  let thinkingLevel = o.thinkingLevel;
  let modelFallbackMessage;
  if (!model && typeof host().model === "function") {
    const current = host().model();
    model = current && current.model_json;
    if (thinkingLevel === undefined && current) thinkingLevel = current.thinking_level;
  }
  if (!model) modelFallbackMessage = "No model selected.";
  if (thinkingLevel === undefined) thinkingLevel = (settingsManager.getDefaultThinkingLevel && settingsManager.getDefaultThinkingLevel()) || "off";
  if (!model || !model.reasoning) thinkingLevel = "off";
  const tools = toolsOf(cwd, o);
  const restored = sessionManager.buildSessionContext ? sessionManager.buildSessionContext().messages || [] : [];
  const agent = new Agent({
    initialState: { systemPrompt: systemPromptOf(o.resourceLoader), model, thinkingLevel, tools: tools.active, messages: restored },
    convertToLlm,
    sessionId: sessionManager.getSessionId ? sessionManager.getSessionId() : undefined,
  });
  const session = new AgentSession({
    agent,
    sessionManager,
    settingsManager,
    cwd,
    resourceLoader: o.resourceLoader,
    modelRegistry: o.modelRegistry,
    tools: tools.all,
  });
  const extensionsResult = { extensions: [], errors: [], runtime: lib.createExtensionRuntime() };
  return { session, extensionsResult, modelFallbackMessage };
}

module.exports = { __esModule: true, AgentSession, createAgentSession };
