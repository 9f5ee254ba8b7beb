package hooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/atomic-go/atomic/host/llm"
)

// invoke waits for the subscriber's queued notifications, then calls the
// handler.
func (b *Bus) invoke(ctx context.Context, sl slot, ev *Event) (json.RawMessage, error) {
	e := sl.e
	if e.queue != nil && sl.i <= 0 {
		bctx, cancel := context.WithTimeout(ctx, timeoutFor(e.sub, ev.Name))
		b.barrier(bctx, e)
		cancel()
	}
	return b.call(ctx, e.sub, sl.i, ev)
}

// Before dispatches a session_before_* event: every truthy result replaces
// the previous one, a result with a truthy "cancel" stops the dispatch.
// Failing handlers are reported and skipped.
func (b *Bus) Before(ctx context.Context, name string, payload any) BeforeResult {
	var out BeforeResult
	subs := b.handlers(name)
	if len(subs) == 0 {
		return out
	}
	ev := NewEvent(name, payload)
	for _, e := range subs {
		raw, err := b.invoke(ctx, e, ev)
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, name, err)
			}
			continue
		}
		if !truthy(raw) {
			continue
		}
		// Every session_before_* result has cancel
		// (SessionBeforeSwitchResult is the smallest of them).
		var r SessionBeforeSwitchResult
		if err := decodeObject(raw, &r); err != nil {
			b.report(e.e.sub, name, err)
			continue
		}
		out = BeforeResult{Raw: raw, Cancel: bool(r.Cancel)}
		if out.Cancel {
			return out
		}
	}
	return out
}

func truthyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// ToolCall dispatches tool_call. A result with "block" stops the dispatch;
// a result with "input" replaces the arguments seen by later handlers and
// by the tool. A handler that fails, times out, or returns a malformed
// result blocks the call (fail closed) and is reported. Cancellation of ctx
// (abort) blocks without a report.
func (b *Bus) ToolCall(ctx context.Context, ev ToolCallEvent) ToolCallDecision {
	d := ToolCallDecision{Input: ev.Input}
	subs := b.handlers(ToolCall)
	cur := NewEvent(ToolCall, ev)
	for _, e := range subs {
		if d.Modified {
			next := ev
			next.Input = d.Input
			cur = NewEvent(ToolCall, next)
		}
		raw, err := b.invoke(ctx, e, cur)
		if err == nil && truthy(raw) {
			var r ToolCallResult
			if derr := decodeObject(raw, &r); derr != nil {
				err = derr
			} else {
				if in := trimSpace(r.Input); len(in) > 0 && string(in) != "null" {
					var args map[string]any
					if jerr := json.Unmarshal(in, &args); jerr != nil || args == nil {
						err = fmt.Errorf("malformed result: \"input\" must be an object")
					} else {
						d.Input, d.Modified = args, true
					}
				}
				if err == nil && r.Block {
					d.Block, d.Reason, d.Terminate = true, r.Reason, bool(r.Terminate)
					return d
				}
			}
		}
		if err != nil {
			if isCancel(ctx, err) {
				return ToolCallDecision{Block: true, Reason: "Operation aborted", Input: d.Input}
			}
			b.report(e.e.sub, ToolCall, err)
			return ToolCallDecision{Block: true, Reason: "Extension failed, blocking execution: " + err.Error(), Input: d.Input}
		}
	}
	return d
}

// ToolResult dispatches tool_result as a patch chain: each of content,
// details and isError that a handler returns replaces the current value,
// and the next handler sees the patched event. It reports whether anything
// changed.
func (b *Bus) ToolResult(ctx context.Context, ev ToolResultEvent) (ToolResultEvent, bool) {
	changed := false
	var cur *Event
	for _, e := range b.handlers(ToolResult) {
		if cur == nil {
			cur = NewEvent(ToolResult, ev)
		}
		raw, err := b.invoke(ctx, e, cur)
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, ToolResult, err)
			}
			continue
		}
		if !truthy(raw) {
			continue
		}
		var r ToolResultPatch
		if err := decodeObject(raw, &r); err != nil {
			b.report(e.e.sub, ToolResult, err)
			continue
		}
		next := ev
		if r.Content != nil {
			next.Content = r.Content
		}
		if len(r.Details) > 0 {
			var details any
			_ = json.Unmarshal(r.Details, &details)
			next.Details = details
		}
		if r.IsError != nil {
			next.IsError = *r.IsError
		}
		ev, cur = next, nil
		changed = true
	}
	return ev, changed
}

// Input dispatches input: text and images are chained through "transform"
// results and the first "handled" result stops the dispatch.
func (b *Bus) Input(ctx context.Context, ev InputEvent) InputOutcome {
	res := InputOutcome{Action: ActionContinue, Text: ev.Text, Images: ev.Images}
	transformed := false
	for _, e := range b.handlers(Input) {
		cur := ev
		cur.Text, cur.Images = res.Text, res.Images
		raw, err := b.invoke(ctx, e, NewEvent(Input, cur))
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, Input, err)
			}
			continue
		}
		if !truthy(raw) {
			continue
		}
		var r InputResult
		if err := decodeObject(raw, &r); err != nil {
			b.report(e.e.sub, Input, err)
			continue
		}
		switch r.Action {
		case ActionHandled:
			return InputOutcome{Action: ActionHandled, Text: res.Text, Images: res.Images}
		case ActionTransform:
			if r.Text != nil {
				res.Text = *r.Text
			}
			if r.Images != nil {
				res.Images = r.Images
			}
			transformed = true
		case ActionContinue, "":
		default:
			b.report(e.e.sub, Input, fmt.Errorf("malformed result: unknown action %q", r.Action))
		}
	}
	if transformed {
		res.Action = ActionTransform
	}
	return res
}

