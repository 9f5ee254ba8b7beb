// Package agent is the turn loop: build the context, stream one assistant
// response, run its tool calls, feed the results back, and repeat until the
// model stops; steering messages are injected between turns and follow-up
// messages start further turns when the model would stop. Cancellation is a
// context.Context: cancelling it aborts the stream and every running tool.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
)

// ToolDecision is what a tool_call hook decides.
type ToolDecision struct {
	Block  bool
	Reason string
	// Terminate (with Block) counts the blocked call's result as
	// terminating (see llm.ToolResult.Terminate).
	Terminate bool
}

// Config is everything one run needs. The functions are optional.
type Config struct {
	Model         llm.Model
	Provider      llm.Provider
	APIKey        string
	Headers       map[string]string
	SystemPrompt  string
	ThinkingLevel string
	SessionID     string
	Tools         *tools.Registry
	Cwd           string
	Env           []string
	// Shell runs the bash tool's commands.
	Shell tools.Shell

	// Emit receives every event of the run, synchronously and in order.
	Emit events.Sink

	// Files and Runner, when set, are handed to every tool call (a
	// client's files and terminal: see tools.Files, tools.CommandRunner).
	Files  tools.Files
	Runner tools.CommandRunner

	// MaxTurnRequests bounds the model requests between two user inputs
	// (the prompt, a steering or follow-up message): when the model has
	// made that many and asks for another turn after its tool calls, the
	// run ends with agent_end's TurnLimitReached. 0 means no limit.
	MaxTurnRequests int
	// BlockImages keeps images out of requests (images.blockImages):
	// each image of a user or tool result message goes as a line of text
	// saying image reading is disabled.
	BlockImages bool

	// TransformContext may replace the agent messages for one provider
	// call (the context hook); the change is never persisted.
	TransformContext func(ctx context.Context, msgs []llm.Message) []llm.Message
	// Steering returns (and dequeues) steering messages to inject before
	// the next provider call.
	Steering func() []llm.Message
	// FollowUp returns (and dequeues) follow-up messages to process when
	// the model would otherwise stop.
	FollowUp func() []llm.Message
	// BeforeToolCall may block a validated tool call; args may be changed
	// in place. An error blocks the call with the error's text.
	BeforeToolCall func(ctx context.Context, call llm.ContentBlock, args map[string]any) (ToolDecision, error)
	// AfterToolCall may patch a tool's result.
	AfterToolCall func(ctx context.Context, call llm.ContentBlock, args map[string]any, res llm.ToolResult, isError bool) (llm.ToolResult, bool)
	// TransformWithSystem may replace the system prompt, the tool
	// declarations and the messages of one provider call, after
	// TransformContext (the context_with_system hook); never persisted.
	TransformWithSystem func(ctx context.Context, system string, tools []llm.ToolSpec, msgs []llm.Message) (string, []llm.ToolSpec, []llm.Message)
	// TurnBoundary, when set, runs at the end of each turn, after its
	// messages were recorded and before turn_end is emitted (pi's
	// actionable turn_end): it may return the run's new context (entries
	// were appended) and ask for one more request (read for a completed
	// turn only).
	TurnBoundary func(ctx context.Context, assistant llm.Message, results []llm.Message) (context []llm.Message, cont bool)
	// FinalizeMessage, when set, may replace each message of the run as
	// it ends (pi's message_end result), before message_end is emitted
	// and the message recorded; the replacement keeps the role.
	FinalizeMessage func(ctx context.Context, m llm.Message) llm.Message
	// ProviderHooks, when set, gives each provider call the hooks that
	// see it on the wire (nil: none).
	ProviderHooks func() *llm.ProviderHooks
	// Stream, when set, replaces the direct provider call (used to wrap
	// retries); it must behave like Provider.Stream.
	Stream func(ctx context.Context, req *llm.Request, b *llm.Builder) error
}

func (c *Config) emit(ev events.Event) {
	if c.Emit != nil {
		c.Emit(ev)
	}
}

// Run processes prompts on top of history until the model stops and no
// queued message remains. It returns the messages the run created. It
// always emits agent_start first and agent_end last.
func Run(ctx context.Context, cfg *Config, history []llm.Message, prompts []llm.Message) []llm.Message {
	r := &run{cfg: cfg, context: append([]llm.Message(nil), history...), created: []llm.Message{}}
	cfg.emit(events.AgentStart{})
	r.loop(ctx, prompts)
	cfg.emit(events.AgentEnd{Messages: r.created, TurnLimitReached: r.limited})
	return r.created
}

type run struct {
	cfg      *Config
	context  []llm.Message
	created  []llm.Message
	requests int  // model requests since the last user input
	limited  bool // the run stopped at MaxTurnRequests
}

func (r *run) add(m llm.Message) {
	r.context = append(r.context, m)
	r.created = append(r.created, m)
}

