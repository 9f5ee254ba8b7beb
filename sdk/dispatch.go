package sdk

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
)

// dispatch runs the extension's handlers for one event and returns the
// composed result as JSON (nil for none).
func (e *Extension) dispatch(ctx *Context, event string, payload json.RawMessage) (out json.RawMessage, err error) {
	hs := e.handlers[event]
	if len(hs) == 0 {
		return nil, nil
	}
	if len(hs) == 1 {
		v, err := safeCall(hs[0], ctx, payload)
		if err != nil {
			return nil, err
		}
		return marshalResult(v)
	}
	return e.compose(ctx, event, hs, payload)
}

func safeCall(h HandlerFunc, ctx *Context, payload json.RawMessage) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return h(ctx, payload)
}

func marshalResult(v any) (json.RawMessage, error) {
	if isNil(v) {
		return nil, nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the handler's result: %w", err)
	}
	return b, nil
}

func truthyJSON(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", "false", "0", `""`:
		return false
	}
	return true
}

// compose applies the agent's composition rules to several handlers of one
// extension, so that the agent sees one result.
func (e *Extension) compose(ctx *Context, event string, hs []HandlerFunc, payload json.RawMessage) (json.RawMessage, error) {
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	var last json.RawMessage
	result := map[string]any{}
	var messages []any
	changed := false
	for _, h := range hs {
		cur, _ := json.Marshal(ev)
		v, err := safeCall(h, ctx, cur)
		if err != nil {
			return nil, err
		}
		raw, err := marshalResult(v)
		if err != nil {
			return nil, err
		}
		if !truthyJSON(raw) {
			continue
		}
		var r map[string]any
		_ = json.Unmarshal(raw, &r)
		switch event {
		case EventSessionBeforeSwitch, EventSessionBeforeFork, EventSessionBeforeCompact, EventSessionBeforeTree:
			last = raw
			if c, _ := r["cancel"].(bool); c {
				return raw, nil
			}
		case EventUserBash:
			return raw, nil
		case EventToolCall:
			if in, ok := r["input"].(map[string]any); ok {
				ev["input"], result["input"] = in, in
				changed = true
			}
			if b, _ := r["block"].(bool); b {
				result["block"], result["reason"] = true, r["reason"]
				return json.Marshal(result)
			}
		case EventToolResult:
			for _, k := range []string{"content", "details", "isError"} {
				if val, ok := r[k]; ok && val != nil {
					ev[k], result[k] = val, val
					changed = true
				}
			}
		case EventInput:
			switch r["action"] {
			case "handled":
				return json.Marshal(map[string]any{"action": "handled"})
			case "transform":
				if t, ok := r["text"]; ok {
					ev["text"] = t
				}
				if im, ok := r["images"]; ok {
					ev["images"] = im
				}
				result = map[string]any{"action": "transform", "text": ev["text"], "images": ev["images"]}
				changed = true
			}
		case EventBeforeAgentStart:
			if sp, ok := r["systemPrompt"].(string); ok {
				ev["systemPrompt"], result["systemPrompt"] = sp, sp
				changed = true
			}
			if m, ok := r["message"]; ok && m != nil {
				messages = append(messages, m)
			}
		case EventContext:
			if m, ok := r["messages"]; ok && m != nil {
				ev["messages"], result["messages"] = m, m
				changed = true
			}
		default:
			last = raw
		}
	}
	if event == EventBeforeAgentStart && len(messages) > 0 {
		result["messages"] = messages
		changed = true
	}
	if changed {
		return json.Marshal(result)
	}
	return last, nil
}
