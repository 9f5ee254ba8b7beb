// The agent core package (pi-agent-core): the Agent class and the agent
// loop, as extensions use them to run a second agent (a sub-agent, a side
// question). A model request goes through pi-ai's streamSimple, which is
// the agent's own provider and credentials (js/piai.js); tools are the
// objects the caller gives (the built-in factories of the coding agent
// package run the agent's own tools). Events are pi's AgentEvent values,
// in pi's order.
"use strict";
const piai = require("@mariozechner/pi-ai");
const { userMessage } = require("atomic:agentlib");

const DEFAULT_AGENT_IDENTITY = { attribution: { name: "atomic", url: "https://github.com/atomic-go/atomic", categories: ["cli-agent"] } };

let defaultStreamFn = (model, context, options) => piai.streamSimple(model, context, options);
const getDefaultStreamFn = () => defaultStreamFn;

const llmRoles = new Set(["user", "assistant", "toolResult"]);
const defaultConvertToLlm = (messages) => messages.filter((m) => m && llmRoles.has(m.role));

const errText = (e) => (e && e.message !== undefined ? String(e.message) : String(e));
const errorResult = (text) => ({ content: [{ type: "text", text }], details: {} });

// failedAssistant is the assistant message of a request that did not
// complete (an exception from the stream function, an abort).
function failedAssistant(model, e, aborted) {
  const m = model || {};
  return {
    role: "assistant",
    content: [],
    api: m.api,
    provider: m.provider,
    model: m.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: aborted ? "aborted" : "error",
    errorMessage: aborted ? "Request was aborted" : errText(e),
    timestamp: Date.now(),
  };
}

// streamResponse asks the model for the next assistant message and
// reports it as message_start, message_update (one per stream event) and
// message_end; the message joins the context.
async function streamResponse(context, config, signal, emit, streamFn) {
  let messages = context.messages;
  if (config.transformContext) messages = await config.transformContext(messages, signal);
  const llmMessages = await (config.convertToLlm || defaultConvertToLlm)(messages);
  const tools = (context.tools || []).map((t) => ({ name: t.name, description: t.description || "", parameters: t.parameters || { type: "object", properties: {} } }));
  const apiKey = (config.getApiKey ? await config.getApiKey(config.model.provider) : undefined) || config.apiKey;
  let partial;
  let final;
  try {
    const response = await streamFn(config.model, { systemPrompt: context.systemPrompt || "", messages: llmMessages, tools }, { ...config, apiKey, reasoning: config.reasoning, signal });
    // (goja has no for await: the stream's iterator by hand.)
    const it = response[Symbol.asyncIterator]();
    for (;;) {
      const step = await it.next();
      if (step.done) break;
      const ev = step.value;
      if (ev.type === "start") {
        partial = ev.partial;
        context.messages.push(partial);
        await emit({ type: "message_start", message: { ...partial } });
      } else if (ev.type === "done" || ev.type === "error") {
        break;
      } else if (partial) {
        partial = ev.partial || partial;
        context.messages[context.messages.length - 1] = partial;
        await emit({ type: "message_update", assistantMessageEvent: ev, message: { ...partial } });
      }
    }
    final = await response.result();
  } catch (e) {
    final = failedAssistant(config.model, e, signal && signal.aborted);
  }
  if (signal && signal.aborted && final.stopReason !== "aborted") final = { ...final, stopReason: "aborted", errorMessage: "Request was aborted" };
  final = { ...final, thinkingLevel: config.reasoning || "off" };
  if (partial) context.messages[context.messages.length - 1] = final;
  else {
    context.messages.push(final);
    await emit({ type: "message_start", message: { ...final } });
  }
  await emit({ type: "message_end", message: final });
  return final;
}