// deliver emits start/end events for a non-streamed message and records
// it; it returns the message as recorded (see Config.FinalizeMessage).
func (r *run) deliver(ctx context.Context, m llm.Message) llm.Message {
	r.cfg.emit(events.MessageStart{Message: m})
	m = r.finalize(ctx, m)
	r.cfg.emit(events.MessageEnd{Message: m})
	r.add(m)
	return m
}

// finalize applies Config.FinalizeMessage; a replacement of another role,
// or a panicking hook, leaves the message as it was.
func (r *run) finalize(ctx context.Context, m llm.Message) (out llm.Message) {
	if r.cfg.FinalizeMessage == nil {
		return m
	}
	defer func() {
		if v := recover(); v != nil {
			out = m
		}
	}()
	if out = r.cfg.FinalizeMessage(ctx, m); out.Role != m.Role {
		return m
	}
	return out
}

func (r *run) loop(ctx context.Context, pending []llm.Message) {
	// Steering queued while the agent was idle joins the prompts.
	if r.cfg.Steering != nil {
		pending = append(pending[:len(pending):len(pending)], r.cfg.Steering()...)
	}
	for {
		moreTools := true
		for moreTools || len(pending) > 0 {
			if len(pending) > 0 {
				r.requests = 0
			} else if r.cfg.MaxTurnRequests > 0 && r.requests >= r.cfg.MaxTurnRequests {
				r.limited = true
				return
			}
			r.requests++
			r.cfg.emit(events.TurnStart{})
			for _, m := range pending {
				r.deliver(ctx, m)
			}
			pending = nil

			assistant := r.stream(ctx)
			if assistant.StopReason == llm.StopError || assistant.StopReason == llm.StopAborted {
				// (A hard exit: the boundary's continue is not read.)
				if r.cfg.TurnBoundary != nil {
					if newContext, _ := r.turnBoundary(ctx, assistant, []llm.Message{}); newContext != nil {
						r.context = newContext
					}
				}
				r.cfg.emit(events.TurnEnd{Message: assistant, ToolResults: []llm.Message{}})
				return
			}
			calls := assistant.ToolCalls()
			moreTools = len(calls) > 0
			results := []llm.Message{}
			if moreTools {
				var terminate bool
				results, terminate = r.runTools(ctx, &assistant, calls)
				// Every result of the batch asked to end the run: no
				// follow-up model call.
				moreTools = !terminate
			}
			if r.cfg.TurnBoundary != nil {
				newContext, cont := r.turnBoundary(ctx, assistant, results)
				if newContext != nil {
					r.context = newContext
				}
				// continue: one more request unless the tools already
				// make it (it never suppresses one).
				moreTools = moreTools || (cont && ctx.Err() == nil)
			}
			r.cfg.emit(events.TurnEnd{Message: assistant, ToolResults: results})
			if ctx.Err() != nil {
				return
			}
			if r.cfg.Steering != nil {
				pending = r.cfg.Steering()
			}
		}
		if r.cfg.FollowUp != nil {
			pending = r.cfg.FollowUp()
		}
		if len(pending) == 0 {
			return
		}
	}
}

// stream makes one provider call and returns the final assistant message.
func (r *run) stream(ctx context.Context) llm.Message {
	cfg := r.cfg
	msgs := r.context
	if cfg.TransformContext != nil {
		msgs = r.transform(ctx, msgs)
	}
	level := cfg.ThinkingLevel
	if !cfg.Model.Reasoning {
		level = llm.ThinkingOff
	}
	system := cfg.SystemPrompt
	var specs []llm.ToolSpec
	if cfg.Tools != nil {
		specs = cfg.Tools.Specs()
	}
	if cfg.TransformWithSystem != nil {
		system, specs, msgs = r.transformWithSystem(ctx, system, specs, msgs)
	}
	req := &llm.Request{
		Model: cfg.Model, SystemPrompt: system, Messages: providerMessages(cfg, msgs), Tools: specs,
		ThinkingLevel: level, APIKey: cfg.APIKey, Headers: cfg.Headers, SessionID: cfg.SessionID,
	}
	if cfg.ProviderHooks != nil {
		req.Hooks = cfg.ProviderHooks()
	}
	b := llm.NewBuilder(cfg.Model, func(ev llm.AssistantEvent, usage llm.Usage) {
		cfg.emit(events.MessageUpdate{Usage: usage, Event: ev, EndTurn: ev.EndTurn})
	})
	cfg.emit(events.MessageStart{Message: b.Snapshot()})
	// A message past llm.MaxStreamedMessage cancels its own stream.
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	b.CancelOnLimit(scancel)
	var err error
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case cfg.Stream != nil:
		err = cfg.Stream(sctx, req, b)
	case cfg.Provider != nil:
		err = safeStream(sctx, cfg.Provider, req, b)
	default:
		err = fmt.Errorf("no model selected")
	}
	msg := r.finalize(ctx, b.Finish(ctx, err))
	cfg.emit(events.MessageEnd{Message: msg})
	r.add(msg)
	return msg
}

