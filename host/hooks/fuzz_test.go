package hooks

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// FuzzResults feeds arbitrary bytes as an extension's result to every
// composition rule: nothing may panic, and tool_call must fail closed on
// anything that is not a valid result.
func FuzzResults(f *testing.F) {
	for _, s := range []string{`{"block":true}`, `{"input":{"a":1}}`, `{"input":[1]}`, `[]`, `"x"`, `null`, `{"content":"s"}`,
		`{"content":[{"type":"text","text":"t"}],"isError":true}`, `{"action":"transform","text":"t"}`, `{"messages":[{"role":"user","content":"x"}]}`,
		`{"cancel":1}`, `{"systemPrompt":"p","message":{"customType":"c","content":"x"}}`, `{"result":{"output":"o"}}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sub := &fake{path: "fuzz", events: []string{ToolCall, ToolResult, Input, BeforeAgentStart, Context, SessionBeforeFork, UserBash},
			fn: func(context.Context, map[string]any) (any, error) { return string(data), nil }}
		b, _ := newBus(sub)
		ctx := context.Background()
		d := b.ToolCall(ctx, ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "ls"}})
		var probe struct {
			Block any             `json:"block"`
			Input json.RawMessage `json:"input"`
		}
		if truthy(data) && (len(trimSpace(data)) == 0 || trimSpace(data)[0] != '{' || json.Unmarshal(data, &probe) != nil) && !d.Block {
			t.Fatalf("malformed result %q did not block", data)
		}
		b.ToolResult(ctx, ToolResultEvent{ToolName: "read", Content: []llm.ContentBlock{llm.Text("x")}})
		b.Input(ctx, InputEvent{Text: "x", Source: "rpc"})
		b.BeforeAgentStart(ctx, BeforeAgentStartEvent{Prompt: "p", SystemPrompt: "s"}, nil)
		b.Context(ctx, []llm.Message{llm.UserText("x")})
		b.Before(ctx, SessionBeforeFork, SessionBeforeForkEvent{EntryID: "e"})
		b.UserBash(ctx, UserBashEvent{Command: "ls"})
	})
}
