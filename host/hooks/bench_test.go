package hooks

import (
	"context"
	"encoding/json"
	"testing"
)

// nop is an in-process subscriber that returns a fixed result (what an
// embedded script runtime costs the bus, without the script).
type nop struct{ res json.RawMessage }

func (n nop) Path() string     { return "nop" }
func (n nop) Events() []string { return []string{ToolCall, MessageUpdate} }
func (n nop) Handle(_ context.Context, ev *Event) (json.RawMessage, error) {
	if _, err := ev.JSON(); err != nil {
		return nil, err
	}
	return n.res, nil
}

// BenchmarkBusToolCall measures the bus's own cost of one tool_call
// dispatch to one in-process subscriber: encoding the event, the deadline,
// the goroutine that enforces it, and decoding the result.
func BenchmarkBusToolCall(b *testing.B) {
	bus := New()
	bus.Add(nop{res: json.RawMessage(`{"block":false}`)})
	ev := ToolCallEvent{ToolCallID: "call_1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if d := bus.ToolCall(ctx, ev); d.Block {
			b.Fatal("blocked")
		}
	}
}

// BenchmarkBusNotifyUnsubscribed is the cost of an event nobody listens
// to (every message_update without subscribers).
func BenchmarkBusNotifyUnsubscribed(b *testing.B) {
	bus := New()
	bus.Add(nop{})
	b.ReportAllocs()
	for b.Loop() {
		if bus.Has(TurnStart) {
			b.Fatal("subscribed")
		}
		bus.Notify(TurnStart, nil)
	}
}