// transform applies the context hook; a panicking hook leaves the
// messages as they were.
func (r *run) transform(ctx context.Context, msgs []llm.Message) (out []llm.Message) {
	defer func() {
		if v := recover(); v != nil {
			out = msgs
		}
	}()
	out = r.cfg.TransformContext(ctx, append([]llm.Message(nil), msgs...))
	if out == nil {
		out = msgs
	}
	return out
}

// turnBoundary runs the TurnBoundary hook; a panicking hook changes
// nothing.
func (r *run) turnBoundary(ctx context.Context, assistant llm.Message, results []llm.Message) (c []llm.Message, cont bool) {
	defer func() {
		if v := recover(); v != nil {
			c, cont = nil, false
		}
	}()
	return r.cfg.TurnBoundary(ctx, assistant, results)
}

// transformWithSystem applies the context_with_system hook; a panicking
// hook leaves the request as it was.
func (r *run) transformWithSystem(ctx context.Context, system string, specs []llm.ToolSpec, msgs []llm.Message) (s string, t []llm.ToolSpec, m []llm.Message) {
	defer func() {
		if v := recover(); v != nil {
			s, t, m = system, specs, msgs
		}
	}()
	return r.cfg.TransformWithSystem(ctx, system, specs, append([]llm.Message(nil), msgs...))
}

// beforeToolCall runs the BeforeToolCall hook; a panic blocks the call.
func beforeToolCall(ctx context.Context, cfg *Config, call llm.ContentBlock, args map[string]any) (d ToolDecision, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("tool_call hook failed: %v", v)
		}
	}()
	return cfg.BeforeToolCall(ctx, call, args)
}

// afterToolCall runs the AfterToolCall hook; a panic keeps the result.
func afterToolCall(ctx context.Context, cfg *Config, tr *toolRun) {
	defer func() { _ = recover() }()
	args := tr.execArgs
	if args == nil { // the call failed before its arguments were validated
		args = tr.args
	}
	res, isErr := cfg.AfterToolCall(ctx, tr.call, args, tr.result, tr.isError)
	tr.result, tr.isError = res, isErr
}

// safeStream turns a provider panic into an error.
func safeStream(ctx context.Context, p llm.Provider, req *llm.Request, b *llm.Builder) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("provider failed: %v", v)
		}
	}()
	return p.Stream(ctx, req, b)
}

type toolRun struct {
	call llm.ContentBlock
	// parent is the tool call a nested call is made from (CallTool);
	// "" for the model's calls.
	parent string
	args   map[string]any // as the model sent them (events)
	// execArgs are the validated, coerced arguments the tool and the
	// hooks get.
	execArgs map[string]any
	tool     tools.Tool
	result   llm.ToolResult
	isError  bool
	done     bool // preflight already produced the result
	ended    bool // tool_execution_end was emitted (guarded by the events mutex)
	// duration is how long Execute ran (nil when the tool did not run).
	duration *int64
	// nested records the calls a call of the model made to other tools.
	nested *nestedRecorder
}

// runTools runs the assistant's tool calls: starts and checks in source
// order, executes the runnable ones concurrently, reports each end as it
// completes, then records the result messages in source order.
func (r *run) runTools(ctx context.Context, assistant *llm.Message, calls []llm.ContentBlock) ([]llm.Message, bool) {
	cfg := r.cfg
	runs := make([]*toolRun, len(calls))
	for i, c := range calls {
		args := c.Arguments
		if args == nil {
			args = map[string]any{}
		}
		tr := &toolRun{call: c, args: args}
		runs[i] = tr
		cfg.emit(events.ToolExecutionStart{ToolCallID: c.ID, ToolName: c.Name, Args: args})
		if assistant.StopReason == llm.StopLength {
			tr.fail("Tool call was not executed: the response hit the output length limit before it was complete.")
			continue
		}
		tr.prepare(ctx, cfg)
	}

	var mu sync.Mutex // serialises the events of concurrent tools
	finish := func(tr *toolRun) {
		if cfg.AfterToolCall != nil {
			afterToolCall(ctx, cfg, tr)
		}
		mu.Lock()
		tr.ended = true // later updates from a misbehaving tool are dropped
		tr.emitEnd(cfg)
		mu.Unlock()
	}
	// A batch holding a tool registered as sequential runs one call
	// after the other, in source order.
	sequential := false
	for _, tr := range runs {
		sequential = sequential || (tr.tool != nil && tools.Sequential(tr.tool))
	}
	var wg sync.WaitGroup
	for _, tr := range runs {
		if tr.done {
			finish(tr)
			continue
		}
		if sequential {
			tr.execute(ctx, cfg, &mu)
			finish(tr)
			continue
		}
		wg.Add(1)
		go func(tr *toolRun) {
			defer wg.Done()
			tr.execute(ctx, cfg, &mu)
			finish(tr)
		}(tr)
	}
	wg.Wait()

	results := make([]llm.Message, 0, len(runs))
	terminate := len(runs) > 0
	for _, tr := range runs {
		terminate = terminate && tr.result.Terminate
		content := tr.result.Content
		if content == nil {
			content = []llm.ContentBlock{}
		}
		m := llm.Message{
			Role: llm.RoleToolResult, ToolCallID: tr.call.ID, ToolName: tr.call.Name,
			Content: llm.Content{Blocks: content}, Details: tr.result.Details, IsError: tr.isError,
			Timestamp: llm.Now(),
		}
		if nc := tr.nested.snapshot(); nc != nil {
			// Kept for the session record, never sent to the model.
			m.Extra = map[string]json.RawMessage{"nestedCalls": nc}
		}
		results = append(results, r.deliver(ctx, m))
	}
	return results, terminate
}

