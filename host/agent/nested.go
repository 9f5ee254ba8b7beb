package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// Tools calling tools (pi's ctx.executeTool): a call made while a tool
// runs goes through the same steps as the model's calls (the tool looked
// up among the active ones, its arguments checked, the tool_call hook,
// the tool, the tool_result hook) and emits the tool_execution events
// with the calling tool's id as ParentToolCallID; its own id is
// "<parent id>/<n>". It adds nothing to the transcript.

// MaxToolDepth bounds how deep tools may call tools.
const MaxToolDepth = 8

type toolScopeKey struct{}

// toolScope is the tool call a tool runs for.
type toolScope struct {
	id    string
	depth int // 1 for a call of the model
	calls atomic.Int64
}

// withToolScope marks ctx as the context of the tool call id.
func withToolScope(ctx context.Context, id string) context.Context {
	depth := 1
	if s, ok := ctx.Value(toolScopeKey{}).(*toolScope); ok {
		depth = s.depth + 1
	}
	return context.WithValue(ctx, toolScopeKey{}, &toolScope{id: id, depth: depth})
}

// Outcome is a nested call's: its id, result, and how long the tool ran
// (nil when it did not).
type Outcome struct {
	ID         string
	Result     llm.ToolResult
	IsError    bool
	DurationMs *int64
}

// CallTool runs one call of the tool name for the tool running in ctx.
// Failures (no tool running, too deep, an unknown or inactive tool,
// invalid arguments, a blocked call, the tool's error) are results with
// IsError, never a Go error.
func CallTool(ctx context.Context, cfg *Config, name string, args map[string]any) Outcome {
	s, ok := ctx.Value(toolScopeKey{}).(*toolScope)
	if !ok {
		return Outcome{Result: llm.TextResult("executeTool: only a running tool can call other tools"), IsError: true}
	}
	if s.depth >= MaxToolDepth {
		return Outcome{Result: llm.TextResult(fmt.Sprintf("executeTool: tools calling tools nested deeper than %d levels", MaxToolDepth)), IsError: true}
	}
	if args == nil {
		args = map[string]any{}
	}
	id := fmt.Sprintf("%s/%d", s.id, s.calls.Add(1))
	tr := &toolRun{call: llm.ContentBlock{Type: llm.BlockToolCall, ID: id, Name: name, Arguments: args}, args: args, parent: s.id}
	cfg.emit(events.ToolExecutionStart{ToolCallID: id, ToolName: name, Args: args, ParentToolCallID: s.id})
	tr.prepare(ctx, cfg)
	var mu sync.Mutex
	if !tr.done {
		tr.execute(ctx, cfg, &mu)
	}
	if cfg.AfterToolCall != nil {
		afterToolCall(ctx, cfg, tr)
	}
	mu.Lock()
	tr.ended = true
	tr.emitEnd(cfg)
	mu.Unlock()
	return Outcome{ID: id, Result: tr.result, IsError: tr.isError, DurationMs: tr.duration}
}

// emitEnd reports the call's end.
func (tr *toolRun) emitEnd(cfg *Config) {
	cfg.emit(events.ToolExecutionEnd{ToolCallID: tr.call.ID, ToolName: tr.call.Name, Result: tr.result, IsError: tr.isError,
		DurationMs: tr.duration, ParentToolCallID: tr.parent})
}
