// The run-time part of the AI library that extensions use: the TypeBox
// re-export and StringEnum; complete and stream go through the agent's
// providers (the provider-specific stream functions throw when called).
"use strict";

const typebox = require("@sinclair/typebox");

function StringEnum(values, options) {
  const out = Object.assign({}, options || {}, { type: "string", enum: Array.from(values || []) });
  Object.defineProperty(out, typebox.Kind, { value: "Unsafe", enumerable: false, configurable: true, writable: true });
  return out;
}

const lib = require("atomic:agentlib");
const { unsupported, unsupportedClass, contentText, uuidv7 } = lib;

// complete, completeSimple, stream and streamSimple go through the agent's
// providers and credentials, as ctx.modelRegistry's do (js/api.js sets
// the host's model calls on globalThis.__atomicModelCalls when an
// extension loads); the provider-specific stream functions are not
// available.
const noModelCalls = (name) => () => {
  throw new Error(`${name}() is not available to extensions in atomic: use ctx.modelRegistry.streamSimple or complete`);
};
const hostModelCall = (name, kind) => (model, context, options) => {
  const calls = globalThis.__atomicModelCalls;
  if (!calls) throw new Error(`${name}() is not available here: no agent serves model calls`);
  return calls[kind](model, context, options);
};
const levels = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
// getSupportedThinkingLevels(model): the levels a model accepts ("off"
// only without reasoning; xhigh and max only when its level map names
// them; a level mapped to null is not supported).
function getSupportedThinkingLevels(model) {
  if (!model || !model.reasoning) return ["off"];
  const map = model.thinkingLevelMap || {};
  return levels.filter((l) => {
    const mapped = map[l];
    if (mapped === null) return false;
    if (l === "xhigh" || l === "max") return mapped !== undefined;
    return true;
  });
}
// clampThinkingLevel(model, level) as pi 1.6 (the highest supported level
// not above the one asked), or (level, supportedLevels) as earlier pi.
function clampThinkingLevel(a, b) {
  const model = typeof a === "object" && a !== null;
  const level = model ? b : a;
  const allowed = model ? getSupportedThinkingLevels(a) : Array.isArray(b) && b.length ? b : levels.slice(0, 6);
  if (allowed.includes(level)) return level;
  const want = levels.indexOf(level);
  let best = allowed[0];
  for (const l of allowed) if (levels.indexOf(l) <= want) best = l;
  return best;
}

function calculateCost(model, usage) {
  const input = usage.input + usage.cacheRead + usage.cacheWrite;
  let rates = model.cost;
  let threshold = -1;
  for (const tier of model.cost.tiers || []) {
    if (input > tier.inputTokensAbove && tier.inputTokensAbove > threshold) {
      rates = tier;
      threshold = tier.inputTokensAbove;
    }
  }
  const longWrite = usage.cacheWrite1h || 0;
  const shortWrite = usage.cacheWrite - longWrite;
  const c = usage.cost || (usage.cost = {});
  c.input = (rates.input / 1e6) * usage.input;
  c.output = (rates.output / 1e6) * usage.output;
  c.cacheRead = (rates.cacheRead / 1e6) * usage.cacheRead;
  c.cacheWrite = (rates.cacheWrite * shortWrite + rates.input * 2 * longWrite) / 1e6;
  c.total = c.input + c.output + c.cacheRead + c.cacheWrite;
  c.totalFromProvider = false;
  return c;
}
const getModelType = (model) => model.type || "chat";
const isModelType = (model, type) => getModelType(model) === type;
const modelsAreEqual = (a, b) => !!a && !!b && getModelType(a) === getModelType(b) && a.id === b.id && a.provider === b.provider;
const hasApi = (model, api) => isModelType(model, "chat") && model.api === api;

// An event stream: push events, end it; iterate with for await; result()
// is the value of the completing event (or end's argument).
class EventStream {
  constructor(isComplete, extractResult) {
    this.queue = [];
    this.waiting = [];
    this.done = false;
    this.isComplete = isComplete;
    this.extractResult = extractResult;
    this.finalResultPromise = new Promise((resolve) => {
      this.resolveFinalResult = resolve;
    });
  }
  push(event) {
    if (this.done) return;
    if (this.isComplete(event)) {
      this.done = true;
      this.resolveFinalResult(this.extractResult(event));
    }
    const waiter = this.waiting.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.queue.push(event);
  }
  end(result) {
    this.done = true;
    if (result !== undefined) this.resolveFinalResult(result);
    while (this.waiting.length) this.waiting.shift()({ value: undefined, done: true });
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.queue.length) return Promise.resolve({ value: this.queue.shift(), done: false });
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiting.push(resolve));
      },
      return: () => Promise.resolve({ value: undefined, done: true }),
    };
  }
  result() {
    return this.finalResultPromise;
  }
}
class AssistantMessageEventStream extends EventStream {
  constructor() {
    super(
      (e) => e.type === "done" || e.type === "error",
      (e) => (e.type === "done" ? e.message : e.error),
    );
  }
}
const createAssistantMessageEventStream = () => new AssistantMessageEventStream();

