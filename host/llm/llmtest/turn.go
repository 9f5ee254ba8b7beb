package llmtest

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Call is a scripted tool call; Args is the raw JSON of its arguments.
type Call struct {
	ID   string
	Name string
	Args string
}

// Usage is the token usage a scripted turn reports.
type Usage struct {
	Input      int // not cached
	Output     int
	CacheRead  int
	CacheWrite int
	Reasoning  int // part of Output, where the dialect reports it
}

// Turn is one scripted assistant response, rendered per dialect by the
// Anthropic, OpenAIChat, OpenAIResponses and Gemini functions.
type Turn struct {
	ID        string // response id (a default is made up)
	Model     string
	Thinking  string
	Signature string // thinking signature (Anthropic), encrypted reasoning (Responses), thought signature (Gemini)
	// Redacted is the data of a redacted thinking block (Anthropic only).
	Redacted  string
	Text      string
	ToolCalls []Call
	// Chunks is how many deltas each block's text (and each tool call's
	// arguments) is split into; 0 or 1 sends it whole.
	Chunks int
	Usage  Usage
	// Stop overrides the dialect's stop/finish reason.
	Stop string
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func (t Turn) id(def string) string {
	if t.ID != "" {
		return t.ID
	}
	return def
}

func (t Turn) model(def string) string {
	if t.Model != "" {
		return t.Model
	}
	return def
}

func (c Call) id(prefix string, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return prefix + strconv.Itoa(i+1)
}

func (c Call) args() string {
	if c.Args == "" {
		return "{}"
	}
	return c.Args
}

// ErrorBody is a JSON error body in the shape most services use:
// {"error":{"type":…,"message":…}}.
func ErrorBody(typ, message string) string {
	return js(map[string]any{"error": map[string]any{"type": typ, "message": message}})
}

// Status returns a plain error response with a JSON body and optional
// headers given as name, value pairs.
func Status(code int, body string, header ...string) Response {
	r := Response{Status: code, Body: body}
	if len(header) > 0 {
		r.Header = map[string]string{}
		for i := 0; i+1 < len(header); i += 2 {
			r.Header[header[i]] = header[i+1]
		}
	}
	return r
}

// Anthropic renders a Messages API event stream: message_start with input
// usage, a thinking block with its signature (or a redacted one), a text
// block, tool_use blocks whose input arrives as input_json_delta, pings,
// message_delta with the stop reason and output usage, message_stop.
func Anthropic(t Turn) Response {
	var evs []Event
	add := func(name string, v any) { evs = append(evs, Event{Name: name, Data: js(v)}) }
	add("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": t.id("msg_01test"), "type": "message", "role": "assistant", "model": t.model("claude-test"),
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": t.Usage.Input, "cache_creation_input_tokens": t.Usage.CacheWrite,
			"cache_read_input_tokens": t.Usage.CacheRead, "output_tokens": 1},
	}})
	idx := 0
	if t.Thinking != "" {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		evs = append(evs, Event{Name: "ping", Data: `{"type": "ping"}`})
		for _, p := range Split(t.Thinking, t.Chunks) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "thinking_delta", "thinking": p}})
		}
		if t.Signature != "" {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "signature_delta", "signature": t.Signature}})
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	if t.Redacted != "" {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "redacted_thinking", "data": t.Redacted}})
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	if t.Text != "" {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, p := range Split(t.Text, t.Chunks) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "text_delta", "text": p}})
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	for i, c := range t.ToolCalls {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "tool_use", "id": c.id("toolu_0", i), "name": c.Name, "input": map[string]any{}}})
		add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": ""}})
		for _, p := range Split(c.args(), t.Chunks) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	stop := t.Stop
	if stop == "" {
		stop = "end_turn"
		if len(t.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	add("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": t.Usage.Output}})
	add("message_stop", map[string]any{"type": "message_stop"})
	return Response{Events: evs}
}

// AnthropicErrorEvent is the error event the Messages API sends inside a
// stream (for example when it becomes overloaded mid-response).
func AnthropicErrorEvent(typ, message string) Event {
	return Event{Name: "error", Data: anthropicErrorJSON(typ, message)}
}

// anthropicErrorJSON writes the error object with its keys in the order
// the service uses.
func anthropicErrorJSON(typ, message string) string {
	return `{"type":"error","error":{"type":` + js(typ) + `,"message":` + js(message) + `}}`
}

// AnthropicError is a Messages API error response.
func AnthropicError(status int, typ, message string, header ...string) Response {
	return Status(status, anthropicErrorJSON(typ, message), header...)
}

