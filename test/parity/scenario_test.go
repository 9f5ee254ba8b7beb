package parity

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
	"github.com/atomic-go/atomic/test/compat"
)

// The scripted scenario every extension goes through in every engine:
// load, what it registered, session_start, its first command, a tool
// call through tool_call and tool_result, a prompt answered by the faux
// provider (its whole event sequence), and shutdown. Every payload is
// built once, before any engine runs, so the three engines get the same
// bytes.

const (
	systemPrompt = "You are the parity test's agent."
	promptText   = "hello parity"
	// stamp is every message's and event's time (Unix milliseconds).
	stamp = int64(1767225600000)
)

func systemPromptOptions(cwd string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"cwd": cwd, "selectedTools": []string{"read", "bash"}, "contextFiles": []any{}, "skills": []any{}})
	return b
}

// stepTimeout bounds one step of the scenario (a handler, a command, a
// tool): a step that takes it is recorded as timed out.
const stepTimeout = 10 * time.Second

func assistantMessage(text string) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: llm.TextContent(text), API: fauxModel.API, Provider: fauxModel.Provider,
		Model: fauxModel.ID, StopReason: llm.StopStop, Timestamp: stamp}
	return m
}

func event(fields map[string]any) *hooks.Event {
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return hooks.NewEvent(fields["type"].(string), json.RawMessage(b))
}

// promptEvents are the events of one prompt the faux provider answers
// (as the agent sends them to extensions, in order).
func promptEvents(cwd string) []*hooks.Event {
	user := llm.Message{Role: llm.RoleUser, Content: llm.TextContent(promptText), Timestamp: stamp}
	var updates []*hooks.Event
	b := llm.NewBuilder(fauxModel, func(ev llm.AssistantEvent, usage llm.Usage) {
		raw := append([]byte(`{"type":"message_update","usage":`), llm.AppendUsage(nil, usage)...)
		raw = append(append(raw, `,"assistantMessageEvent":`...), ev.AppendJSON(nil)...)
		updates = append(updates, hooks.NewEvent(hooks.MessageUpdate, json.RawMessage(append(raw, '}'))))
	})
	p := faux.NewWithSteps(faux.Step{Text: "Hello from the faux model.", Chunks: 3})
	ctx := context.Background()
	err := p.Stream(ctx, &llm.Request{Model: fauxModel, SystemPrompt: systemPrompt, Messages: []llm.Message{user}}, b)
	answer := b.Finish(ctx, err)
	answer.Timestamp = stamp
	partial := answer.Clone()
	partial.Content = llm.Content{}
	evs := []*hooks.Event{
		event(map[string]any{"type": hooks.Input, "text": promptText, "source": "interactive"}),
		event(map[string]any{"type": hooks.BeforeAgentStart, "prompt": promptText, "systemPrompt": systemPrompt, "systemPromptOptions": systemPromptOptions(cwd)}),
		event(map[string]any{"type": hooks.AgentStart}),
		event(map[string]any{"type": hooks.TurnStart, "turnIndex": 0, "timestamp": stamp}),
		event(map[string]any{"type": hooks.MessageStart, "message": user}),
		event(map[string]any{"type": hooks.MessageEnd, "message": user}),
		event(map[string]any{"type": hooks.Context, "messages": []llm.Message{user}}),
		event(map[string]any{"type": hooks.BeforeProviderRequest, "payload": map[string]any{"model": fauxModel.ID, "system": systemPrompt, "messages": []llm.Message{user}}}),
		event(map[string]any{"type": hooks.AfterProviderResponse, "status": 200, "headers": map[string]string{"content-type": "text/event-stream"}}),
		event(map[string]any{"type": hooks.ProviderStreamEvent, "provider": fauxModel.Provider, "api": fauxModel.API, "model": fauxModel.ID, "data": map[string]any{"type": "message_start"}}),
		event(map[string]any{"type": hooks.MessageStart, "message": partial}),
	}
	evs = append(evs, updates...)
	return append(evs,
		event(map[string]any{"type": hooks.MessageEnd, "message": answer}),
		event(map[string]any{"type": hooks.TurnEnd, "turnIndex": 0, "message": answer, "toolResults": []any{}}),
		event(map[string]any{"type": hooks.AgentEnd, "messages": []llm.Message{user, answer}}),
		event(map[string]any{"type": hooks.AgentSettled}),
	)
}

// run is one extension's scenario in one engine.
type run struct {
	rec    *recorder
	ext    extensions.Extension
	events map[string]bool
}

func (r *run) step(line string) { r.rec.add("== " + line) }

func result(raw json.RawMessage, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case len(raw) == 0 || string(raw) == "null":
		return "-"
	}
	return canonical(raw)
}

// awaited are the notifications the agent delivers through Bus.Call
// (host/app/exthooks.go): each handler on its own, awaited.
var awaited = map[string]bool{hooks.AfterProviderResponse: true, hooks.ProviderStreamEvent: true}