// runToolCall runs one call as the loop does (prepareArguments,
// beforeToolCall, execute, afterToolCall) without events or messages; a
// failure (aborted, unknown tool, blocked, thrown) is {isError: true}.
async function runToolCall(call, options) {
  const o = options || {};
  const fail = (text) => ({ toolCall: call, result: errorResult(text), isError: true });
  if (o.signal && o.signal.aborted) return fail("Operation aborted");
  const tool = (o.tools || []).find((t) => t.name === call.name);
  if (!tool) return fail(`Tool ${call.name} not found`);
  let args = call.arguments || {};
  try {
    if (typeof tool.prepareArguments === "function") args = tool.prepareArguments(args);
    if (o.beforeToolCall) {
      const d = await o.beforeToolCall({ assistantMessage: o.assistantMessage, toolCall: call, args, context: o.context }, o.signal);
      if (d && d.block) return fail(d.reason || "Tool execution was blocked");
    }
    const started = Date.now();
    let result = await tool.execute(call.id, args, o.signal, o.onUpdate, o.toolContext);
    const durationMs = Date.now() - started;
    let isError = !!(result && result.isError);
    if (o.afterToolCall) {
      const patch = await o.afterToolCall({ assistantMessage: o.assistantMessage, toolCall: call, args, result, isError, context: o.context }, o.signal);
      if (patch) {
        result = { ...result, ...(patch.content !== undefined ? { content: patch.content } : {}), ...(patch.details !== undefined ? { details: patch.details } : {}) };
        if (patch.isError !== undefined) isError = !!patch.isError;
      }
    }
    return { toolCall: call, result: result || { content: [], details: {} }, isError, durationMs };
  } catch (e) {
    return fail(errText(e));
  }
}

// runTool is runToolCall for a call of the loop, its updates as
// tool_execution_update events.
function runTool(context, assistant, call, config, signal, emit) {
  return runToolCall(call, {
    tools: context.tools,
    assistantMessage: assistant,
    context,
    signal,
    beforeToolCall: config.beforeToolCall,
    afterToolCall: config.afterToolCall,
    toolContext: config.toolContext,
    onUpdate: (partialResult) => emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, args: call.arguments, partialResult }),
  });
}

async function finishTool(call, done, emit) {
  await emit({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result: done.result, isError: done.isError });
  const msg = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: done.result.content || [],
    details: done.result.details,
    isError: done.isError,
    timestamp: Date.now(),
  };
  return msg;
}

// runTools executes the assistant message's tool calls: one after the
// other when asked (the config, or a tool with executionMode
// "sequential"), else concurrently; the results come in the calls' order.
async function runTools(context, assistant, config, signal, emit) {
  const calls = assistant.content.filter((c) => c.type === "toolCall");
  const sequential = config.toolExecution === "sequential" || calls.some((c) => ((context.tools || []).find((t) => t.name === c.name) || {}).executionMode === "sequential");
  const finished = [];
  const deliver = async (msg) => {
    await emit({ type: "message_start", message: msg });
    await emit({ type: "message_end", message: msg });
    return msg;
  };
  if (assistant.stopReason === "length") {
    for (const call of calls) {
      await emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
      const text = `Tool call "${call.name}" was not run: the response reached the output token limit, so its arguments may be cut off. Send the call again with complete arguments.`;
      finished.push({ done: { result: errorResult(text), isError: true }, msg: await deliver(await finishTool(call, { result: errorResult(text), isError: true }, emit)) });
    }
  } else if (sequential) {
    for (const call of calls) {
      await emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
      const done = await runTool(context, assistant, call, config, signal, emit);
      finished.push({ done, msg: await deliver(await finishTool(call, done, emit)) });
    }
  } else {
    const running = [];
    for (const call of calls) {
      await emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
      running.push(
        (async () => {
          const done = signal && signal.aborted ? { result: errorResult("Operation aborted"), isError: true } : await runTool(context, assistant, call, config, signal, emit);
          return { done, msg: await finishTool(call, done, emit) };
        })(),
      );
    }
    for (const r of await Promise.all(running)) finished.push({ done: r.done, msg: await deliver(r.msg) });
  }
  return {
    messages: finished.map((f) => f.msg),
    terminate: finished.length > 0 && finished.every((f) => f.done.result && f.done.result.terminate === true),
  };
}

// runLoop runs turns until the model stops and no steering or follow-up
// message is waiting. The caller has emitted agent_start and the first
// turn_start.
async function runLoop(context, newMessages, config, signal, emit, streamFn) {
  let pending = (config.getSteeringMessages && (await config.getSteeringMessages())) || [];
  let first = true;
  for (;;) {
    let moreTools = true;
    while (moreTools || pending.length > 0) {
      if (!first) await emit({ type: "turn_start" });
      first = false;
      for (const m of pending) {
        await emit({ type: "message_start", message: m });
        await emit({ type: "message_end", message: m });
        context.messages.push(m);
        newMessages.push(m);
      }
      pending = [];
      const message = await streamResponse(context, config, signal, emit, streamFn);
      newMessages.push(message);
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        await emit({ type: "turn_end", message, toolResults: [] });
        await emit({ type: "agent_end", messages: newMessages });
        return;
      }
      let toolResults = [];
      moreTools = false;
      if (message.content.some((c) => c.type === "toolCall")) {
        const batch = await runTools(context, message, config, signal, emit);
        toolResults = batch.messages;
        moreTools = !batch.terminate;
        for (const r of toolResults) {
          context.messages.push(r);
          newMessages.push(r);
        }
      }
      await emit({ type: "turn_end", message, toolResults });
      pending = (config.getSteeringMessages && (await config.getSteeringMessages())) || [];
    }
    const follow = (config.getFollowUpMessages && (await config.getFollowUpMessages())) || [];
    if (follow.length === 0) break;
    pending = follow;
  }
  await emit({ type: "agent_end", messages: newMessages });
}