// prepare finds the tool, checks the arguments and runs the tool_call
// hook; a call that must not run gets its result (tr.done).
func (tr *toolRun) prepare(ctx context.Context, cfg *Config) {
	c := tr.call
	if ctx.Err() != nil {
		tr.fail("Operation aborted")
		return
	}
	var t tools.Tool
	var ok bool
	if cfg.Tools != nil {
		t, ok = cfg.Tools.Get(c.Name)
		if ok {
			active := cfg.Tools.IsActive(c.Name)
			if tr.parent != "" { // a tool's call: by the tool's exposure
				ok = tools.CallableByTools(t, active)
			} else {
				ok = active
			}
		}
	}
	if !ok {
		tr.fail(fmt.Sprintf("Tool %s not found", c.Name))
		return
	}
	tr.tool = t
	if c.ArgumentsError != "" {
		tr.fail(`Invalid arguments for tool "` + c.Name + `": ` + c.ArgumentsError)
		return
	}
	// The tool and the hooks get the coerced arguments; the events and
	// the transcript keep what the model sent.
	coerced, err := cfg.Tools.Validate(t, tr.args, c.RawArguments)
	if err != nil {
		tr.fail(err.Error())
		return
	}
	tr.execArgs = coerced
	if cfg.BeforeToolCall != nil {
		d, err := beforeToolCall(ctx, cfg, c, coerced)
		if err != nil {
			tr.fail(err.Error())
			return
		}
		if d.Block {
			reason := d.Reason
			if reason == "" {
				reason = "Tool execution was blocked"
			}
			tr.fail(reason)
			tr.result.Terminate = d.Terminate
		}
	}
}

func (tr *toolRun) fail(text string) {
	tr.result = llm.TextResult(text)
	tr.isError = true
	tr.done = true
}

func (tr *toolRun) execute(ctx context.Context, cfg *Config, mu *sync.Mutex) {
	defer func() {
		if v := recover(); v != nil {
			tr.result = llm.TextResult(fmt.Sprintf("Tool %s failed: %v", tr.call.Name, v))
			tr.isError = true
		}
	}()
	call := tools.Call{
		ID: tr.call.ID, Args: tr.execArgs, Cwd: cfg.Cwd, Env: cfg.Env, Shell: cfg.Shell, Files: cfg.Files, Runner: cfg.Runner,
		OnUpdate: func(partial llm.ToolResult) {
			mu.Lock()
			defer mu.Unlock()
			if tr.ended {
				return
			}
			cfg.emit(events.ToolExecutionUpdate{ToolCallID: tr.call.ID, ToolName: tr.call.Name, Args: tr.args, PartialResult: partial, ParentToolCallID: tr.parent})
		},
	}
	started := time.Now() // monotonic
	if tr.parent == "" {
		tr.nested = newNestedRecorder()
	}
	res, err := tr.tool.Execute(withToolScope(ctx, tr.call.ID, tr.nested), call)
	ms := time.Since(started).Round(time.Millisecond).Milliseconds()
	tr.duration = &ms
	if err != nil {
		tr.isError = true
		tr.result = llm.TextResult(err.Error())
		var ewr *tools.ErrorWithResult
		if errors.As(err, &ewr) {
			tr.result.Details = ewr.Result.Details
		}
		return
	}
	tr.result = res
}

// providerMessages is the transcript a request carries: the agent
// messages as a provider understands them, images replaced by a line of
// text when cfg.BlockImages is set.
func providerMessages(cfg *Config, msgs []llm.Message) []llm.Message {
	out := llm.ToProviderMessages(msgs)
	if cfg.BlockImages {
		out = llm.WithoutImages(out)
	}
	return out
}
