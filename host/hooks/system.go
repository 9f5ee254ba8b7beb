package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/jsonorder"
)

// ContextWithSystem dispatches context_with_system: the handlers see the
// whole transcript of one request, pi 1.6's way, a leading system
// message (the prompt, and the tool declarations as toolsAdded) before
// the messages, and each may return {messages}, which the next handler
// sees. The result is what providers take: the system messages replayed
// into one prompt and one tool set (text joined, sections applied in
// order, tools added and removed in order), the others as they are. It
// reports whether a handler changed anything.
func (b *Bus) ContextWithSystem(ctx context.Context, system string, tools []llm.ToolSpec, msgs []llm.Message) (string, []llm.ToolSpec, []llm.Message, bool) {
	head := map[string]any{"role": "system", "content": system, "timestamp": 0}
	if len(tools) > 0 {
		head["toolsAdded"] = tools
	}
	cur := make([]any, 0, len(msgs)+1)
	cur = append(cur, head)
	for i := range msgs {
		cur = append(cur, msgs[i])
	}
	var last []json.RawMessage
	for _, e := range b.handlers(ContextWithSystem) {
		payload := ContextWithSystemEvent{Messages: cur}
		if last != nil {
			payload.Messages = last
		}
		raw, err := b.invoke(ctx, e, NewEvent(ContextWithSystem, payload))
		if err == nil && truthy(raw) {
			var r ContextResult
			if err = decodeObject(raw, &r); err == nil && r.Messages != nil {
				last = r.Messages
				if len(r.Messages) == 0 || roleOf(r.Messages[0]) != "system" {
					err = errors.New("the handler removed the leading system message; the request has no prompt or tool declarations (keep a system message at index 0)")
				}
			}
		}
		if err != nil && !isCancel(ctx, err) {
			b.report(e.e.sub, ContextWithSystem, err)
		}
	}
	if last == nil {
		return system, tools, msgs, false
	}
	list := last
	var texts []string
	sections := jsonorder.New[string]()
	toolSet := jsonorder.New[llm.ToolSpec]()
	hadSystem := false
	out := make([]llm.Message, 0, len(list))
	for _, raw := range list {
		if roleOf(raw) != "system" {
			var m llm.Message
			if err := json.Unmarshal(raw, &m); err == nil && m.Role != "" {
				out = append(out, m)
			}
			continue
		}
		hadSystem = true
		var s struct {
			Content      json.RawMessage         `json:"content"`
			Sections     json.RawMessage         `json:"sections"`
			ToolsAdded   []llm.ToolSpec          `json:"toolsAdded"`
			ToolsRemoved []struct{ Name string } `json:"toolsRemoved"`
		}
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		if t := contentText(s.Content); t != "" {
			texts = append(texts, t)
		}
		members, _ := jsonorder.Members(s.Sections)
		for _, kv := range members {
			var v *string
			if json.Unmarshal(kv.Value, &v) != nil {
				continue
			}
			if v == nil {
				sections.Delete(kv.Key)
			} else {
				sections.Set(kv.Key, *v)
			}
		}
		for _, t := range s.ToolsRemoved {
			toolSet.Delete(t.Name)
		}
		for _, t := range s.ToolsAdded {
			toolSet.Set(t.Name, t)
		}
	}
	prompt := strings.Join(texts, "\n\n")
	parts := []string{}
	if prompt != "" {
		parts = append(parts, prompt)
	}
	for _, k := range sections.Keys {
		if v := sections.Vals[k]; v != "" {
			parts = append(parts, v)
		}
	}
	var specs []llm.ToolSpec
	if hadSystem {
		for _, k := range toolSet.Keys {
			specs = append(specs, toolSet.Vals[k])
		}
	}
	return strings.Join(parts, "\n\n"), specs, out, true
}

func roleOf(raw json.RawMessage) string {
	var r struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Role
}

// contentText is a message content's text: a string, or its text blocks
// joined by line breaks (pi-ai's contentText).
func contentText(raw json.RawMessage) string {
	var c llm.Content
	_ = json.Unmarshal(raw, &c)
	return c.JoinText("\n")
}