// OpenAIChat renders a Chat Completions stream: a role chunk, reasoning
// deltas (as "reasoning_content", the field vLLM, llama.cpp and DeepSeek
// use), content deltas, tool_calls deltas (id and name first, then argument
// fragments), a finish chunk, a usage chunk with empty choices, and
// [DONE].
func OpenAIChat(t Turn) Response {
	id := t.id("chatcmpl-test")
	model := t.model("test-model")
	var evs []Event
	chunk := func(delta map[string]any, finish any) {
		evs = append(evs, Event{Data: js(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, p := range splitNonEmpty(t.Thinking, t.Chunks) {
		chunk(map[string]any{"reasoning_content": p}, nil)
	}
	for _, p := range splitNonEmpty(t.Text, t.Chunks) {
		chunk(map[string]any{"content": p}, nil)
	}
	for i, c := range t.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id("call_", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		for _, p := range Split(c.args(), t.Chunks) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)
		}
	}
	finish := t.Stop
	if finish == "" {
		finish = "stop"
		if len(t.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	chunk(map[string]any{}, finish)
	prompt := t.Usage.Input + t.Usage.CacheRead
	evs = append(evs, Event{Data: js(map[string]any{
		"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": t.Usage.Output, "total_tokens": prompt + t.Usage.Output,
			"prompt_tokens_details":     map[string]any{"cached_tokens": t.Usage.CacheRead},
			"completion_tokens_details": map[string]any{"reasoning_tokens": t.Usage.Reasoning}},
	})})
	evs = append(evs, Event{Data: "[DONE]"})
	return Response{Events: evs}
}

func splitNonEmpty(s string, n int) []string {
	if s == "" {
		return nil
	}
	return Split(s, n)
}

// OpenAIResponses renders a Responses API stream: response.created, a
// reasoning item with summary deltas and encrypted content, a message item
// with output_text deltas, function_call items with argument deltas, and
// response.completed with usage.
func OpenAIResponses(t Turn) Response {
	id := t.id("resp_test")
	model := t.model("test-model")
	seq := 0
	var evs []Event
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		evs = append(evs, Event{Name: typ, Data: js(fields)})
	}
	resp := func(status string, output []any, usage any) map[string]any {
		return map[string]any{"id": id, "object": "response", "created_at": 1700000000, "status": status,
			"model": model, "output": output, "usage": usage, "error": nil, "incomplete_details": nil}
	}
	add("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)})
	var output []any
	oi := 0
	if t.Thinking != "" || t.Signature != "" {
		rid := "rs_test"
		add("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": rid, "type": "reasoning", "summary": []any{}}})
		if t.Thinking != "" {
			add("response.reasoning_summary_part.added", map[string]any{"item_id": rid, "output_index": oi, "summary_index": 0,
				"part": map[string]any{"type": "summary_text", "text": ""}})
			for _, p := range Split(t.Thinking, t.Chunks) {
				add("response.reasoning_summary_text.delta", map[string]any{"item_id": rid, "output_index": oi, "summary_index": 0, "delta": p})
			}
			add("response.reasoning_summary_text.done", map[string]any{"item_id": rid, "output_index": oi, "summary_index": 0, "text": t.Thinking})
		}
		item := map[string]any{"id": rid, "type": "reasoning", "summary": []any{}}
		if t.Thinking != "" {
			item["summary"] = []any{map[string]any{"type": "summary_text", "text": t.Thinking}}
		}
		if t.Signature != "" {
			item["encrypted_content"] = t.Signature
		}
		add("response.output_item.done", map[string]any{"output_index": oi, "item": item})
		output = append(output, item)
		oi++
	}
	if t.Text != "" {
		mid := "msg_test"
		add("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": mid, "type": "message",
			"status": "in_progress", "role": "assistant", "content": []any{}}})
		add("response.content_part.added", map[string]any{"item_id": mid, "output_index": oi, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, p := range Split(t.Text, t.Chunks) {
			add("response.output_text.delta", map[string]any{"item_id": mid, "output_index": oi, "content_index": 0, "delta": p, "logprobs": []any{}})
		}
		add("response.output_text.done", map[string]any{"item_id": mid, "output_index": oi, "content_index": 0, "text": t.Text, "logprobs": []any{}})
		part := map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}
		add("response.content_part.done", map[string]any{"item_id": mid, "output_index": oi, "content_index": 0, "part": part})
		item := map[string]any{"id": mid, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		add("response.output_item.done", map[string]any{"output_index": oi, "item": item})
		output = append(output, item)
		oi++
	}
	for i, c := range t.ToolCalls {
		fid := fmt.Sprintf("fc_test%d", i+1)
		callID := c.id("call_", i)
		add("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": fid, "type": "function_call",
			"status": "in_progress", "call_id": callID, "name": c.Name, "arguments": ""}})
		for _, p := range Split(c.args(), t.Chunks) {
			add("response.function_call_arguments.delta", map[string]any{"item_id": fid, "output_index": oi, "delta": p})
		}
		add("response.function_call_arguments.done", map[string]any{"item_id": fid, "output_index": oi, "arguments": c.args()})
		item := map[string]any{"id": fid, "type": "function_call", "status": "completed", "call_id": callID, "name": c.Name, "arguments": c.args()}
		add("response.output_item.done", map[string]any{"output_index": oi, "item": item})
		output = append(output, item)
		oi++
	}
	status := "completed"
	if t.Stop != "" {
		status = t.Stop
	}
	input := t.Usage.Input + t.Usage.CacheRead
	usage := map[string]any{"input_tokens": input, "input_tokens_details": map[string]any{"cached_tokens": t.Usage.CacheRead},
		"output_tokens": t.Usage.Output, "output_tokens_details": map[string]any{"reasoning_tokens": t.Usage.Reasoning},
		"total_tokens": input + t.Usage.Output}
	final := resp(status, output, usage)
	typ := "response.completed"
	if status == "incomplete" {
		typ = "response.incomplete"
		final["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	add(typ, map[string]any{"response": final})
	return Response{Events: evs}
}

// OpenAIResponsesFailed is a stream that fails with response.failed.
func OpenAIResponsesFailed(code, message string) Response {
	return Response{Events: []Event{
		{Name: "response.created", Data: js(map[string]any{"type": "response.created", "sequence_number": 0,
			"response": map[string]any{"id": "resp_fail", "object": "response", "status": "in_progress", "output": []any{}}})},
		{Name: "response.failed", Data: js(map[string]any{"type": "response.failed", "sequence_number": 1,
			"response": map[string]any{"id": "resp_fail", "object": "response", "status": "failed", "output": []any{},
				"error": map[string]any{"code": code, "message": message}}})},
	}}
}

// Gemini renders a streamGenerateContent (alt=sse) stream: thought parts,
// text parts, a functionCall part carrying the thought signature, and a
// final chunk with finishReason and usageMetadata.
func Gemini(t Turn) Response {
	model := t.model("gemini-test")
	var evs []Event
	chunk := func(parts []any, finish string, usage bool) {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		body := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": t.id("gemini-resp")}
		prompt := t.Usage.Input + t.Usage.CacheRead
		u := map[string]any{"promptTokenCount": prompt}
		if usage {
			u["candidatesTokenCount"] = t.Usage.Output - t.Usage.Reasoning
			u["thoughtsTokenCount"] = t.Usage.Reasoning
			u["totalTokenCount"] = prompt + t.Usage.Output
			if t.Usage.CacheRead > 0 {
				u["cachedContentTokenCount"] = t.Usage.CacheRead
			}
		}
		body["usageMetadata"] = u
		evs = append(evs, Event{Data: js(body)})
	}
	for _, p := range splitNonEmpty(t.Thinking, t.Chunks) {
		chunk([]any{map[string]any{"text": p, "thought": true}}, "", false)
	}
	sigUsed := false
	texts := splitNonEmpty(t.Text, t.Chunks)
	for i, p := range texts {
		part := map[string]any{"text": p}
		if i == 0 && t.Signature != "" && len(t.ToolCalls) == 0 {
			part["thoughtSignature"] = t.Signature
			sigUsed = true
		}
		chunk([]any{part}, "", false)
	}
	var calls []any
	for i, c := range t.ToolCalls {
		var args map[string]any
		_ = json.Unmarshal([]byte(c.args()), &args)
		fc := map[string]any{"name": c.Name, "args": args}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		part := map[string]any{"functionCall": fc}
		if i == 0 && t.Signature != "" && !sigUsed {
			part["thoughtSignature"] = t.Signature
		}
		calls = append(calls, part)
	}
	finish := t.Stop
	if finish == "" {
		finish = "STOP"
	}
	if calls == nil {
		calls = []any{map[string]any{"text": ""}}
	}
	chunk(calls, finish, true)
	return Response{Events: evs}
}

// GeminiError is a Gemini API error response.
func GeminiError(status int, statusText, message string, header ...string) Response {
	body := js(map[string]any{"error": map[string]any{"code": status, "message": message, "status": statusText}})
	return Status(status, body, header...)
}