// BeforeAgentStart dispatches before_agent_start: the system prompt is
// chained (each handler sees the current one) and every injected message
// is collected in order. render, when not nil, builds the prompt from
// options a handler changed, for the later handlers' systemPrompt.
func (b *Bus) BeforeAgentStart(ctx context.Context, ev BeforeAgentStartEvent, render func(options json.RawMessage) string) BeforeAgentStartOutcome {
	var out BeforeAgentStartOutcome
	var cur *Event
	for _, e := range b.handlers(BeforeAgentStart) {
		if cur == nil {
			cur = NewEvent(BeforeAgentStart, ev)
		}
		raw, err := b.invoke(ctx, e, cur)
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, BeforeAgentStart, err)
			}
			continue
		}
		if !truthy(raw) {
			continue
		}
		var r BeforeAgentStartResult
		if err := decodeObject(raw, &r); err != nil {
			b.report(e.e.sub, BeforeAgentStart, err)
			continue
		}
		if r.Message != nil {
			r.Messages = append([]CustomMessage{*r.Message}, r.Messages...)
		}
		for _, m := range r.Messages {
			if m.CustomType == "" {
				b.report(e.e.sub, BeforeAgentStart, fmt.Errorf("malformed result: message needs a customType"))
				continue
			}
			out.Messages = append(out.Messages, m)
		}
		if opts := trimSpace(r.SystemPromptOptions); len(opts) > 0 && opts[0] == '{' {
			out.SystemPromptOptions = opts
			ev.SystemPromptOptions, cur = opts, nil
			if out.SystemPrompt == nil && render != nil {
				ev.SystemPrompt = render(opts)
			}
		}
		if r.SystemPrompt != nil {
			sp := *r.SystemPrompt
			out.SystemPrompt = &sp
			ev.SystemPrompt, cur = sp, nil
		}
	}
	return out
}

// Context dispatches context: a result with truthy "messages" replaces the
// messages the next handler sees and the provider receives. The caller's
// slice is never modified.
func (b *Bus) Context(ctx context.Context, msgs []llm.Message) ([]llm.Message, bool) {
	changed := false
	var cur *Event
	for _, e := range b.handlers(Context) {
		if cur == nil {
			cur = NewEvent(Context, ContextEvent{Messages: msgs})
		}
		raw, err := b.invoke(ctx, e, cur)
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, Context, err)
			}
			continue
		}
		if !truthy(raw) {
			continue
		}
		var r ContextResult
		if err := decodeObject(raw, &r); err != nil {
			b.report(e.e.sub, Context, err)
			continue
		}
		if r.Messages == nil { // null or absent: unchanged
			continue
		}
		next, err := decodeMessages(r.Messages)
		if err != nil {
			b.report(e.e.sub, Context, fmt.Errorf("malformed result: messages: %w", err))
			continue
		}
		msgs, changed, cur = next, true, nil
	}
	return msgs, changed
}

// MessageEnd dispatches message_end: each handler sees {message} as the
// handlers before it left it and may return {message}, a replacement of
// the same role. It returns the message to record.
func (b *Bus) MessageEnd(ctx context.Context, m llm.Message) llm.Message {
	for _, e := range b.handlers(MessageEnd) {
		raw, err := b.invoke(ctx, e, NewEvent(MessageEnd, MessageEvent{Message: m}))
		if err == nil && truthy(raw) {
			var r MessageEndResult
			if err = decodeObject(raw, &r); err == nil && truthy(r.Message) {
				var next llm.Message
				switch jerr := json.Unmarshal(r.Message, &next); {
				case jerr != nil:
					err = fmt.Errorf("malformed result: message: %w", jerr)
				case next.Role != m.Role:
					err = fmt.Errorf("message_end: the replacement must keep the role %q (got %q)", m.Role, next.Role)
				default:
					m = next
				}
			}
		}
		if err != nil && !isCancel(ctx, err) {
			b.report(e.e.sub, MessageEnd, err)
		}
	}
	return m
}

// UserBash dispatches user_bash: the first truthy result wins. It returns
// the handler's result, or nil when no handler took the command.
func (b *Bus) UserBash(ctx context.Context, ev UserBashEvent) *BashResult {
	cur := NewEvent(UserBash, ev)
	for _, e := range b.handlers(UserBash) {
		raw, err := b.invoke(ctx, e, cur)
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, UserBash, err)
			}
			continue
		}
		if !truthy(raw) {
			continue
		}
		var r UserBashResult
		if err := decodeObject(raw, &r); err != nil {
			b.report(e.e.sub, UserBash, err)
			continue
		}
		if r.Result != nil {
			return r.Result
		}
		b.report(e.e.sub, UserBash, fmt.Errorf("only {result} is supported for user_bash results here"))
	}
	return nil
}

// Call sends any event to one subscriber with the bus's deadline and
// failure handling, and returns its raw result (used for events the bus
// has no composition rule for).
func (b *Bus) Call(ctx context.Context, name string, payload any) []json.RawMessage {
	var out []json.RawMessage
	ev := NewEvent(name, payload)
	for _, e := range b.handlers(name) {
		raw, err := b.invoke(ctx, e, ev)
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, name, err)
			}
			continue
		}
		if truthy(raw) {
			out = append(out, raw)
		}
	}
	return out
}

// decodeMessages decodes a list of agent messages.
func decodeMessages(raws []json.RawMessage) ([]llm.Message, error) {
	out := make([]llm.Message, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
