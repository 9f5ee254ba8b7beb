package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
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
	sections := newOrdered()
	toolSet := newOrdered()
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
		for _, kv := range objectInOrder(s.Sections) {
			var v *string
			if json.Unmarshal(kv.value, &v) != nil {
				continue
			}
			if v == nil {
				sections.del(kv.key)
			} else {
				sections.set(kv.key, *v)
			}
		}
		for _, t := range s.ToolsRemoved {
			toolSet.del(t.Name)
		}
		for _, t := range s.ToolsAdded {
			b, _ := json.Marshal(t)
			toolSet.set(t.Name, string(b))
		}
	}
	prompt := strings.Join(texts, "\n\n")
	parts := []string{}
	if prompt != "" {
		parts = append(parts, prompt)
	}
	for _, k := range sections.keys {
		if v := sections.vals[k]; v != "" {
			parts = append(parts, v)
		}
	}
	var specs []llm.ToolSpec
	if hadSystem {
		for _, k := range toolSet.keys {
			var t llm.ToolSpec
			if json.Unmarshal([]byte(toolSet.vals[k]), &t) == nil {
				specs = append(specs, t)
			}
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

type keyValue struct {
	key   string
	value json.RawMessage
}

// objectInOrder lists a JSON object's members in the order written (nil
// for anything else).
func objectInOrder(raw json.RawMessage) []keyValue {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []keyValue
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		out = append(out, keyValue{k, v})
	}
	return out
}

// ordered is a string map that keeps the order of first insertion (a
// JavaScript object's, for string keys).
type ordered struct {
	keys []string
	vals map[string]string
}

func newOrdered() *ordered { return &ordered{vals: map[string]string{}} }

func (o *ordered) set(k, v string) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ordered) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}
