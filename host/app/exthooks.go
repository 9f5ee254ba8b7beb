package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/atomic-go/atomic/host/agent"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/resources"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
)

// installHooks connects the agent loop's hook points to the bus. Hook
// points without subscribers cost nothing.
func (rt *Runtime) installHooks(cfg *agent.Config) {
	bus := rt.ext.bus
	cfg.TransformContext = func(ctx context.Context, msgs []llm.Message) []llm.Message {
		if !bus.Has(hooks.Context) {
			return msgs
		}
		out, _ := bus.Context(ctx, msgs)
		return out
	}
	cfg.TransformWithSystem = func(ctx context.Context, system string, tools []llm.ToolSpec, msgs []llm.Message) (string, []llm.ToolSpec, []llm.Message) {
		if !bus.Has(hooks.ContextWithSystem) {
			return system, tools, msgs
		}
		s, t, m, _ := bus.ContextWithSystem(ctx, system, tools, msgs)
		return s, t, m
	}
	cfg.TurnBoundary = rt.turnBoundary
	cfg.FinalizeMessage = func(ctx context.Context, m llm.Message) llm.Message {
		if !bus.Has(hooks.MessageEnd) {
			return m
		}
		return bus.MessageEnd(ctx, m)
	}
	model := cfg.Model
	cfg.ProviderHooks = func() *llm.ProviderHooks { return rt.providerHooks(model) }
	cfg.BeforeToolCall = func(ctx context.Context, call llm.ContentBlock, args map[string]any) (agent.ToolDecision, error) {
		if !bus.Has(hooks.ToolCall) {
			return agent.ToolDecision{}, nil
		}
		d := bus.ToolCall(ctx, hooks.ToolCallEvent{ToolCallID: call.ID, ToolName: call.Name, Input: args})
		if d.Modified {
			for k := range args {
				delete(args, k)
			}
			for k, v := range d.Input {
				args[k] = v
			}
		}
		return agent.ToolDecision{Block: d.Block, Reason: d.Reason, Terminate: d.Terminate}, nil
	}
	cfg.AfterToolCall = func(ctx context.Context, call llm.ContentBlock, args map[string]any, res llm.ToolResult, isError bool) (llm.ToolResult, bool) {
		if !bus.Has(hooks.ToolResult) {
			return res, isError
		}
		ev, changed := bus.ToolResult(ctx, hooks.ToolResultEvent{
			ToolCallID: call.ID, ToolName: call.Name, Input: args, Content: res.Content, Details: res.Details, IsError: isError,
		})
		if !changed {
			return res, isError
		}
		// A patched result comes from an extension: the same caps as its
		// own tools' results.
		return tools.BoundResult(llm.ToolResult{Content: ev.Content, Details: ev.Details, Terminate: res.Terminate}, "a tool_result handler"), ev.IsError
	}
}

// providerHooks are the provider events for one request of the agent's
// loop, only those that extensions handle (nil when none is).
func (rt *Runtime) providerHooks(model llm.Model) *llm.ProviderHooks {
	bus := rt.ext.bus
	var h llm.ProviderHooks
	if bus.Has(hooks.BeforeProviderHeaders) {
		h.Headers = bus.ProviderHeaders
	}
	if bus.Has(hooks.BeforeProviderRequest) {
		h.Payload = bus.ProviderRequest
	}
	if bus.Has(hooks.AfterProviderResponse) {
		h.Response = func(ctx context.Context, status int, headers map[string]string) {
			bus.Call(ctx, hooks.AfterProviderResponse, hooks.AfterProviderResponseEvent{Status: status, Headers: headers})
		}
	}
	if bus.Has(hooks.ProviderStreamEvent) {
		h.Stream = func(ctx context.Context, data json.RawMessage) {
			bus.Call(ctx, hooks.ProviderStreamEvent, hooks.ProviderStreamEventPayload{Provider: model.Provider, API: model.API, Model: model.ID, Data: data})
		}
	}
	if h.Headers == nil && h.Payload == nil && h.Response == nil && h.Stream == nil {
		return nil
	}
	return &h
}

// notifyExtensions forwards an agent event to subscribed extensions.
// Events are encoded once, and only when someone listens.
func (rt *Runtime) notifyExtensions(ev events.Event) {
	bus := rt.ext.bus
	name := ev.EventType()
	switch ev.(type) {
	case events.TurnStart:
		idx := rt.ext.turn(false)
		if bus.Has(name) {
			bus.Notify(name, hooks.TurnStartEvent{TurnIndex: idx, Timestamp: llm.Now()})
		}
		return
	case events.TurnEnd:
		return // turn_end reaches extensions through TurnBoundary
	case events.AgentStart:
		rt.ext.resetTurns()
	}
	if !bus.Has(name) {
		return
	}
	switch name {
	// (message_end reaches them through FinalizeMessage, which may
	// replace the message.)
	case hooks.AgentStart, hooks.AgentEnd, hooks.MessageStart, hooks.MessageUpdate,
		hooks.ToolExecutionStart, hooks.ToolExecutionUpdate, hooks.ToolExecutionEnd:
	default:
		return
	}
	raw, err := events.Encode(ev)
	if err != nil {
		return
	}
	bus.Notify(name, json.RawMessage(raw))
}

