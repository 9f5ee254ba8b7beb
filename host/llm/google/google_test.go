package google_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/google"
	"github.com/atomic-go/atomic/host/llm/llmtest"
)

const testKey = "AIzaTEST-planted-key-123456"

func model(base string) llm.Model {
	return llm.Model{
		ID: "gemini-2.5-flash", Name: "Flash", API: llm.APIGoogleGenerativeAI, Provider: "google", BaseURL: base + "/v1beta",
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65536,
		Cost: llm.ModelCost{Input: 0.3, Output: 2.5, CacheRead: 0.075},
	}
}

func run(ctx context.Context, req *llm.Request) (llm.Message, []llm.AssistantEvent, error) {
	var evs []llm.AssistantEvent
	b := llm.NewBuilder(req.Model, func(ev llm.AssistantEvent, _ llm.Usage) { evs = append(evs, ev) })
	err := google.New().Stream(ctx, req, b)
	return b.Finish(ctx, err), evs, err
}

func TestStream(t *testing.T) {
	srv := llmtest.Start(t)
	sig := base64.StdEncoding.EncodeToString([]byte("thought-signature-bytes"))
	srv.Enqueue(llmtest.Gemini(llmtest.Turn{
		Thinking: "**Listing** files", Text: "Let me check.", Chunks: 2, Signature: sig,
		ToolCalls: []llmtest.Call{{Name: "bash", Args: `{"command":"ls"}`}},
		Usage:     llmtest.Usage{Input: 90, CacheRead: 10, Output: 30, Reasoning: 12},
	}))
	req := &llm.Request{Model: model(srv.URL), SystemPrompt: "sys", APIKey: testKey, ThinkingLevel: llm.ThinkingHigh,
		Messages: []llm.Message{llm.UserText("list")}, Tools: []llm.ToolSpec{{Name: "bash", Description: "run",
			Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}}}
	msg, evs, err := run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content.Blocks) != 3 {
		t.Fatalf("blocks %+v", msg.Content.Blocks)
	}
	if msg.Content.Blocks[0].Thinking != "**Listing** files" || msg.Content.Blocks[1].Text != "Let me check." {
		t.Errorf("blocks %+v", msg.Content.Blocks)
	}
	tc := msg.Content.Blocks[2]
	if tc.Name != "bash" || tc.Arguments["command"] != "ls" || tc.ThoughtSignature != sig {
		t.Errorf("tool call %+v", tc)
	}
	if msg.StopReason != llm.StopToolUse {
		t.Errorf("stop %q", msg.StopReason)
	}
	if u := msg.Usage; u.Input != 90 || u.CacheRead != 10 || u.Output != 30 {
		t.Errorf("usage %+v", u)
	}
	if len(evs) == 0 || evs[0].Type != llm.EvThinkingStart {
		t.Errorf("events %+v", evs)
	}
	got := srv.Requests()[0]
	if !strings.HasSuffix(got.Path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent") || !strings.Contains(got.Query, "alt=sse") {
		t.Errorf("path %s?%s", got.Path, got.Query)
	}
	if got.Header.Get("X-Goog-Api-Key") != testKey {
		t.Errorf("key header missing")
	}
	var body map[string]any
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	gc := body["generationConfig"].(map[string]any)
	tcfg := gc["thinkingConfig"].(map[string]any)
	if tcfg["includeThoughts"] != true || tcfg["thinkingBudget"].(float64) != 32768 {
		t.Errorf("thinkingConfig %v", tcfg)
	}
	if si := body["systemInstruction"].(map[string]any); si["parts"].([]any)[0].(map[string]any)["text"] != "sys" {
		t.Errorf("systemInstruction %v", si)
	}

	// Next turn: the call goes back with its signature, the result as a
	// functionResponse.
	srv.Enqueue(llmtest.Gemini(llmtest.Turn{Text: "Done"}))
	req.Messages = append(req.Messages, msg, llm.Message{Role: llm.RoleToolResult, ToolCallID: tc.ID, ToolName: "bash", Content: llm.TextContent("a.txt")})
	if m2, _, err := run(context.Background(), req); err != nil || m2.Text() != "Done" {
		t.Fatalf("second turn %v %q", err, m2.Text())
	}
	var body2 struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &body2); err != nil {
		t.Fatal(err)
	}
	if len(body2.Contents) != 3 || body2.Contents[1].Role != "model" || body2.Contents[2].Role != "user" {
		t.Fatalf("contents %+v", body2.Contents)
	}
	parts := body2.Contents[1].Parts
	last := parts[len(parts)-1]
	if last["functionCall"].(map[string]any)["name"] != "bash" || last["thoughtSignature"] != sig {
		t.Errorf("function call part %v", last)
	}
	if _, hasID := last["functionCall"].(map[string]any)["id"]; hasID {
		t.Errorf("a made-up call id was sent back: %v", last)
	}
	fr := body2.Contents[2].Parts[0]["functionResponse"].(map[string]any)
	if fr["name"] != "bash" || fr["response"].(map[string]any)["output"] != "a.txt" {
		t.Errorf("functionResponse %v", fr)
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
	}{
		{"429", llmtest.GeminiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", "Retry-After", "4"), 429, 4, true, false},
		{"503", llmtest.GeminiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."), 503, 0, true, false},
		{"overflow", llmtest.GeminiError(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."), 400, 0, false, true},
		{"cut off", func() llmtest.Response {
			r := llmtest.Gemini(llmtest.Turn{Text: "one two three four", Chunks: 4})
			r.CutAfter = 2
			return r
		}(), 0, 0, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(tc.resp)
			msg, _, err := run(context.Background(), &llm.Request{Model: model(srv.URL), APIKey: testKey, Messages: []llm.Message{llm.UserText("hi")}})
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v", err, err)
			}
			if ae.Status != tc.status || ae.RetryAfter != tc.retry {
				t.Errorf("status %d retry %v want %d %v (%v)", ae.Status, ae.RetryAfter, tc.status, tc.retry, ae)
			}
			if got := llm.IsTransient(err, msg.ErrorMessage); got != tc.transient {
				t.Errorf("transient %v want %v (%q)", got, tc.transient, msg.ErrorMessage)
			}
			if got := llm.IsContextOverflow(&msg, 1048576); got != tc.overflow {
				t.Errorf("overflow %v want %v (%q)", got, tc.overflow, msg.ErrorMessage)
			}
			if strings.Contains(msg.ErrorMessage, testKey) {
				t.Errorf("key leaked")
			}
		})
	}
}

func TestKeylessDropsKeyHeader(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "env-key-should-not-be-sent")
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Gemini(llmtest.Turn{Text: "hi"}))
	mdl := model(srv.URL)
	mdl.Reasoning = false
	if _, _, err := run(context.Background(), &llm.Request{Model: mdl, Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("X-Goog-Api-Key"); h != "" {
		t.Errorf("a key was sent to a keyless provider: %q", h)
	}
}
