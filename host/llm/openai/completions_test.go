package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/host/llm/openai"
)

const testKey = "sk-test-PLANTED-abcdef123456"

func chatModel(base string) llm.Model {
	return llm.Model{
		ID: "qwen3:8b", Name: "Qwen", API: llm.APIOpenAICompletions, Provider: "ollama", BaseURL: base + "/v1",
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 32000, MaxTokens: 8192,
		Cost: llm.ModelCost{Input: 1, Output: 2, CacheRead: 0.5},
	}
}

type result struct {
	msg    llm.Message
	events []llm.AssistantEvent
	usages []llm.Usage
	err    error
}

func run(ctx context.Context, p llm.Provider, req *llm.Request) result {
	var r result
	b := llm.NewBuilder(req.Model, func(ev llm.AssistantEvent, u llm.Usage) {
		r.events = append(r.events, ev)
		r.usages = append(r.usages, u)
	})
	r.err = p.Stream(ctx, req, b)
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
		`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	return m
}

func TestCompletionsStream(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{
		Thinking: "The user wants files.", Text: "Listing.", Chunks: 3,
		ToolCalls: []llmtest.Call{{ID: "call_abc", Name: "bash", Args: `{"command":"ls"}`}, {ID: "call_def", Name: "bash", Args: `{"command":"pwd"}`}},
		Usage:     llmtest.Usage{Input: 50, CacheRead: 30, Output: 20},
	}))
	req := &llm.Request{Model: chatModel(srv.URL), SystemPrompt: "be brief", APIKey: testKey,
		Messages: []llm.Message{llm.UserText("list")}, Tools: []llm.ToolSpec{bashTool()}, ThinkingLevel: llm.ThinkingHigh}
	r := run(context.Background(), openai.NewCompletions(), req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	m := r.msg
	if m.StopReason != llm.StopToolUse {
		t.Errorf("stop %q", m.StopReason)
	}
	if len(m.Content.Blocks) != 4 {
		t.Fatalf("blocks %+v", m.Content.Blocks)
	}
	if m.Content.Blocks[0].Thinking != "The user wants files." || m.Content.Blocks[1].Text != "Listing." {
		t.Errorf("blocks %+v", m.Content.Blocks[:2])
	}
	c1, c2 := m.Content.Blocks[2], m.Content.Blocks[3]
	if c1.ID != "call_abc" || c1.Arguments["command"] != "ls" || c2.ID != "call_def" || c2.Arguments["command"] != "pwd" {
		t.Errorf("tool calls %+v %+v", c1, c2)
	}
	want := "thinking_start,thinking_delta,thinking_end,text_start,text_delta,text_end,toolcall_start,toolcall_delta,toolcall_end,toolcall_start,toolcall_delta,toolcall_end"
	if got := types(r.events); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	if u := m.Usage; u.Input != 50 || u.CacheRead != 30 || u.Output != 20 || u.TotalTokens != 100 {
		t.Errorf("usage %+v", u)
	}
	if want := (50*1.0 + 20*2 + 30*0.5) / 1e6; m.Usage.Cost.Total != want {
		t.Errorf("cost %v want %v", m.Usage.Cost.Total, want)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" {
		t.Errorf("path %s", got.Path)
	}
	if got.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("authorization header %q", got.Header.Get("Authorization"))
	}
	body := decode(t, got.Body)
	if body["stream"] != true || body["reasoning_effort"] != "high" {
		t.Errorf("stream %v reasoning_effort %v", body["stream"], body["reasoning_effort"])
	}
	if so := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options %v", so)
	}
	if _, ok := body["max_tokens"]; ok {
		t.Errorf("max_tokens sent without maxTokensField")
	}
	msgs := body["messages"].([]any)
	if first := msgs[0].(map[string]any); first["role"] != "system" || first["content"] != "be brief" {
		t.Errorf("system message %v", first)
	}
	tools := body["tools"].([]any)
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "bash" || fn["parameters"].(map[string]any)["type"] != "object" {
		t.Errorf("tool %v", fn)
	}
}

func TestCompletionsCompat(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: "ok"}))
	m := chatModel(srv.URL)
	m.Compat = map[string]any{
		"maxTokensField": "max_tokens", "supportsUsageInStreaming": false, "thinkingFormat": "qwen",
		"supportsDeveloperRole": true, "requiresToolResultName": true, "requiresThinkingAsText": true,
	}
	assistant := llm.Message{Role: llm.RoleAssistant, Provider: "ollama", API: m.API, Model: m.ID, StopReason: llm.StopToolUse,
		Content: llm.Content{Blocks: []llm.ContentBlock{{Type: llm.BlockThinking, Thinking: "think"}, llm.Text("let me look"),
			llm.ToolCall("call_1", "read", map[string]any{"path": "x.png"})}}}
	req := &llm.Request{Model: m, SystemPrompt: "sys", ThinkingLevel: llm.ThinkingLow, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text("see"), llm.Image("aW1n", "image/png")}}},
		assistant,
		{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "read", Content: llm.Content{Blocks: []llm.ContentBlock{llm.Image("cG5n", "image/png")}}},
		llm.UserText("and?"),
	}}
	if r := run(context.Background(), openai.NewCompletions(), req); r.err != nil {
		t.Fatal(r.err)
	}
	body := decode(t, srv.Requests()[0].Body)
	if body["max_tokens"].(float64) != 8192 || body["enable_thinking"] != true {
		t.Errorf("max_tokens %v enable_thinking %v", body["max_tokens"], body["enable_thinking"])
	}
	if _, ok := body["stream_options"]; ok {
		t.Errorf("stream_options sent although supportsUsageInStreaming is false")
	}
	if _, ok := body["reasoning_effort"]; ok {
		t.Errorf("reasoning_effort sent with thinkingFormat qwen")
	}
	msgs := body["messages"].([]any)
	roles := []string{}
	for _, mm := range msgs {
		roles = append(roles, mm.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "developer,user,assistant,tool,user,user" {
		t.Fatalf("roles %v", roles)
	}
	user := msgs[1].(map[string]any)["content"].([]any)
	if img := user[1].(map[string]any); img["type"] != "image_url" || img["image_url"].(map[string]any)["url"] != "data:image/png;base64,aW1n" {
		t.Errorf("image part %v", img)
	}
	a := msgs[2].(map[string]any)
	if a["content"] != "think\n\nlet me look" {
		t.Errorf("assistant content %v", a["content"])
	}
	tc := a["tool_calls"].([]any)[0].(map[string]any)
	if tc["id"] != "call_1" || tc["function"].(map[string]any)["arguments"] != `{"path":"x.png"}` {
		t.Errorf("tool call %v", tc)
	}
	tool := msgs[3].(map[string]any)
	if tool["tool_call_id"] != "call_1" || tool["name"] != "read" {
		t.Errorf("tool message %v", tool)
	}
	imgs := msgs[4].(map[string]any)["content"].([]any)
	if len(imgs) != 2 || imgs[1].(map[string]any)["type"] != "image_url" {
		t.Errorf("tool images message %v", imgs)
	}
}

func TestCompletionsErrors(t *testing.T) {
	cases := []struct {
		name      string
		resp      llmtest.Response
		status    int
		retry     float64
		transient bool
		overflow  bool
		contains  string
	}{
		{"429 Retry-After", llmtest.Status(429, llmtest.ErrorBody("rate_limit_exceeded", "Rate limit reached"), "Retry-After", "3"), 429, 3, true, false, "Rate limit reached"},
		{"503", llmtest.Status(503, llmtest.ErrorBody("server_error", "The server is overloaded")), 503, 0, true, false, "overloaded"},
		{"context overflow", llmtest.Status(400, llmtest.ErrorBody("invalid_request_error", "This model's maximum context length is 32768 tokens. However, your messages resulted in 40000 tokens.")),
			400, 0, false, true, "maximum context length"},
		{"llama.cpp overflow", llmtest.Status(400, llmtest.ErrorBody("exceed_context_size_error", "the request exceeds the available context size, try increasing it")),
			400, 0, false, true, "exceeds the available context size"},
		{"bare 400", llmtest.Status(400, ""), 400, 0, false, true, "400 (no body)"},
		{"401 echoes the key", llmtest.Status(401, llmtest.ErrorBody("invalid_request_error", "Incorrect API key provided: "+testKey)), 401, 0, false, false, "Incorrect API key provided: ***"},
		{"error chunk mid-stream", func() llmtest.Response {
			r := llmtest.OpenAIChat(llmtest.Turn{Text: "partial", Chunks: 3})
			r.Events = append(r.Events[:2], llmtest.Event{Data: `{"error":{"message":"upstream connect error","type":"server_error"}}`})
			return r
		}(), 0, 0, true, false, "upstream connect error"},
		{"cut off", func() llmtest.Response {
			r := llmtest.OpenAIChat(llmtest.Turn{Text: "partial answer here", Chunks: 5})
			r.CutAfter = 3
			return r
		}(), 0, 0, true, false, "terminated"},
		{"ends without finish_reason", func() llmtest.Response {
			r := llmtest.OpenAIChat(llmtest.Turn{Text: "partial answer here", Chunks: 5})
			r.Events = r.Events[:3]
			return r
		}(), 0, 0, true, false, "terminated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(tc.resp)
			req := &llm.Request{Model: chatModel(srv.URL), APIKey: testKey, Messages: []llm.Message{llm.UserText("hi")}}
			r := run(context.Background(), openai.NewCompletions(), req)
			var ae *llm.APIError
			if !errors.As(r.err, &ae) {
				t.Fatalf("error %T %v", r.err, r.err)
			}
			if ae.Status != tc.status || ae.RetryAfter != tc.retry {
				t.Errorf("status %d retry %v, want %d %v (%v)", ae.Status, ae.RetryAfter, tc.status, tc.retry, ae)
			}
			if !strings.Contains(r.msg.ErrorMessage, tc.contains) {
				t.Errorf("errorMessage %q lacks %q", r.msg.ErrorMessage, tc.contains)
			}
			if strings.Contains(r.msg.ErrorMessage, testKey) {
				t.Errorf("key leaked: %q", r.msg.ErrorMessage)
			}
			if got := llm.IsTransient(r.err, r.msg.ErrorMessage); got != tc.transient {
				t.Errorf("transient %v want %v", got, tc.transient)
			}
			if got := llm.IsContextOverflow(&r.msg, 32000); got != tc.overflow {
				t.Errorf("overflow %v want %v", got, tc.overflow)
			}
		})
	}
}

func TestCompletionsConnectionRefused(t *testing.T) {
	srv := llmtest.NewServer()
	url := srv.URL
	srv.Close()
	req := &llm.Request{Model: chatModel(url), Messages: []llm.Message{llm.UserText("hi")}}
	r := run(context.Background(), openai.NewCompletions(), req)
	if r.err == nil || !llm.IsTransient(r.err, r.msg.ErrorMessage) {
		t.Fatalf("err %v transient %v", r.err, llm.IsTransient(r.err, r.msg.ErrorMessage))
	}
	if !strings.Contains(r.msg.ErrorMessage, "connection") {
		t.Errorf("errorMessage %q", r.msg.ErrorMessage)
	}
}

func TestCompletionsAbort(t *testing.T) {
	srv := llmtest.Start(t)
	resp := llmtest.OpenAIChat(llmtest.Turn{Text: strings.Repeat("x ", 40), Chunks: 40})
	resp.Delay = 20 * time.Millisecond
	srv.Enqueue(resp)
	ctx, cancel := context.WithCancel(context.Background())
	req := &llm.Request{Model: chatModel(srv.URL), Messages: []llm.Message{llm.UserText("hi")}}
	n := 0
	b := llm.NewBuilder(req.Model, func(ev llm.AssistantEvent, _ llm.Usage) {
		if ev.Type == llm.EvTextDelta {
			if n++; n == 2 {
				cancel()
			}
		}
	})
	errc := make(chan error, 1)
	go func() { errc <- openai.NewCompletions().Stream(ctx, req, b) }()
	select {
	case err := <-errc:
		if msg := b.Finish(ctx, err); msg.StopReason != llm.StopAborted {
			t.Errorf("stop %q (%v)", msg.StopReason, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no stop after cancel")
	}
}

// BenchmarkCompletionsStream2000 parses a 2,000-delta answer from a local
// server through the SDK and the builder (no event output).
func BenchmarkCompletionsStream2000(b *testing.B) {
	llmtest.BenchmarkStream2000(b, openai.NewCompletions(), llmtest.OpenAIChat, chatModel)
}

// Chunks as compatible servers send them: reasoning under "reasoning",
// nulls everywhere, fields of unexpected types (read as empty, never an
// error), usage null before the last chunk.
func TestCompletionsTolerantChunks(t *testing.T) {
	srv := llmtest.Start(t)
	ev := func(s string) llmtest.Event { return llmtest.Event{Data: s} }
	srv.Enqueue(llmtest.Response{Events: []llmtest.Event{
		ev(`{"id":null,"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning":"Thinking it over."},"finish_reason":null}],"usage":null}`),
		ev(`{"id":"gen-1","choices":[{"index":0,"delta":{"content":"Hel","reasoning":{"unexpected":"object"}},"finish_reason":null}]}`),
		ev(`{"id":"gen-1","choices":[{"index":0,"delta":{"content":["not","a","string"]}}]}`),
		ev(`{"id":"gen-1","choices":[{"index":1,"delta":{"content":"other choice"}},{"index":0,"delta":{"content":"lo"}}]}`),
		ev(`{"id":"gen-1","choices":[{"index":"0","delta":{"tool_calls":[{"index":null,"id":"call_x","function":{"name":"bash","arguments":"{\"command\":"}}]}}]}`),
		ev(`{"id":"gen-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]},"finish_reason":"tool_calls"}]}`),
		ev(`{"id":"gen-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":null}}`),
		ev(`[DONE]`),
	}})
	req := &llm.Request{Model: chatModel(srv.URL), APIKey: testKey, Messages: []llm.Message{llm.UserText("hi")}, Tools: []llm.ToolSpec{bashTool()}}
	r := run(context.Background(), openai.NewCompletions(), req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	m := r.msg
	if len(m.Content.Blocks) != 3 || m.Content.Blocks[0].Thinking != "Thinking it over." || m.Content.Blocks[1].Text != "Hello" {
		t.Fatalf("blocks %+v", m.Content.Blocks)
	}
	if tc := m.Content.Blocks[2]; tc.ID != "call_x" || tc.Name != "bash" || tc.Arguments["command"] != "ls" {
		t.Fatalf("tool call %+v", tc)
	}
	if m.StopReason != llm.StopToolUse || m.ResponseID != "gen-1" || m.Usage.Input != 12 || m.Usage.Output != 7 {
		t.Fatalf("stop %q id %q usage %+v", m.StopReason, m.ResponseID, m.Usage)
	}
}
