package nodeext

import (
	"context"
	"testing"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

// BenchmarkToolCallHandler: one tool_call through the bus into an async
// handler of an extension in the shared Node process (a gRPC round trip
// to Node and back). Compare with jsext's BenchmarkToolCallHandler.
func BenchmarkToolCallHandler(b *testing.B) {
	h := &fakeHost{}
	rt := newRuntime(b, h)
	ext := loadExt(b, rt, h, "testdata/both.ts", extensions.Options{})
	bus := hooks.New()
	bus.Add(ext)
	ev := hooks.ToolCallEvent{ToolCallID: "call_1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	for range 200 {
		bus.ToolCall(context.Background(), ev)
	}
	b.ResetTimer()
	for range b.N {
		if d := bus.ToolCall(context.Background(), ev); d.Block {
			b.Fatal(d.Reason)
		}
	}
}
