package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/anthropic"
	"github.com/atomic-go/atomic/host/llm/llmtest"
)

const testKey = "sk-ant-test-KEY-0123456789"

func model(base string) llm.Model {
	return llm.Model{
		ID: "claude-sonnet-4-5", Name: "Sonnet", API: llm.APIAnthropicMessages, Provider: "anthropic",
		BaseURL: base, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 64000,
		Cost: llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	}
}

type result struct {
	msg    llm.Message
	events []llm.AssistantEvent
	usages []llm.Usage
	err    error
}

func run(t *testing.T, ctx context.Context, req *llm.Request) result {
	t.Helper()
	var r result
	b := llm.NewBuilder(req.Model, func(ev llm.AssistantEvent, u llm.Usage) {
		r.events = append(r.events, ev)
		r.usages = append(r.usages, u)
	})
	r.err = anthropic.New().Stream(ctx, req, b)
	r.msg = b.Finish(ctx, r.err)
	return r
}

func types(evs []llm.AssistantEvent) string {
	var out []string
	for _, e := range evs {
		if len(out) > 0 && out[len(out)-1] == e.Type {
			continue
		}
		out = append(out, e.Type)
	}
	return strings.Join(out, ",")
}

func bashTool() llm.ToolSpec {
	return llm.ToolSpec{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(
		`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)}
}

func TestStreamThinkingTextToolUse(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Anthropic(llmtest.Turn{
		Thinking: "Let me list the files.", Signature: "EqQBCkYIARgCKkB-signature",
		Text: "I will run ls.", ToolCalls: []llmtest.Call{{ID: "toolu_01A", Name: "bash", Args: `{"command":"ls -la"}`}},
		Chunks: 3, Usage: llmtest.Usage{Input: 100, Output: 40, CacheRead: 1000, CacheWrite: 200},
	}))
	req := &llm.Request{Model: model(srv.URL), SystemPrompt: "You are helpful.", APIKey: testKey,
		Messages: []llm.Message{llm.UserText("list files")}, Tools: []llm.ToolSpec{bashTool()}, ThinkingLevel: llm.ThinkingMedium}
	r := run(t, context.Background(), req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	m := r.msg
	if m.StopReason != llm.StopToolUse {
		t.Fatalf("stopReason = %q", m.StopReason)
	}
	if len(m.Content.Blocks) != 3 {
		t.Fatalf("blocks: %+v", m.Content.Blocks)
	}
	th := m.Content.Blocks[0]
	if th.Type != llm.BlockThinking || th.Thinking != "Let me list the files." || th.ThinkingSignature != "EqQBCkYIARgCKkB-signature" {
		t.Errorf("thinking block: %+v", th)
	}
	if m.Content.Blocks[1].Text != "I will run ls." {
		t.Errorf("text block: %+v", m.Content.Blocks[1])
	}
	tc := m.Content.Blocks[2]
	if tc.Type != llm.BlockToolCall || tc.ID != "toolu_01A" || tc.Name != "bash" || tc.Arguments["command"] != "ls -la" {
		t.Errorf("tool call: %+v", tc)
	}
	want := "thinking_start,thinking_delta,thinking_end,text_start,text_delta,text_end,toolcall_start,toolcall_delta,toolcall_end"
	if got := types(r.events); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	u := m.Usage
	if u.Input != 100 || u.Output != 40 || u.CacheRead != 1000 || u.CacheWrite != 200 || u.TotalTokens != 1340 {
		t.Errorf("usage: %+v", u)
	}
	wantCost := (100*3 + 40*15 + 1000*0.3 + 200*3.75) / 1e6
	if d := u.Cost.Total - wantCost; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost total = %v, want %v", u.Cost.Total, wantCost)
	}
	// Usage is cumulative in the updates: input known from the start.
	if r.usages[0].Input != 100 {
		t.Errorf("first update usage: %+v", r.usages[0])
	}
	if m.ResponseID != "msg_01test" {
		t.Errorf("responseId = %q", m.ResponseID)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests: %d", len(reqs))
	}
	got := reqs[0]
	if got.Path != "/v1/messages" {
		t.Errorf("path = %s", got.Path)
	}
	if got.Header.Get("X-Api-Key") != testKey {
		t.Errorf("x-api-key header missing")
	}
	if !strings.Contains(got.Header.Get("Anthropic-Beta"), "interleaved-thinking") {
		t.Errorf("anthropic-beta = %q", got.Header.Get("Anthropic-Beta"))
	}
	var body map[string]any
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["stream"] != true || body["model"] != "claude-sonnet-4-5" {
		t.Errorf("body: stream=%v model=%v", body["stream"], body["model"])
	}
	thinking := body["thinking"].(map[string]any)
	if thinking["type"] != "enabled" || thinking["budget_tokens"].(float64) != 10240 {
		t.Errorf("thinking = %v", thinking)
	}
	if mt := body["max_tokens"].(float64); mt <= 10240 {
		t.Errorf("max_tokens %v must exceed the budget", mt)
	}
	sys := body["system"].([]any)[0].(map[string]any)
	if sys["text"] != "You are helpful." || sys["cache_control"].(map[string]any)["type"] != "ephemeral" {
		t.Errorf("system = %v", sys)
	}
	tools := body["tools"].([]any)
	tool := tools[0].(map[string]any)
	schema := tool["input_schema"].(map[string]any)
	if tool["name"] != "bash" || schema["type"] != "object" || schema["additionalProperties"] != false {
		t.Errorf("tool = %v", tool)
	}
}

func TestSendsHistoryBack(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Anthropic(llmtest.Turn{Text: "done", Usage: llmtest.Usage{Input: 10, Output: 2}}))
	mdl := model(srv.URL)
	assistant := llm.Message{Role: llm.RoleAssistant, API: mdl.API, Provider: mdl.Provider, Model: mdl.ID,
		StopReason: llm.StopToolUse, Content: llm.Content{Blocks: []llm.ContentBlock{
			{Type: llm.BlockThinking, Thinking: "hmm", ThinkingSignature: "sig-1"},
			{Type: llm.BlockThinking, Redacted: true, ThinkingSignature: "redacted-data"},
			llm.Text("calling"),
			llm.ToolCall("call|with|pipes", "bash", map[string]any{"command": "ls"}),
			llm.ToolCall("toolu_2", "read", map[string]any{"path": "a.png"}),
		}}}
	other := llm.Message{Role: llm.RoleAssistant, API: "openai-responses", Provider: "openai", Model: "gpt-5",
		StopReason: llm.StopStop, Content: llm.Content{Blocks: []llm.ContentBlock{
			{Type: llm.BlockThinking, Thinking: "foreign thought", ThinkingSignature: "not-ours"},
		}}}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text("look"), llm.Image("aGVsbG8=", "image/png")}}},
		other,
		llm.UserText("go on"),
		assistant,
		{Role: llm.RoleToolResult, ToolCallID: "call|with|pipes", ToolName: "bash", Content: llm.TextContent("file.txt")},
		{Role: llm.RoleToolResult, ToolCallID: "toolu_2", ToolName: "read", IsError: true,
			Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text("an image"), llm.Image("aW1n", "image/png")}}},
	}
	req := &llm.Request{Model: mdl, APIKey: testKey, Messages: msgs, ThinkingLevel: llm.ThinkingOff}
	if r := run(t, context.Background(), req); r.err != nil {
		t.Fatal(r.err)
	}
	var body struct {
		Thinking any `json:"thinking"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Thinking != nil {
		t.Errorf("thinking sent with level off: %v", body.Thinking)
	}
	if len(body.Messages) != 5 {
		t.Fatalf("messages: %d %+v", len(body.Messages), body.Messages)
	}
	img := body.Messages[0].Content[1]
	if img["type"] != "image" || img["source"].(map[string]any)["data"] != "aGVsbG8=" {
		t.Errorf("image block: %v", img)
	}
	if c := body.Messages[1].Content[0]; c["type"] != "text" || c["text"] != "foreign thought" {
		t.Errorf("foreign thinking should become text: %v", c)
	}
	a := body.Messages[3].Content
	if a[0]["type"] != "thinking" || a[0]["signature"] != "sig-1" || a[0]["thinking"] != "hmm" {
		t.Errorf("thinking block: %v", a[0])
	}
	if a[1]["type"] != "redacted_thinking" || a[1]["data"] != "redacted-data" {
		t.Errorf("redacted block: %v", a[1])
	}
	if a[3]["type"] != "tool_use" || a[3]["id"] != "call_with_pipes" {
		t.Errorf("tool_use: %v", a[3])
	}
	results := body.Messages[4].Content
	if len(results) != 2 || results[0]["tool_use_id"] != "call_with_pipes" || results[1]["is_error"] != true {
		t.Errorf("tool results: %v", results)
	}
	if _, ok := results[1]["cache_control"]; !ok {
		t.Errorf("last block should carry a cache breakpoint: %v", results[1])
	}
	inner := results[1]["content"].([]any)
	if len(inner) != 2 || inner[1].(map[string]any)["type"] != "image" {
		t.Errorf("tool result content: %v", inner)
	}
}

func TestRedactedThinkingAndAdaptive(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Anthropic(llmtest.Turn{Redacted: "opaque-blob", Text: "ok"}))
	mdl := model(srv.URL)
	mdl.ID = "claude-opus-4-6"
	req := &llm.Request{Model: mdl, Messages: []llm.Message{llm.UserText("hi")}, ThinkingLevel: llm.ThinkingHigh}
	r := run(t, context.Background(), req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	b := r.msg.Content.Blocks[0]
	if !b.Redacted || b.ThinkingSignature != "opaque-blob" {
		t.Errorf("redacted block: %+v", b)
	}
	var body map[string]any
	_ = json.Unmarshal(srv.Requests()[0].Body, &body)
	if th := body["thinking"].(map[string]any); th["type"] != "adaptive" {
		t.Errorf("thinking = %v", th)
	}
	if oc := body["output_config"].(map[string]any); oc["effort"] != "high" {
		t.Errorf("output_config = %v", oc)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name      string
		resp      llmtest.Response
		status    int
		retry     float64
		transient bool
		overflow  bool
		contains  string
	}{
		{"429 with Retry-After", llmtest.AnthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", "Retry-After", "7"),
			429, 7, true, false, "rate_limit_error"},
		{"529 overloaded", llmtest.AnthropicError(529, "overloaded_error", "Overloaded"), 529, 0, true, false, `529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"400 prompt too long", llmtest.AnthropicError(400, "invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum"),
			400, 0, false, true, "prompt is too long"},
		{"401 echoing the key", llmtest.AnthropicError(401, "authentication_error", "invalid x-api-key "+testKey), 401, 0, false, false, "invalid x-api-key ***"},
		{"error event mid-stream", func() llmtest.Response {
			r := llmtest.Anthropic(llmtest.Turn{Text: "partial answer", Chunks: 2})
			r.Events = append(r.Events[:4], llmtest.AnthropicErrorEvent("overloaded_error", "Overloaded"))
			return r
		}(), 529, 0, true, false, "overloaded_error"},
		{"stream cut off", func() llmtest.Response {
			r := llmtest.Anthropic(llmtest.Turn{Text: "partial answer", Chunks: 4})
			r.CutAfter = 4
			return r
		}(), 0, 0, true, false, "terminated"},
		{"stream ends without message_stop", func() llmtest.Response {
			r := llmtest.Anthropic(llmtest.Turn{Text: "partial answer", Chunks: 4})
			r.Events = r.Events[:5]
			return r
		}(), 0, 0, true, false, "terminated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(tc.resp)
			req := &llm.Request{Model: model(srv.URL), APIKey: testKey, Messages: []llm.Message{llm.UserText("hi")}}
			r := run(t, context.Background(), req)
			if r.err == nil {
				t.Fatal("no error")
			}
			var ae *llm.APIError
			if !errors.As(r.err, &ae) {
				t.Fatalf("error %T %v is not an APIError", r.err, r.err)
			}
			if ae.Status != tc.status || ae.RetryAfter != tc.retry {
				t.Errorf("status %d retryAfter %v, want %d %v (%v)", ae.Status, ae.RetryAfter, tc.status, tc.retry, ae)
			}
			if !strings.Contains(r.err.Error(), tc.contains) {
				t.Errorf("error %q does not contain %q", r.err, tc.contains)
			}
			if strings.Contains(r.err.Error(), testKey) || strings.Contains(r.msg.ErrorMessage, testKey) {
				t.Errorf("the key leaked into the error: %v", r.err)
			}
			if got := llm.IsTransient(r.err, r.msg.ErrorMessage); got != tc.transient {
				t.Errorf("IsTransient = %v, want %v", got, tc.transient)
			}
			if got := llm.IsContextOverflow(&r.msg, 200000); got != tc.overflow {
				t.Errorf("IsContextOverflow = %v, want %v", got, tc.overflow)
			}
			if r.msg.StopReason != llm.StopError || r.msg.ErrorMessage == "" {
				t.Errorf("message: stop %q error %q", r.msg.StopReason, r.msg.ErrorMessage)
			}
		})
	}
}

func TestAbortMidStream(t *testing.T) {
	srv := llmtest.Start(t)
	resp := llmtest.Anthropic(llmtest.Turn{Text: strings.Repeat("word ", 50), Chunks: 50})
	resp.Delay = 20 * time.Millisecond
	srv.Enqueue(resp)
	ctx, cancel := context.WithCancel(context.Background())
	req := &llm.Request{Model: model(srv.URL), Messages: []llm.Message{llm.UserText("hi")}}
	var deltas int
	b := llm.NewBuilder(req.Model, func(ev llm.AssistantEvent, _ llm.Usage) {
		if ev.Type == llm.EvTextDelta {
			deltas++
			if deltas == 3 {
				cancel()
			}
		}
	})
	done := make(chan error, 1)
	go func() { done <- anthropic.New().Stream(ctx, req, b) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stream did not stop after cancel")
	}
	msg := b.Finish(ctx, err)
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage != llm.AbortedMessage {
		t.Errorf("stop %q error %q", msg.StopReason, msg.ErrorMessage)
	}
	if msg.Text() == "" {
		t.Errorf("partial text lost")
	}
}

// BenchmarkStream2000 parses a 2,000-delta answer from a local server
// through the SDK and the builder (no event output).
func BenchmarkStream2000(b *testing.B) {
	llmtest.BenchmarkStream2000(b, anthropic.New(), llmtest.Anthropic, model)
}
