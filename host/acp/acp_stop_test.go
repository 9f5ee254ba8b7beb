package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestACPStreamedToolCall: the tool call is announced when the model
// starts it (before any argument), and its rawInput and title fill in as
// the arguments stream.
func TestACPStreamedToolCall(t *testing.T) {
	cmd := "echo streamed-arguments-" + strings.Repeat("x", 40)
	s := start(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "id": "call-s", "arguments": map[string]any{"command": cmd}}}, "argChunks": 8},
		{"text": "done"},
		{"toolCalls": []map[string]any{{"name": "write", "id": "call-w", "arguments": map[string]any{"path": "big.txt", "content": strings.Repeat("0123456789abcdef", 1<<14)}}}, "argChunks": 2000},
		{"text": "written"},
	}})
	s.init(t)
	if r := s.prompt(t, "run"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	var seen []string // what each update of call-s said, in order
	var partial, final bool
	for _, n := range s.ed.snapshot() {
		if tc := n.Update.ToolCall; tc != nil && tc.ToolCallId == "call-s" {
			b, _ := json.Marshal(tc.RawInput)
			seen = append(seen, "start:"+string(b))
			if tc.Kind != sdk.ToolKindExecute {
				t.Fatalf("kind %q", tc.Kind)
			}
		}
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "call-s" {
			in, _ := tu.RawInput.(map[string]any)
			c, _ := in["command"].(string)
			switch {
			case tu.RawInput == nil:
				seen = append(seen, "update")
			case c == cmd:
				final = final || (tu.Title != nil && strings.Contains(*tu.Title, "streamed-arguments"))
				seen = append(seen, "input:full")
			case c != "" && strings.HasPrefix(cmd, c):
				partial = true
				seen = append(seen, "input:partial")
			default:
				seen = append(seen, "input:"+c)
			}
		}
	}
	if len(seen) == 0 || seen[0] != "start:{}" || !partial || !final {
		t.Fatalf("updates of the call: %v (partial %v, final %v)", seen, partial, final)
	}

	// A 256 KiB argument in 2,000 deltas: a bounded number of updates.
	if r := s.prompt(t, "write"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	inputs := 0
	for _, n := range s.ed.snapshot() {
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "call-w" && tu.RawInput != nil {
			inputs++
		}
	}
	if inputs < 2 || inputs > 80 {
		t.Fatalf("%d rawInput updates for 2,000 deltas", inputs)
	}
}

// TestACPStopReasons: max_tokens (the model stopped for length), refusal
// (the provider refused), max_turn_requests (the settings' limit on model
// requests per prompt) and end_turn.
func TestACPStopReasons(t *testing.T) {
	bash := map[string]any{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo loop"}}}}
	s := start(t, e2e.Options{
		AgentFiles: map[string]string{"settings.json": `{"maxTurnRequests": 2}`},
		Script: []map[string]any{
			{"text": "cut off", "stopReason": "length"},
			{"refusal": "I will not do that"},
			bash, bash,
			{"text": "fine"},
			{"toolCalls": []map[string]any{{"name": "bash", "id": "dropped", "arguments": map[string]any{"command": "touch never"}}}, "error": "bad request", "status": 400},
		}})
	s.init(t)
	for _, c := range []struct {
		prompt string
		want   sdk.StopReason
	}{
		{"long", sdk.StopReasonMaxTokens},
		{"bad", sdk.StopReasonRefusal},
		{"loop", sdk.StopReasonMaxTurnRequests},
		{"ok", sdk.StopReasonEndTurn},
	} {
		if r := s.prompt(t, c.prompt); r != c.want {
			t.Errorf("%s: stop reason %q, want %q", c.prompt, r, c.want)
		}
	}
	if got := agentText(s.ed.snapshot()); !strings.HasSuffix(got, "fine") {
		t.Fatalf("agent text %q", got)
	}
	// A reply that fails after announcing a tool call: the prompt is an
	// error, and the call is failed rather than left pending.
	if _, err := s.conn.Prompt(e2e.Ctx(t, 30e9), sdk.PromptRequest{SessionId: s.id, Prompt: []sdk.ContentBlock{sdk.TextBlock("fail")}}); err == nil || !strings.Contains(err.Error(), "bad request") {
		t.Fatalf("prompt error %v", err)
	}
	var failed bool
	for _, n := range s.ed.snapshot() {
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "dropped" && tu.Status != nil {
			failed = *tu.Status == sdk.ToolCallStatusFailed
		}
	}
	if !failed {
		t.Fatal("the announced call of the failed reply was not failed")
	}
}