async function runAgentLoop(prompts, context, config, emit, signal, streamFn) {
  const newMessages = [...prompts];
  const ctx = { ...context, messages: [...(context.messages || []), ...prompts] };
  await emit({ type: "agent_start" });
  await emit({ type: "turn_start" });
  for (const m of prompts) {
    await emit({ type: "message_start", message: m });
    await emit({ type: "message_end", message: m });
  }
  await runLoop(ctx, newMessages, config, signal, emit, streamFn || getDefaultStreamFn());
  return newMessages;
}

async function runAgentLoopContinue(context, config, emit, signal, streamFn) {
  const msgs = context.messages || [];
  if (msgs.length === 0) throw new Error("Cannot continue: no messages in context");
  if (msgs[msgs.length - 1].role === "assistant") throw new Error("Cannot continue from message role: assistant");
  const newMessages = [];
  await emit({ type: "agent_start" });
  await emit({ type: "turn_start" });
  await runLoop({ ...context, messages: [...msgs] }, newMessages, config, signal, emit, streamFn || getDefaultStreamFn());
  return newMessages;
}

// eventStream is pi's EventStream over the loop's events, ending with
// agent_end (its result: the new messages).
function eventStream(start) {
  const s = new piai.EventStream(
    (e) => e.type === "agent_end",
    (e) => (e.type === "agent_end" ? e.messages : []),
  );
  start((e) => s.push(e)).then(
    () => s.end(),
    (e) => {
      s.push({ type: "agent_end", messages: [] });
      s.end();
      throw e;
    },
  );
  return s;
}
const agentLoop = (prompts, context, config, signal, streamFn) =>
  eventStream((emit) => runAgentLoop(prompts, context, config, emit, signal, streamFn));
const agentLoopContinue = (context, config, signal, streamFn) =>
  eventStream((emit) => runAgentLoopContinue(context, config, emit, signal, streamFn));