// deliver hands one event to each of the extension's handlers of it (as
// the bus does: a handler at a time, in registration order) and records
// what each returned.
func (r *run) deliver(ev *hooks.Event) []json.RawMessage {
	if !r.events[ev.Name] {
		return nil
	}
	var out []json.RawMessage
	one := func(i int, call func(ctx context.Context) (json.RawMessage, error)) {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		raw, err := call(ctx)
		r.rec.add(fmt.Sprintf("event %s#%d -> %s", ev.Name, i, result(raw, err)))
		if err == nil {
			out = append(out, raw)
		}
	}
	// As the bus: a queued notification is one call for all of the
	// extension's handlers; the other events (and the notifications the
	// agent awaits through Bus.Call) a call per handler.
	hs, ok := r.ext.(hooks.HandlerSet)
	n := -1
	if ok && (hooks.Kinds[ev.Name] != hooks.Notify || awaited[ev.Name]) {
		n = hs.Handlers(ev.Name)
	}
	if n < 0 {
		one(0, func(ctx context.Context) (json.RawMessage, error) { return r.ext.Handle(ctx, ev) })
		return out
	}
	for i := 0; i < n; i++ {
		one(i, func(ctx context.Context) (json.RawMessage, error) { return hs.HandleOne(ctx, ev, i) })
	}
	return out
}

// registrations records what the extension registered.
func (r *run) registrations() {
	var cmds []string
	for _, c := range r.ext.Commands() {
		cmds = append(cmds, jsonText(c))
	}
	r.rec.add("commands " + strings.Join(cmds, " "))
	for _, t := range r.ext.Tools() {
		r.rec.add("tool " + jsonText(t))
	}
	for _, f := range r.ext.Flags() {
		r.rec.add("flag " + jsonText(f))
	}
	r.events = map[string]bool{}
	var names []string
	for _, e := range r.ext.Events() {
		r.events[e] = true
		names = append(names, e)
	}
	r.rec.add("events " + strings.Join(names, " "))
}

func (r *run) command() {
	cmds := r.ext.Commands()
	if len(cmds) == 0 {
		return
	}
	name := cmds[0].Name
	r.step("command /" + name)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	err := r.ext.RunCommand(ctx, name, "")
	r.rec.add("command -> " + result(nil, err))
}

// tool runs a tool call as the agent does: tool_execution_start, the
// tool_call hook, the tool (the extension's first, else bash, whose
// result is made up), tool_result and tool_execution_end.
func (r *run) tool() {
	name, args := "bash", map[string]any{"command": "echo parity"}
	own := false
	if tools := r.ext.Tools(); len(tools) > 0 {
		name, args, own = tools[0].Name, compat.Sample(tools[0].Parameters), true
	}
	r.step("tool " + name)
	const id = "call_parity_1"
	r.deliver(event(map[string]any{"type": hooks.ToolExecutionStart, "toolCallId": id, "toolName": name, "args": args}))
	blocked := false
	for _, raw := range r.deliver(event(map[string]any{"type": hooks.ToolCall, "toolCallId": id, "toolName": name, "input": args})) {
		var d struct {
			Block bool `json:"block"`
		}
		if json.Unmarshal(raw, &d) == nil && d.Block {
			blocked = true
		}
	}
	res, isError := llm.TextResult("parity\n"), false
	switch {
	case blocked:
		res, isError = llm.TextResult("blocked"), true
	case own:
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		got, err := r.ext.ExecuteTool(ctx, name, id, args, func(u llm.ToolResult) { r.rec.add("tool update " + jsonText(u)) })
		cancel()
		if err != nil {
			r.rec.add("tool -> error: " + err.Error())
			res, isError = llm.TextResult(err.Error()), true
		} else {
			r.rec.add(fmt.Sprintf("tool -> %s terminate=%v", jsonText(got), got.Terminate))
			res = got
		}
	}
	r.deliver(event(map[string]any{"type": hooks.ToolResult, "toolCallId": id, "toolName": name, "input": args,
		"content": res.Content, "details": res.Details, "isError": isError}))
	r.deliver(event(map[string]any{"type": hooks.ToolExecutionEnd, "toolCallId": id, "toolName": name, "result": res, "isError": isError}))
}

// scenario runs the whole scenario; load is the engine's Load.
func scenario(rec *recorder, load func(context.Context) (extensions.Extension, error), prompt []*hooks.Event) {
	r := &run{rec: rec}
	r.step("load")
	ctx, cancel := context.WithTimeout(context.Background(), 3*stepTimeout)
	ext, err := load(ctx)
	cancel()
	if err != nil {
		rec.add("load -> error: " + err.Error())
		return
	}
	r.ext = ext
	r.step("registrations")
	r.registrations()
	r.step("session_start")
	r.deliver(event(map[string]any{"type": hooks.SessionStart, "reason": "startup"}))
	r.command()
	r.tool()
	r.step("prompt")
	for _, ev := range prompt {
		r.deliver(ev)
	}
	r.step("registrations after the prompt")
	r.registrations()
	rec.settle(100*time.Millisecond, stepTimeout)
	r.step("shutdown")
	r.deliver(event(map[string]any{"type": hooks.SessionShutdown, "reason": "quit"}))
	if err := ext.Close(); err != nil {
		rec.add("close -> error: " + err.Error())
	}
}
