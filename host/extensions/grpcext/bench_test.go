package grpcext

import (
	"context"
	"testing"

	"github.com/atomic-go/atomic/host/hooks"
)

// BenchmarkPluginHandle is one HandleEvent round trip to a real plugin
// process, without the bus.
func BenchmarkPluginHandle(b *testing.B) {
	p := loadB(b, "--block-bash", "never-matches")
	ev := hooks.NewEvent(hooks.ToolCall, hooks.ToolCallEvent{ToolCallID: "c", ToolName: "bash", Input: map[string]any{"command": "ls"}})
	ctx := context.Background()
	for b.Loop() {
		if _, err := p.Handle(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBusToolCallPlugin is the same through the hook bus (deadline,
// result decoding).
func BenchmarkBusToolCallPlugin(b *testing.B) {
	p := loadB(b, "--block-bash", "never-matches")
	bus := hooks.New()
	bus.Add(p)
	ev := hooks.ToolCallEvent{ToolCallID: "c", ToolName: "bash", Input: map[string]any{"command": "ls"}}
	ctx := context.Background()
	for b.Loop() {
		if d := bus.ToolCall(ctx, ev); d.Block {
			b.Fatal(d.Reason)
		}
	}
}

func loadB(b *testing.B, args ...string) *Plugin {
	return load(b, &fakeHost{}, args...)
}