// Agent holds one conversation and runs the loop on it: prompt, continue,
// steer, followUp, abort, waitForIdle and subscribe as pi-agent-core's.
class Agent {
  constructor(options) {
    const o = options || {};
    const init = o.initialState || {};
    this._state = {
      systemPrompt: init.systemPrompt || "",
      model: init.model,
      thinkingLevel: init.thinkingLevel || "off",
      tools: init.tools || [],
      messages: init.messages ? [...init.messages] : [],
      isStreaming: false,
      streamingMessage: undefined,
      pendingToolCalls: new Set(),
      errorMessage: undefined,
    };
    this.convertToLlm = o.convertToLlm || defaultConvertToLlm;
    this.transformContext = o.transformContext;
    this.streamFn = o.streamFn || getDefaultStreamFn();
    this.getApiKey = o.getApiKey;
    this.beforeToolCall = o.beforeToolCall;
    this.afterToolCall = o.afterToolCall;
    this.toolExecution = o.toolExecution || "parallel";
    this.sessionId = o.sessionId;
    this.toolContext = o.toolContext;
    this._steeringMode = o.steeringMode || "one-at-a-time";
    this._followUpMode = o.followUpMode || "one-at-a-time";
    this._steering = [];
    this._followUp = [];
    this._listeners = new Set();
    this._abort = undefined;
    this._running = undefined;
  }
  subscribe(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }
  get state() {
    return this._state;
  }
  set steeringMode(mode) {
    this._steeringMode = mode;
  }
  get steeringMode() {
    return this._steeringMode;
  }
  set followUpMode(mode) {
    this._followUpMode = mode;
  }
  get followUpMode() {
    return this._followUpMode;
  }
  steer(message) {
    this._steering.push(message);
  }
  followUp(message) {
    this._followUp.push(message);
  }
  clearSteeringQueue() {
    this._steering = [];
  }
  clearFollowUpQueue() {
    this._followUp = [];
  }
  clearAllQueues() {
    this._steering = [];
    this._followUp = [];
  }
  hasQueuedMessages() {
    return this._steering.length > 0 || this._followUp.length > 0;
  }
  peekQueuedMessages() {
    return [...this._steering, ...this._followUp];
  }
  get signal() {
    return this._abort ? this._abort.signal : undefined;
  }
  abort() {
    if (this._abort) this._abort.abort();
  }
  waitForIdle() {
    return this._running ? this._running.then(() => {}) : Promise.resolve();
  }
  reset() {
    this._state.messages = [];
    this._state.streamingMessage = undefined;
    this._state.pendingToolCalls = new Set();
    this._state.errorMessage = undefined;
    this.clearAllQueues();
  }
  prompt(input, images) {
    if (this._state.isStreaming) {
      return Promise.reject(new Error("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."));
    }
    let prompts;
    if (typeof input === "string") prompts = [userMessage(input, images)];
    else prompts = Array.isArray(input) ? input : [input];
    return this._run((emit, signal, config, context) => runAgentLoop(prompts, context, config, emit, signal, this.streamFn));
  }
  continue() {
    if (this._state.isStreaming) return Promise.reject(new Error("Agent is already processing. Wait for completion before continuing."));
    return this._run((emit, signal, config, context) => runAgentLoopContinue(context, config, emit, signal, this.streamFn));
  }
  _take(queue, mode) {
    if (queue.length === 0) return [];
    return mode === "all" ? queue.splice(0, queue.length) : queue.splice(0, 1);
  }
  _run(loop) {
    if (!this._state.model) return Promise.reject(new Error("No model configured"));
    const ac = new AbortController();
    this._abort = ac;
    const st = this._state;
    st.isStreaming = true;
    st.errorMessage = undefined;
    const config = {
      model: st.model,
      reasoning: st.thinkingLevel && st.thinkingLevel !== "off" ? st.thinkingLevel : undefined,
      convertToLlm: this.convertToLlm,
      transformContext: this.transformContext,
      getApiKey: this.getApiKey,
      beforeToolCall: this.beforeToolCall,
      afterToolCall: this.afterToolCall,
      toolExecution: this.toolExecution,
      sessionId: this.sessionId,
      toolContext: this.toolContext,
      getSteeringMessages: () => this._take(this._steering, this._steeringMode),
      getFollowUpMessages: () => this._take(this._followUp, this._followUpMode),
    };
    const context = { systemPrompt: st.systemPrompt, messages: [...st.messages], tools: st.tools };
    const emit = async (event) => {
      this._observe(event);
      for (const l of [...this._listeners]) await l(event, ac.signal);
    };
    const run = (async () => {
      try {
        await loop(emit, ac.signal, config, context);
      } catch (e) {
        const failed = failedAssistant(st.model, e, ac.signal.aborted);
        st.messages.push(failed);
        st.errorMessage = failed.errorMessage;
        await emit({ type: "agent_end", messages: [failed] });
      } finally {
        st.isStreaming = false;
        st.streamingMessage = undefined;
        st.pendingToolCalls = new Set();
        if (this._abort === ac) this._abort = undefined;
        this._running = undefined;
      }
    })();
    this._running = run;
    return run;
  }
  _observe(event) {
    const st = this._state;
    switch (event.type) {
      case "message_start":
      case "message_update":
        st.streamingMessage = event.message;
        break;
      case "message_end":
        st.streamingMessage = undefined;
        st.messages.push(event.message);
        break;
      case "tool_execution_start":
        st.pendingToolCalls.add(event.toolCallId);
        break;
      case "tool_execution_end":
        st.pendingToolCalls.delete(event.toolCallId);
        break;
      case "turn_end":
        if (event.message && event.message.errorMessage) st.errorMessage = event.message.errorMessage;
        break;
    }
  }
}

// streamProxy sends the request through a proxy server of pi's; there is
// none here, so it asks the agent's provider as streamSimple does.
const streamProxy = (model, context, options) => piai.streamSimple(model, context, options);

module.exports = {
  __esModule: true,
  Agent,
  agentLoop,
  agentLoopContinue,
  runAgentLoop,
  runAgentLoopContinue,
  runToolCall,
  streamProxy,
  getDefaultStreamFn,
  setDefaultStreamFn: (fn) => {
    defaultStreamFn = typeof fn === "function" ? fn : (model, context, options) => piai.streamSimple(model, context, options);
  },
  DEFAULT_AGENT_IDENTITY,
};
