package agent

import (
	"context"
	"encoding/json"
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
	rec   *nestedRecorder // the model's call's record of the calls below it
}

// withToolScope marks ctx as the context of the tool call id; rec is the
// record a call of the model keeps (nested calls share their root's).
func withToolScope(ctx context.Context, id string, rec *nestedRecorder) context.Context {
	depth := 1
	if s, ok := ctx.Value(toolScopeKey{}).(*toolScope); ok {
		depth, rec = s.depth+1, s.rec
	}
	return context.WithValue(ctx, toolScopeKey{}, &toolScope{id: id, depth: depth, rec: rec})
}

// The record of nested calls kept on the calling tool's result message,
// as pi 1.6's nestedCalls: name, arguments, status, duration, error,
// never results; bounded (arguments over 8 KiB a call or 32 KiB in all
// are left out, at most 256 calls), complete false when anything was.
const (
	maxNestedCalls       = 256
	maxNestedArgsPerCall = 8 << 10
	maxNestedArgsTotal   = 32 << 10
	maxNestedErrorChars  = 500
)

type nestedRecorder struct {
	mu       sync.Mutex
	calls    []*nestedRecord
	complete bool
	argBytes int
}

type nestedRecord struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	ArgumentsBytes int             `json:"argumentsBytes,omitempty"`
	Status         string          `json:"status"`
	DurationMs     *int64          `json:"durationMs,omitempty"`
	Error          string          `json:"error,omitempty"`
}

func newNestedRecorder() *nestedRecorder { return &nestedRecorder{complete: true} }

// start records a call as it starts (nil when it is dropped).
func (r *nestedRecorder) start(id, name string, args map[string]any) *nestedRecord {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) >= maxNestedCalls {
		r.complete = false
		return nil
	}
	rec := &nestedRecord{ID: id, Name: name, Status: "unfinished"}
	b, _ := json.Marshal(args)
	if len(b) > maxNestedArgsPerCall || r.argBytes+len(b) > maxNestedArgsTotal {
		rec.ArgumentsBytes = len(b)
		r.complete = false
	} else {
		rec.Arguments = b
		r.argBytes += len(b)
	}
	r.calls = append(r.calls, rec)
	return rec
}

// finish records how a call ended.
func (r *nestedRecorder) finish(rec *nestedRecord, o Outcome) {
	if r == nil || rec == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Status, rec.DurationMs = "ok", o.DurationMs
	if o.IsError {
		rec.Status = "error"
		if t := []rune(llm.Content{Blocks: o.Result.Content}.JoinText("\n")); len(t) > maxNestedErrorChars {
			rec.Error = string(t[:maxNestedErrorChars])
		} else {
			rec.Error = string(t)
		}
	}
}

// snapshot is the record as nestedCalls, or nil when no call was made.
func (r *nestedRecorder) snapshot() json.RawMessage {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 && r.complete {
		return nil
	}
	complete := r.complete
	for _, c := range r.calls {
		complete = complete && c.Status != "unfinished"
	}
	b, err := json.Marshal(struct {
		Calls    []*nestedRecord `json:"calls"`
		Complete bool            `json:"complete"`
	}{r.calls, complete})
	if err != nil {
		return nil
	}
	return b
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
	record := s.rec.start(id, name, args)
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
	out := Outcome{ID: id, Result: tr.result, IsError: tr.isError, DurationMs: tr.duration}
	s.rec.finish(record, out)
	return out
}

// emitEnd reports the call's end.
func (tr *toolRun) emitEnd(cfg *Config) {
	cfg.emit(events.ToolExecutionEnd{ToolCallID: tr.call.ID, ToolName: tr.call.Name, Result: tr.result, IsError: tr.isError,
		DurationMs: tr.duration, ParentToolCallID: tr.parent})
}