class ModelsError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ModelsError";
    this.code = code;
  }
}

// repairJson closes what a cut-off JSON text left open (a string, arrays,
// objects) and drops a dangling comma or key, so that a partial tool-call
// argument text parses.
function repairJson(text) {
  const s = String(text);
  const stack = [];
  let inString = false;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    out += c;
    if (inString) {
      if (c === "\\") {
        if (i + 1 < s.length) out += s[++i];
        else out = out.slice(0, -1);
      } else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push(c === "{" ? "}" : "]");
    else if (c === "}" || c === "]") stack.pop();
  }
  if (inString) out += '"';
  out = out.replace(/[\s,]+$/, "");
  out = out.replace(/(\{|,)\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, (m, p) => (p === "{" ? "{" : ""));
  out = out.replace(/:\s*$/, ": null");
  return out + stack.reverse().join("");
}
function parseJsonWithRepair(text) {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(repairJson(text));
  }
}
function parseStreamingJson(text) {
  if (!text || !String(text).trim()) return {};
  try {
    return parseJsonWithRepair(text);
  } catch {
    return {};
  }
}
const parseToolCallArguments = (text) => parseStreamingJson(text);

function formatThrownValue(v) {
  if (v instanceof Error) return v.message || v.name;
  return typeof v === "string" ? v : String(v);
}
function extractDiagnosticError(e) {
  if (!(e instanceof Error)) return { name: "ThrownValue", message: formatThrownValue(e) };
  const code = e.code;
  return { name: e.name || undefined, message: e.message || e.name, stack: e.stack, code: typeof code === "string" || typeof code === "number" ? code : undefined };
}

// The provider error texts that mean the context did not fit.
const overflowPatterns = [
  /prompt (?:is )?too long/i,
  /request_too_large/i,
  /exceeds (?:the )?context window/i,
  /context window exceeded/i,
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /input (?:token count|is too long).*(?:exceeds|for requested model)/i,
  /too many tokens/i,
  /reduce the length of the messages/i,
];
const getOverflowPatterns = () => overflowPatterns.slice();
function isContextOverflow(message, contextWindow) {
  if (message.stopReason === "error" && message.errorMessage && overflowPatterns.some((p) => p.test(message.errorMessage))) return true;
  if (contextWindow && message.stopReason === "stop" && message.usage) return message.usage.input + message.usage.cacheRead > contextWindow;
  return false;
}

function getSystemMessageText(message) {
  const parts = [contentText(message.content)];
  for (const t of Object.values(message.sections || {})) if (t !== null) parts.push(t);
  return parts.filter((p) => p.length > 0).join("\n\n");
}
function renderSystemMessageUpdate(message) {
  const parts = [];
  const text = contentText(message.content);
  if (text.length) parts.push(text);
  for (const [name, value] of Object.entries(message.sections || {})) {
    parts.push(value === null ? `Removed system prompt section "${name}".` : `Updated system prompt section "${name}":\n\n${value}`);
  }
  return parts.join("\n\n");
}
// The transcript of pi 1.6: system messages carry the prompt (content,
// named sections) and the tool declarations (toolsAdded, toolsRemoved);
// replaying them in order gives the current prompt and tools.
const isSystemMessage = (m) => !!m && m.role === "system";
function getCurrentTools(messages) {
  const tools = new Map();
  for (const m of messages || []) {
    if (!isSystemMessage(m)) continue;
    for (const t of m.toolsRemoved || []) tools.delete(t.name);
    for (const t of m.toolsAdded || []) tools.set(t.name, t);
  }
  return [...tools.values()];
}
function getCurrentSystemMessage(messages) {
  const content = [];
  const sections = new Map();
  let timestamp;
  for (const m of messages || []) {
    if (!isSystemMessage(m)) continue;
    if (timestamp === undefined) timestamp = m.timestamp;
    const text = contentText(m.content);
    if (text.length > 0) content.push(text);
    for (const [name, value] of Object.entries(m.sections || {})) {
      if (value === null) sections.delete(name);
      else sections.set(name, value);
    }
  }
  const tools = getCurrentTools(messages);
  if (timestamp === undefined && tools.length === 0) return undefined;
  return {
    role: "system",
    content: content.join("\n\n"),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.length > 0 ? { toolsAdded: tools } : {}),
    timestamp: timestamp === undefined ? 0 : timestamp,
  };
}
function getInitialSystemMessage(messages) {
  const m = (messages || [])[0];
  return isSystemMessage(m) ? m : undefined;
}
const withoutInitialSystemMessage = (messages) => (getInitialSystemMessage(messages) ? messages.slice(1) : messages);
function getCurrentSystemPrompt(messages) {
  const m = getCurrentSystemMessage(messages);
  return m ? getSystemMessageText(m) : "";
}
function createInitialSystemMessage(systemPrompt, tools) {
  const hasPrompt = systemPrompt !== undefined && systemPrompt.length > 0;
  const hasTools = tools !== undefined && tools.length > 0;
  if (!hasPrompt && !hasTools) return undefined;
  return { role: "system", content: systemPrompt === undefined ? "" : systemPrompt, ...(hasTools ? { toolsAdded: tools } : {}), timestamp: 0 };
}
function normalizeContext(context) {
  const head = createInitialSystemMessage(context.systemPrompt, context.tools);
  return { messages: head ? [head, ...context.messages] : context.messages };
}
function collapseSystemMessages(context) {
  const head = getCurrentSystemMessage(context.messages);
  const messages = context.messages.filter((m) => m.role !== "system");
  return { messages: head ? [head, ...messages] : messages };
}

