package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/host/llm/openai"
)

func respModel(base string) llm.Model {
	return llm.Model{
		ID: "gpt-5", Name: "GPT-5", API: llm.APIOpenAIResponses, Provider: "openai", BaseURL: base + "/v1",
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 400000, MaxTokens: 128000,
		Cost: llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125},
	}
}

func TestResponsesStream(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.OpenAIResponses(llmtest.Turn{
		Thinking: "Need to list files.", Signature: "gAAAAencrypted", Text: "Running ls.", Chunks: 2,
		ToolCalls: []llmtest.Call{{ID: "call_1", Name: "bash", Args: `{"command":"ls"}`}},
		Usage:     llmtest.Usage{Input: 200, CacheRead: 800, Output: 60, Reasoning: 20},
	}))
	mdl := respModel(srv.URL)
	mdl.Compat = map[string]any{"supportsPromptCacheKey": true}
	req := &llm.Request{Model: mdl, SystemPrompt: "sys", APIKey: testKey, SessionID: "sess-1",
		Messages: []llm.Message{llm.UserText("list")}, Tools: []llm.ToolSpec{bashTool()}, ThinkingLevel: llm.ThinkingMinimal}
	r := run(context.Background(), openai.NewResponses(), req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	m := r.msg
	if m.StopReason != llm.StopToolUse || m.ResponseID != "resp_test" {
		t.Errorf("stop %q id %q", m.StopReason, m.ResponseID)
	}
	if len(m.Content.Blocks) != 3 {
		t.Fatalf("blocks %+v", m.Content.Blocks)
	}
	th := m.Content.Blocks[0]
	if th.Thinking != "Need to list files." || !strings.Contains(th.ThinkingSignature, `"encrypted_content":"gAAAAencrypted"`) {
		t.Errorf("thinking %+v", th)
	}
	if m.Content.Blocks[1].Text != "Running ls." {
		t.Errorf("text %+v", m.Content.Blocks[1])
	}
	tc := m.Content.Blocks[2]
	if tc.ID != "call_1|fc_test1" || tc.Arguments["command"] != "ls" {
		t.Errorf("tool call %+v", tc)
	}
	want := "thinking_start,thinking_delta,thinking_end,text_start,text_delta,text_end,toolcall_start,toolcall_delta,toolcall_end"
	if got := types(r.events); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	if u := m.Usage; u.Input != 200 || u.CacheRead != 800 || u.Output != 60 {
		t.Errorf("usage %+v", u)
	}
	body := decode(t, srv.Requests()[0].Body)
	if body["instructions"] != "sys" || body["store"] != false || body["prompt_cache_key"] != "sess-1" {
		t.Errorf("instructions %v store %v cache key %v", body["instructions"], body["store"], body["prompt_cache_key"])
	}
	reasoning := body["reasoning"].(map[string]any)
	if reasoning["effort"] != "minimal" || reasoning["summary"] != "auto" {
		t.Errorf("reasoning %v", reasoning)
	}
	if inc := body["include"].([]any); len(inc) != 1 || inc[0] != "reasoning.encrypted_content" {
		t.Errorf("include %v", inc)
	}

	// The next turn sends the reasoning item, the message and the call back.
	srv.Enqueue(llmtest.OpenAIResponses(llmtest.Turn{Text: "Done."}))
	req.Messages = append(req.Messages, m,
		llm.Message{Role: llm.RoleToolResult, ToolCallID: tc.ID, ToolName: "bash", Content: llm.TextContent("a.txt")})
	if r := run(context.Background(), openai.NewResponses(), req); r.err != nil || r.msg.Text() != "Done." {
		t.Fatalf("second turn: %v %q", r.err, r.msg.Text())
	}
	input := decode(t, srv.Requests()[1].Body)["input"].([]any)
	var kinds []string
	for _, it := range input {
		m := it.(map[string]any)
		k, _ := m["type"].(string)
		if k == "" {
			k = "message:" + m["role"].(string)
		}
		kinds = append(kinds, k)
	}
	if strings.Join(kinds, ",") != "message:user,reasoning,message:assistant,function_call,function_call_output" {
		t.Fatalf("input items %v", kinds)
	}
	rs := input[1].(map[string]any)
	if rs["encrypted_content"] != "gAAAAencrypted" || rs["id"] != "rs_test" {
		t.Errorf("reasoning item %v", rs)
	}
	fc := input[3].(map[string]any)
	if fc["call_id"] != "call_1" || fc["id"] != "fc_test1" || fc["arguments"] != `{"command":"ls"}` {
		t.Errorf("function_call %v", fc)
	}
	if out := input[4].(map[string]any); out["call_id"] != "call_1" || out["output"] != "a.txt" {
		t.Errorf("function_call_output %v", out)
	}
}

func TestResponsesErrors(t *testing.T) {
	cases := []struct {
		name      string
		resp      llmtest.Response
		status    int
		transient bool
		overflow  bool
		contains  string
	}{
		{"response.failed overflow", llmtest.OpenAIResponsesFailed("context_length_exceeded", "Your input exceeds the context window of this model."), 0, false, true, "context_length_exceeded"},
		{"response.failed server error", llmtest.OpenAIResponsesFailed("server_error", "An error occurred while processing your request."), 500, true, false, "server_error"},
		{"error event", llmtest.Response{Events: []llmtest.Event{{Name: "error", Data: `{"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached for gpt-5","param":null,"sequence_number":1}`}}},
			429, true, false, "Rate limit reached"},
		{"429", llmtest.Status(429, llmtest.ErrorBody("rate_limit_exceeded", "slow down"), "Retry-After-Ms", "1500"), 429, true, false, "slow down"},
		{"cut off", func() llmtest.Response {
			r := llmtest.OpenAIResponses(llmtest.Turn{Text: "abc def ghi", Chunks: 3})
			r.CutAfter = 4
			return r
		}(), 0, true, false, "terminated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(tc.resp)
			req := &llm.Request{Model: respModel(srv.URL), APIKey: testKey, Messages: []llm.Message{llm.UserText("hi")}}
			r := run(context.Background(), openai.NewResponses(), req)
			var ae *llm.APIError
			if !errors.As(r.err, &ae) {
				t.Fatalf("error %T %v", r.err, r.err)
			}
			if ae.Status != tc.status {
				t.Errorf("status %d want %d", ae.Status, tc.status)
			}
			if tc.name == "429" && ae.RetryAfter != 1.5 {
				t.Errorf("retry-after-ms not honoured: %v", ae.RetryAfter)
			}
			if !strings.Contains(r.msg.ErrorMessage, tc.contains) {
				t.Errorf("errorMessage %q lacks %q", r.msg.ErrorMessage, tc.contains)
			}
			if got := llm.IsTransient(r.err, r.msg.ErrorMessage); got != tc.transient {
				t.Errorf("transient %v want %v", got, tc.transient)
			}
			if got := llm.IsContextOverflow(&r.msg, 400000); got != tc.overflow {
				t.Errorf("overflow %v want %v", got, tc.overflow)
			}
		})
	}
}