// beforeAgentStart runs before_agent_start for a prompt: it may replace
// the system prompt for this run and inject messages after the prompt.
func (rt *Runtime) beforeAgentStart(ctx context.Context, cfg *agent.Config, prompts []llm.Message) []llm.Message {
	bus := rt.ext.bus
	if !bus.Has(hooks.BeforeAgentStart) || len(prompts) == 0 {
		return prompts
	}
	first := prompts[0]
	render := func(opts json.RawMessage) string {
		var o resources.PromptOptions
		if json.Unmarshal(opts, &o) != nil {
			return cfg.SystemPrompt
		}
		return resources.BuildFromOptions(o, 0, time.Now())
	}
	r := bus.BeforeAgentStart(ctx, hooks.BeforeAgentStartEvent{
		Prompt: first.Content.JoinText("\n"), Images: first.Content.Images(), SystemPrompt: cfg.SystemPrompt,
		SystemPromptOptions: rt.promptOptions(),
	}, render)
	switch {
	case r.SystemPrompt != nil:
		cfg.SystemPrompt = *r.SystemPrompt
	case r.SystemPromptOptions != nil:
		// The changed options give this run's prompt; a change of the
		// selected tools lasts, as pi.setActiveTools.
		if p, err := rt.promptFromOptions(r.SystemPromptOptions); err != nil {
			rt.reportExtensionError(hooks.ExtensionError{Event: hooks.BeforeAgentStart, Error: err.Error()})
		} else {
			cfg.SystemPrompt = p
		}
	}
	for _, m := range r.Messages {
		prompts = append(prompts, customMessage(m))
	}
	return prompts
}

func customMessage(m hooks.CustomMessage) llm.Message {
	return llm.Message{Role: llm.RoleCustom, CustomType: m.CustomType, Content: m.Content, Display: m.Display, Details: m.Details, Timestamp: llm.Now()}
}

// inputHook runs the input event for a prompt. It returns the text and
// images to use, and whether an extension handled the prompt.
func (rt *Runtime) inputHook(text string, images []llm.ContentBlock, source, behavior string) (string, []llm.ContentBlock, bool) {
	bus := rt.ext.bus
	if !bus.Has(hooks.Input) {
		return text, images, false
	}
	r := bus.Input(rt.baseCtx, hooks.InputEvent{Text: text, Images: images, Source: source, StreamingBehavior: behavior})
	if r.Action == hooks.ActionHandled {
		return text, images, true
	}
	return r.Text, r.Images, false
}

// takeNextTurn returns the messages extensions held for the next prompt.
func (rt *Runtime) takeNextTurn() []llm.Message {
	return rt.ext.takeNextTurn()
}

// UserBash offers a shell command the user runs directly (the RPC bash and
// user_bash commands) to extensions first. A non-nil result is used instead
// of running the command.
func (rt *Runtime) UserBash(ctx context.Context, command string, excludeFromContext bool) *hooks.BashResult {
	rt.extReady()
	if !rt.ext.bus.Has(hooks.UserBash) {
		return nil
	}
	return rt.ext.bus.UserBash(ctx, hooks.UserBashEvent{Command: command, ExcludeFromContext: excludeFromContext, Cwd: rt.Cwd()})
}

// extensionBash records and returns the result a user_bash handler gave
// for a direct shell command, as if the command had run.
func (rt *Runtime) extensionBash(owner *session.Session, req BashRequest, r *hooks.BashResult) BashResult {
	res := BashResult{Output: r.Output, ExitCode: r.ExitCode, Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath}
	if req.OnOutput != nil && res.Output != "" {
		req.OnOutput("stdout", res.Output)
	}
	rt.recordBash(owner, llm.Message{
		Role: llm.RoleBashExecution, Command: req.Command, Output: res.Output,
		ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated,
		FullOutputPath: res.FullOutputPath, ExcludeFromContext: req.ExcludeFromContext,
		Timestamp: llm.Now(),
	})
	return res
}

// tapExtensions turns runtime events that have an extension counterpart
// into notifications: model_changed → model_select, thinking_level_changed
// → thinking_level_select, session_info_changed, agent_settled.
func (rt *Runtime) tapExtensions(ev events.Event) {
	bus := rt.ext.bus
	if bus == nil {
		return
	}
	switch e := ev.(type) {
	case events.ModelChanged:
		if bus.Has(hooks.ModelSelect) {
			bus.Notify(hooks.ModelSelect, hooks.ModelSelectEvent{Model: e.Model, PreviousModel: e.PreviousModel, Source: e.Source})
		}
	case events.ThinkingLevelChanged:
		prev := rt.ext.swapLevel(e.Level)
		if bus.Has(hooks.ThinkingLevelSelect) {
			bus.Notify(hooks.ThinkingLevelSelect, hooks.ThinkingLevelSelectEvent{Level: e.Level, PreviousLevel: prev})
		}
	case events.SessionInfoChanged:
		if bus.Has(hooks.SessionInfoChanged) {
			bus.Notify(hooks.SessionInfoChanged, hooks.SessionInfoChangedEvent{Name: e.Name})
		}
	case events.AgentSettled:
		if bus.Has(hooks.AgentSettled) {
			bus.Notify(hooks.AgentSettled, hooks.AgentSettledEvent{Aborted: e.Aborted})
		}
	}
}