const envKeys = { anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"], openai: ["OPENAI_API_KEY"], google: ["GEMINI_API_KEY"], groq: ["GROQ_API_KEY"],
  cerebras: ["CEREBRAS_API_KEY"], xai: ["XAI_API_KEY"], openrouter: ["OPENROUTER_API_KEY"], mistral: ["MISTRAL_API_KEY"], zai: ["ZAI_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"], "vercel-ai-gateway": ["AI_GATEWAY_API_KEY"], "github-copilot": ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"] };
function findEnvKeys(provider, env) {
  const e = env || process.env;
  const found = (envKeys[provider] || []).filter((k) => e[k]);
  return found.length ? found : undefined;
}
// getEnvApiKey: whether the environment holds a key is the agent's
// business; extensions get no credentials this way.
const getEnvApiKey = unsupported("getEnvApiKey", "credentials are not given to extensions; use ctx.modelRegistry");

const retryDelayMs = (attempt, base) => Math.min(60000, (base === undefined ? 2000 : base) * Math.pow(2, Math.max(0, attempt - 1)));

const streaming = (n) => noModelCalls(n);
const providerNames = ["Anthropic", "AzureOpenAIResponses", "Google", "GoogleVertex", "Mistral", "OpenAICodexResponses", "OpenAICompletions", "OpenAIResponses"];
const providerStreams = {};
for (const p of providerNames) {
  providerStreams[`stream${p}`] = streaming(`stream${p}`);
  providerStreams[`streamSimple${p}`] = streaming(`streamSimple${p}`);
}
const apiNames = ["anthropicMessagesApi", "azureOpenAIResponsesApi", "bedrockConverseStreamApi", "googleGenerativeAIApi", "googleVertexApi",
  "mistralConversationsApi", "openAICodexResponsesApi", "openAICompletionsApi", "openAIResponsesApi", "piMessagesApi"];
const apis = {};
for (const n of apiNames) apis[n] = unsupported(n, "model APIs are the agent's; register a provider with pi.registerProvider");
const stubs = {};
for (const n of ["registerApiProvider", "registerBuiltInApiProviders", "registerBuiltInImagesApiProviders", "registerFauxProvider",
  "registerImagesApiProvider", "resetApiProviders", "unregisterApiProviders", "setBedrockProviderLoader", "setBedrockProviderModule",
  "getApiProvider", "getApiProviders", "getImagesApiProvider", "createProvider", "createModels", "createFauxCore", "fauxProvider",
  "lazyApi", "lazyOAuth", "lazyStream", "generateImages", "generateImagesOpenRouter", "retryAssistantCall", "evaluateCacheWarming",
  "getCacheWarmingDelayMs", "getCacheWarmingRequestOptions", "isCacheWarmingReplayable", "getPromptCacheTtlMs", "validateToolArguments",
  "validateToolCall", "resolveTranscript", "resolveTranscriptTools", "toToolDeclaration", "declarationsEqual",
  "getDeclaredTools", "getToolStateChanges", "hasNonAdditiveToolChanges", "hasToolRedefinitions",
  "envApiKeyAuth", "defaultProviderAuthContext", "getOpenCodeSessionHeaders",
  "getAttributionHeaders", "getIdentityHeaders", "withClientIdentity", "mergeClientIdentity", "formatUserAgent", "getClientVersion",
  "registerSessionResourceCleanup", "cleanupSessionResources", "createAssistantMessageDiagnostic", "appendAssistantMessageDiagnostic",
  "isRecoverableLength", "isRetryableAssistantError"]) {
  stubs[n] = unsupported(n, "this part of pi-ai runs inside the agent");
}
const faux = (type, fields) => Object.assign({ type }, fields);

module.exports = {
  __esModule: true,
  ...stubs,
  ...apis,
  ...providerStreams,
  Type: typebox.Type,
  StringEnum,
  clampThinkingLevel,
  getSupportedThinkingLevels,
  calculateCost,
  getModelType,
  isModelType,
  modelsAreEqual,
  hasApi,
  EventStream,
  AssistantMessageEventStream,
  createAssistantMessageEventStream,
  ModelsError,
  repairJson,
  parseJsonWithRepair,
  parseStreamingJson,
  parseToolCallArguments,
  formatThrownValue,
  extractDiagnosticError,
  getOverflowPatterns,
  isContextOverflow,
  contentText,
  getSystemMessageText,
  renderSystemMessageUpdate,
  getCurrentSystemMessage,
  getInitialSystemMessage,
  withoutInitialSystemMessage,
  getCurrentSystemPrompt,
  getCurrentTools,
  createInitialSystemMessage,
  normalizeContext,
  collapseSystemMessages,
  uuidv7,
  findEnvKeys,
  getEnvApiKey,
  retryDelayMs,
  fauxText: (text) => faux("text", { text }),
  fauxThinking: (thinking) => faux("thinking", { thinking }),
  fauxToolCall: (name, args, options) => faux("toolCall", { id: (options && options.id) || `tool_${uuidv7().slice(-12)}`, name, arguments: args || {} }),
  fauxAssistantMessage: (content, options) => Object.assign({ role: "assistant", content: typeof content === "string" ? [{ type: "text", text: content }] : [].concat(content), stopReason: "stop", timestamp: Date.now() }, options || {}),
  StreamingJsonParser: unsupportedClass("StreamingJsonParser", "use parseStreamingJson"),
  ToolCallArgumentsStream: unsupportedClass("ToolCallArgumentsStream", "use parseStreamingJson"),
  InMemoryCredentialStore: unsupportedClass("InMemoryCredentialStore", "credentials are the agent's"),
  InMemoryModelsStore: unsupportedClass("InMemoryModelsStore", "use ctx.modelRegistry"),
  AI_TELEMETRY_SCHEMA: { version: 1, spans: {}, events: {} },
  PI_AI_VERSION: "1.6.0",
  PI_ATTRIBUTION: { name: "atomic", url: "https://github.com/atomic-go/atomic", categories: ["cli-agent"] },
  CACHE_WARMING_MAX_AGE_MS: 60 * 60000,
  CACHE_WARMING_MAX_IDLE_AGE_MS: 30 * 60000,
  CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS: 0.05,
  CACHE_WARMING_IDLE_CONTINUATION_PROBABILITY: 0.15,
  DEFAULT_MAX_AGENT_RETRY_DELAY_MS: 60000,
  ANTHROPIC_AUTH_TOKEN_ENV: "ANTHROPIC_AUTH_TOKEN",
  ANTHROPIC_OAUTH_TOKEN_ENV: "ANTHROPIC_OAUTH_TOKEN",
  ANTHROPIC_API_KEY_ENV: "ANTHROPIC_API_KEY",
  ANTHROPIC_FEDERATION_RULE_ID_ENV: "ANTHROPIC_FEDERATION_RULE_ID",
  ANTHROPIC_ORGANIZATION_ID_ENV: "ANTHROPIC_ORGANIZATION_ID",
  ANTHROPIC_SERVICE_ACCOUNT_ID_ENV: "ANTHROPIC_SERVICE_ACCOUNT_ID",
  ANTHROPIC_IDENTITY_TOKEN_FILE_ENV: "ANTHROPIC_IDENTITY_TOKEN_FILE",
  ANTHROPIC_WORKSPACE_ID_ENV: "ANTHROPIC_WORKSPACE_ID",
  complete: hostModelCall("complete", "complete"),
  completeSimple: hostModelCall("completeSimple", "complete"),
  stream: hostModelCall("stream", "stream"),
  streamSimple: hostModelCall("streamSimple", "stream"),
  getModel: () => undefined,
  getModels: () => [],
  getProviders: () => [],
  getImageModel: () => undefined,
  getImageModels: () => [],
  getImageProviders: () => [],
};
