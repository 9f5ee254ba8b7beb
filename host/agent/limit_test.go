package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
)

// A provider that streams without end (and ignores nothing but its
// context): the message is cut at llm.MaxStreamedMessage, the stream is
// cancelled, and the message ends as an error that says why, keeping what
// came before the limit. Also for thinking and tool-call arguments.
func TestEndlessStreamIsCutAtTheMessageLimit(t *testing.T) {
	for _, kind := range []string{"text", "thinking", "toolCall"} {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(nil)
			h.cfg.Provider = llm.ProviderFunc(func(ctx context.Context, req *llm.Request, b *llm.Builder) error {
				var idx int
				switch kind {
				case "text":
					idx = b.StartText()
				case "thinking":
					idx = b.StartThinking()
				default:
					idx = b.StartToolCall("call_1", "bash")
					b.Delta(idx, `{"command":"`)
				}
				chunk := strings.Repeat("z", 64<<10)
				for ctx.Err() == nil {
					b.Delta(idx, chunk)
				}
				return ctx.Err()
			})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			msgs := h.run(ctx, "go")
			if ctx.Err() != nil {
				t.Fatal("the endless stream was not cancelled")
			}
			last := msgs[len(msgs)-1]
			if last.Role != llm.RoleAssistant || last.StopReason != llm.StopError || !strings.Contains(last.ErrorMessage, "exceeded 32 MiB") {
				t.Fatalf("stop %q, error %q", last.StopReason, last.ErrorMessage)
			}
			size := 0
			for _, b := range last.Content.Blocks {
				size += len(b.Text) + len(b.Thinking)
			}
			if size > llm.MaxStreamedMessage {
				t.Fatalf("the message kept %d bytes", size)
			}
		})
	}
}

// MaxTurnRequests: the run stops before the model's third request, with
// the tool results of the second kept and agent_end saying why; a run
// that ends on its own within the limit does not say so.
func TestMaxTurnRequests(t *testing.T) {
	tool := &fakeTool{name: "work"}
	h := newHarness([]faux.Step{{ToolCalls: calls("work#a")}, {ToolCalls: calls("work#b")}, {Text: "never"}}, tool)
	h.cfg.MaxTurnRequests = 2
	msgs := h.run(context.Background(), "go")
	if n := len(h.requests); n != 2 {
		t.Fatalf("%d model requests", n)
	}
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleToolResult || last.ToolCallID != "b" {
		t.Fatalf("last message %+v", last)
	}
	var end events.AgentEnd
	for _, ev := range h.events {
		if e, ok := ev.(events.AgentEnd); ok {
			end = e
		}
	}
	if !end.TurnLimitReached || !strings.Contains(string(end.AppendJSON(nil)), `"turnLimitReached":true`) {
		t.Fatalf("agent_end %s", end.AppendJSON(nil))
	}

	h = newHarness([]faux.Step{{ToolCalls: calls("work#a")}, {Text: "done"}}, tool)
	h.cfg.MaxTurnRequests = 2
	h.run(context.Background(), "go")
	for _, ev := range h.events {
		if e, ok := ev.(events.AgentEnd); ok && e.TurnLimitReached {
			t.Fatal("a run within the limit reported it")
		}
	}
}
