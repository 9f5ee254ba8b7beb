package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/agent"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
	"github.com/atomic-go/atomic/host/tools"
)

// fakeTool is a tool whose behaviour the test controls.
type fakeTool struct {
	name  string
	run   func(ctx context.Context, call tools.Call) (llm.ToolResult, error)
	calls atomic.Int32
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "test tool " + f.name }
func (f *fakeTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"additionalProperties":false}`)
}
func (f *fakeTool) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	f.calls.Add(1)
	if f.run == nil {
		return llm.TextResult(f.name + " ran"), nil
	}
	return f.run(ctx, call)
}

// waitTool finishes when release is closed (or ctx ends).
func waitTool(name string, release <-chan struct{}) *fakeTool {
	return &fakeTool{name: name, run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		select {
		case <-release:
			return llm.TextResult(name + " done"), nil
		case <-ctx.Done():
			return llm.ToolResult{}, errors.New("Operation aborted")
		}
	}}
}

// harness runs agent.Run with a scripted faux provider and records what
// happens.
type harness struct {
	mu       sync.Mutex
	events   []events.Event
	requests []*llm.Request
	cfg      *agent.Config
}

func newHarness(steps []faux.Step, ts ...tools.Tool) *harness {
	h := &harness{}
	reg := tools.NewRegistry()
	for _, t := range ts {
		reg.Add(t, true)
	}
	p := faux.NewWithSteps(steps...)
	h.cfg = &agent.Config{
		Model: faux.Models()[0], Tools: reg, Cwd: ".",
		Provider: llm.ProviderFunc(func(ctx context.Context, req *llm.Request, b *llm.Builder) error {
			h.mu.Lock()
			h.requests = append(h.requests, req)
			h.mu.Unlock()
			return p.Stream(ctx, req, b)
		}),
		Emit: func(ev events.Event) {
			h.mu.Lock()
			h.events = append(h.events, ev)
			h.mu.Unlock()
		},
	}
	return h
}

func (h *harness) run(ctx context.Context, prompt string) []llm.Message {
	return agent.Run(ctx, h.cfg, nil, []llm.Message{llm.UserText(prompt)})
}

func (h *harness) types() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.events {
		out = append(out, ev.EventType())
	}
	return out
}

// toolEvents lists "type:toolCallId" for tool events and tool result
// message ends.
func (h *harness) toolEvents() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.events {
		switch e := ev.(type) {
		case events.ToolExecutionStart:
			out = append(out, "start:"+e.ToolCallID)
		case events.ToolExecutionEnd:
			out = append(out, "end:"+e.ToolCallID)
		case events.MessageEnd:
			if e.Message.Role == llm.RoleToolResult {
				out = append(out, "result:"+e.Message.ToolCallID)
			}
		}
	}
	return out
}

func (h *harness) ends() map[string]events.ToolExecutionEnd {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]events.ToolExecutionEnd{}
	for _, ev := range h.events {
		if e, ok := ev.(events.ToolExecutionEnd); ok {
			out[e.ToolCallID] = e
		}
	}
	return out
}

func roles(msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

func calls(specs ...string) []faux.ToolCall {
	var out []faux.ToolCall
	for _, s := range specs {
		name, id, _ := strings.Cut(s, "#")
		out = append(out, faux.ToolCall{ID: id, Name: name, Arguments: map[string]any{}})
	}
	return out
}

func TestTextRunEvents(t *testing.T) {
	h := newHarness([]faux.Step{{Text: "hello", Chunks: 2}})
	created := h.run(context.Background(), "hi")
	want := []string{"agent_start", "turn_start", "message_start", "message_end", "message_start",
		"message_update", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"}
	if got := h.types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v\nwant   %v", got, want)
	}
	if !reflect.DeepEqual(roles(created), []string{"user", "assistant"}) || created[1].Text() != "hello" {
		t.Fatalf("created %+v", created)
	}
	end := h.events[len(h.events)-1].(events.AgentEnd)
	if !reflect.DeepEqual(end.Messages, created) {
		t.Fatalf("agent_end messages differ from the returned ones")
	}
}

func TestParallelToolsEndInCompletionOrderResultsInSourceOrder(t *testing.T) {
	release := make(chan struct{})
	slow := waitTool("slow", release)
	fast := &fakeTool{name: "fast", run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		return llm.TextResult("fast done"), nil
	}}
	h := newHarness([]faux.Step{{ToolCalls: calls("slow#s", "fast#f")}, {Text: "both done"}}, slow, fast)
	// The slow tool can only finish once the fast one's end event is out:
	// tools run concurrently, and the end events follow completion.
	emit := h.cfg.Emit
	h.cfg.Emit = func(ev events.Event) {
		emit(ev)
		if e, ok := ev.(events.ToolExecutionEnd); ok && e.ToolCallID == "f" {
			close(release)
		}
	}
	created := h.run(context.Background(), "go")
	want := []string{"start:s", "start:f", "end:f", "end:s", "result:s", "result:f"}
	if got := h.toolEvents(); !reflect.DeepEqual(got, want) {
		t.Fatalf("tool events %v\nwant        %v", got, want)
	}
	if !reflect.DeepEqual(roles(created), []string{"user", "assistant", "toolResult", "toolResult", "assistant"}) {
		t.Fatalf("created roles %v", roles(created))
	}
	if created[2].ToolCallID != "s" || created[3].ToolCallID != "f" || created[2].Text() != "slow done" {
		t.Fatalf("results out of source order: %+v", created[2:4])
	}
	var turnEnd events.TurnEnd
	for _, ev := range h.events {
		if te, ok := ev.(events.TurnEnd); ok {
			turnEnd = te
			break
		}
	}
	if len(turnEnd.ToolResults) != 2 || turnEnd.ToolResults[0].ToolCallID != "s" {
		t.Fatalf("turn_end toolResults = %+v", turnEnd.ToolResults)
	}
	// The second request carried both results.
	if got := roles(h.requests[1].Messages); !reflect.DeepEqual(got, []string{"user", "assistant", "toolResult", "toolResult"}) {
		t.Fatalf("second request roles %v", got)
	}
}

func TestLengthStopSkipsToolCalls(t *testing.T) {
	tool := &fakeTool{name: "work"}
	h := newHarness([]faux.Step{{Text: "partial", ToolCalls: calls("work#w1", "work#w2"), StopReason: "length"}, {Text: "retry"}}, tool)
	created := h.run(context.Background(), "go")
	if tool.calls.Load() != 0 {
		t.Fatalf("a tool ran after a length stop")
	}
	if created[1].StopReason != llm.StopLength {
		t.Fatalf("stopReason = %s", created[1].StopReason)
	}
	for _, id := range []string{"w1", "w2"} {
		e := h.ends()[id]
		if !e.IsError || !strings.Contains(e.Result.ResultText(), "length") {
			t.Fatalf("%s end = %+v", id, e)
		}
	}
	if got := h.toolEvents(); !reflect.DeepEqual(got, []string{"start:w1", "end:w1", "start:w2", "end:w2", "result:w1", "result:w2"}) &&
		!reflect.DeepEqual(got, []string{"start:w1", "start:w2", "end:w1", "end:w2", "result:w1", "result:w2"}) {
		t.Fatalf("tool events %v", got)
	}
	if last := created[len(created)-1]; last.Text() != "retry" {
		t.Fatalf("the loop did not go on: %+v", last)
	}
}

func TestUnknownInactiveAndInvalidTools(t *testing.T) {
	active := &fakeTool{name: "active"}
	inactive := &fakeTool{name: "inactive"}
	h := newHarness([]faux.Step{{ToolCalls: []faux.ToolCall{
		{ID: "u", Name: "missing"},
		{ID: "i", Name: "inactive"},
		{ID: "v", Name: "active", Arguments: map[string]any{"n": "not a number"}},
		{ID: "x", Name: "active", Arguments: map[string]any{"extra": 1}},
		{ID: "ok", Name: "active", Arguments: map[string]any{"n": 1}},
	}}, {Text: "fine"}}, active)
	h.cfg.Tools.Add(inactive, false)
	h.run(context.Background(), "go")
	ends := h.ends()
	checks := map[string]string{"u": "Tool missing not found", "i": "Tool inactive not found", "v": "Validation failed", "x": "Validation failed"}
	for id, text := range checks {
		if e := ends[id]; !e.IsError || !strings.Contains(e.Result.ResultText(), text) {
			t.Errorf("%s: %+v", id, e)
		}
	}
	if e := ends["ok"]; e.IsError || active.calls.Load() != 1 || inactive.calls.Load() != 0 {
		t.Fatalf("valid call: %+v, active ran %d, inactive ran %d", e, active.calls.Load(), inactive.calls.Load())
	}
}

// Arguments as pi 1.6 treats them: coerced before the tool and the hooks
// see them (the events keep what the model sent), refused with pi's
// message echoing them in the model's order, and text that is not JSON
// refused before validation.
func TestToolArgumentsAsPi(t *testing.T) {
	var got sync.Map
	tool := &fakeTool{name: "active", run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		got.Store(call.ID, call.Args["n"])
		return llm.TextResult("ran"), nil
	}}
	h := newHarness([]faux.Step{{ToolCalls: []faux.ToolCall{
		{ID: "coerced", Name: "active", RawArguments: `{"n":"2"}`},
		{ID: "refused", Name: "active", RawArguments: `{"z":1,"n":"x"}`},
		{ID: "torn", Name: "active", RawArguments: `{"n": 1,`},
		{ID: "repaired", Name: "active", RawArguments: "{\"n\":\"a\\qb\"}"},
	}}, {Text: "fine"}}, tool)
	var hookSaw any
	h.cfg.BeforeToolCall = func(ctx context.Context, call llm.ContentBlock, args map[string]any) (agent.ToolDecision, error) {
		if call.ID == "coerced" {
			hookSaw = args["n"]
		}
		return agent.ToolDecision{}, nil
	}
	h.run(context.Background(), "go")
	if v, _ := got.Load("coerced"); v != 2.0 || hookSaw != 2.0 {
		t.Fatalf("the tool got %v, the hook %v; want 2", v, hookSaw)
	}
	for _, ev := range h.events {
		if e, ok := ev.(events.ToolExecutionStart); ok && e.ToolCallID == "coerced" && e.Args["n"] != "2" {
			t.Fatalf("tool_execution_start shows %v, want the model's \"2\"", e.Args)
		}
	}
	ends := h.ends()
	want := map[string]string{
		"refused":  "Validation failed for tool \"active\":\n  - n: expected number, got string\n  - z: unknown field\n\nReceived arguments:\n{\n  \"z\": 1,\n  \"n\": \"x\"\n}",
		"torn":     "Invalid arguments for tool \"active\": unexpected end of JSON input\n\nReceived arguments:\n{\"n\": 1,",
		"repaired": "Validation failed for tool \"active\":\n  - n: expected number, got string\n\nReceived arguments:\n{\n  \"n\": \"a\\\\qb\"\n}",
	}
	for id, text := range want {
		if e := ends[id]; !e.IsError || e.Result.ResultText() != text {
			t.Errorf("%s: got %q\nwant %q", id, e.Result.ResultText(), text)
		}
	}
}

func TestBeforeToolCall(t *testing.T) {
	tool := &fakeTool{name: "t"}
	h := newHarness([]faux.Step{{ToolCalls: calls("t#blocked", "t#reasonless", "t#failed", "t#panics", "t#allowed")}, {Text: "ok"}}, tool)
	var seen []string
	h.cfg.BeforeToolCall = func(ctx context.Context, call llm.ContentBlock, args map[string]any) (agent.ToolDecision, error) {
		seen = append(seen, call.ID)
		switch call.ID {
		case "blocked":
			return agent.ToolDecision{Block: true, Reason: "not allowed here"}, nil
		case "reasonless":
			return agent.ToolDecision{Block: true}, nil
		case "failed":
			return agent.ToolDecision{}, errors.New("hook exploded")
		case "panics":
			panic("hook panicked")
		}
		args["n"] = 42.0 // hooks may change the arguments
		return agent.ToolDecision{}, nil
	}
	var gotArgs map[string]any
	tool.run = func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		gotArgs = call.Args
		return llm.TextResult("ran"), nil
	}
	h.run(context.Background(), "go")
	if !reflect.DeepEqual(seen, []string{"blocked", "reasonless", "failed", "panics", "allowed"}) {
		t.Fatalf("hook saw %v", seen)
	}
	ends := h.ends()
	for id, text := range map[string]string{"blocked": "not allowed here", "reasonless": "blocked", "failed": "hook exploded", "panics": "hook panicked"} {
		if e := ends[id]; !e.IsError || !strings.Contains(e.Result.ResultText(), text) {
			t.Errorf("%s: %+v", id, e)
		}
	}
	if tool.calls.Load() != 1 || gotArgs["n"] != 42.0 || ends["allowed"].IsError {
		t.Fatalf("allowed call: ran %d times with %v", tool.calls.Load(), gotArgs)
	}
}

func TestAfterToolCallPatchesTheResult(t *testing.T) {
	tool := &fakeTool{name: "t"}
	h := newHarness([]faux.Step{{ToolCalls: calls("t#a", "t#b", "t#c")}, {Text: "ok"}}, tool)
	h.cfg.AfterToolCall = func(ctx context.Context, call llm.ContentBlock, args map[string]any, res llm.ToolResult, isError bool) (llm.ToolResult, bool) {
		switch call.ID {
		case "a":
			return llm.TextResult("patched: " + res.ResultText()), true
		case "c":
			panic("after hook panicked")
		}
		return res, isError
	}
	created := h.run(context.Background(), "go")
	ends := h.ends()
	if e := ends["a"]; !e.IsError || e.Result.ResultText() != "patched: t ran" {
		t.Fatalf("a = %+v", e)
	}
	if e := ends["b"]; e.IsError || e.Result.ResultText() != "t ran" {
		t.Fatalf("b = %+v", e)
	}
	if e := ends["c"]; e.IsError || e.Result.ResultText() != "t ran" {
		t.Fatalf("a panicking hook must keep the result: %+v", e)
	}
	if created[2].Text() != "patched: t ran" || !created[2].IsError {
		t.Fatalf("the patched result did not reach the message: %+v", created[2])
	}
}

func TestSteeringIsInjectedBetweenTurns(t *testing.T) {
	tool := &fakeTool{name: "t"}
	h := newHarness([]faux.Step{{ToolCalls: calls("t#1")}, {Text: "after steer"}}, tool)
	var mu sync.Mutex
	queue := []llm.Message{}
	polls := 0
	h.cfg.Steering = func() []llm.Message {
		mu.Lock()
		defer mu.Unlock()
		polls++
		if polls == 2 { // after the first turn
			queue = append(queue, llm.UserText("steer now"))
		}
		out := queue
		queue = nil
		return out
	}
	created := h.run(context.Background(), "go")
	if got := roles(created); !reflect.DeepEqual(got, []string{"user", "assistant", "toolResult", "user", "assistant"}) {
		t.Fatalf("roles %v", got)
	}
	if created[3].Text() != "steer now" {
		t.Fatalf("injected %+v", created[3])
	}
	sent := h.requests[1].Messages
	if last := sent[len(sent)-1]; last.Role != llm.RoleUser || last.Text() != "steer now" {
		t.Fatalf("the model did not get the steering message last: %v", roles(sent))
	}
	// The steering message opens the second turn.
	types := h.types()
	second := -1
	for i, typ := range types {
		if typ == "turn_start" && i > 2 {
			second = i
			break
		}
	}
	if second < 0 || types[second+1] != "message_start" {
		t.Fatalf("events %v", types)
	}
	if ms := h.events[second+1].(events.MessageStart); ms.Message.Role != llm.RoleUser {
		t.Fatalf("second turn starts with %s", ms.Message.Role)
	}
}

func TestFollowUpsContinueTheRun(t *testing.T) {
	h := newHarness([]faux.Step{{Text: "first"}, {Text: "second"}})
	given := false
	h.cfg.FollowUp = func() []llm.Message {
		if given {
			return nil
		}
		given = true
		return []llm.Message{llm.UserText("and then")}
	}
	created := h.run(context.Background(), "go")
	if got := roles(created); !reflect.DeepEqual(got, []string{"user", "assistant", "user", "assistant"}) {
		t.Fatalf("roles %v", got)
	}
	n := 0
	for _, typ := range h.types() {
		if typ == "agent_start" || typ == "agent_end" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("one run must have one agent_start and one agent_end: %v", h.types())
	}
}

func TestProviderErrorEndsTheRun(t *testing.T) {
	h := newHarness([]faux.Step{{Text: "partial", Error: "rate limited", Status: 429}})
	h.cfg.FollowUp = func() []llm.Message {
		t.Fatalf("follow-ups must not run after an error")
		return nil
	}
	created := h.run(context.Background(), "go")
	last := created[len(created)-1]
	if last.StopReason != llm.StopError || last.ErrorMessage != "429 rate limited" || last.Text() != "partial" {
		t.Fatalf("error message %+v", last)
	}
	types := h.types()
	if types[len(types)-2] != "turn_end" || types[len(types)-1] != "agent_end" {
		t.Fatalf("events %v", types)
	}
}

func TestProviderPanicBecomesAnError(t *testing.T) {
	h := newHarness(nil)
	h.cfg.Provider = llm.ProviderFunc(func(ctx context.Context, req *llm.Request, b *llm.Builder) error { panic("boom") })
	created := h.run(context.Background(), "go")
	if last := created[len(created)-1]; last.StopReason != llm.StopError || !strings.Contains(last.ErrorMessage, "boom") {
		t.Fatalf("got %+v", last)
	}
}

func TestAbortDuringToolStopsTheRun(t *testing.T) {
	started := make(chan struct{})
	tool := &fakeTool{name: "slow", run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		close(started)
		<-ctx.Done()
		return llm.ToolResult{}, errors.New("Operation aborted")
	}}
	h := newHarness([]faux.Step{{ToolCalls: calls("slow#s")}, {Text: "must not be requested"}}, tool)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	done := make(chan []llm.Message)
	go func() { done <- h.run(ctx, "go") }()
	var created []llm.Message
	select {
	case created = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not stop")
	}
	if len(h.requests) != 1 {
		t.Fatalf("the model was called %d times", len(h.requests))
	}
	if e := h.ends()["s"]; !e.IsError || !strings.Contains(e.Result.ResultText(), "aborted") {
		t.Fatalf("end = %+v", e)
	}
	if got := roles(created); !reflect.DeepEqual(got, []string{"user", "assistant", "toolResult"}) {
		t.Fatalf("roles %v", got)
	}
}

func TestAbortBeforeStreaming(t *testing.T) {
	h := newHarness([]faux.Step{{Text: "never"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	created := h.run(ctx, "go")
	if last := created[len(created)-1]; last.StopReason != llm.StopAborted || last.ErrorMessage != llm.AbortedMessage {
		t.Fatalf("got %+v", last)
	}
	if len(h.requests) != 0 {
		t.Fatalf("the model was called")
	}
}

func TestToolPanicAndLateUpdates(t *testing.T) {
	var late func(llm.ToolResult)
	panicky := &fakeTool{name: "panicky", run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) { panic("tool bug") }}
	leaky := &fakeTool{name: "leaky", run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		call.Update(llm.TextResult("progress"))
		late = call.OnUpdate
		return llm.TextResult("done"), nil
	}}
	h := newHarness([]faux.Step{{ToolCalls: calls("panicky#p", "leaky#l")}, {Text: "ok"}}, panicky, leaky)
	h.run(context.Background(), "go")
	if e := h.ends()["p"]; !e.IsError || !strings.Contains(e.Result.ResultText(), "tool bug") {
		t.Fatalf("panic result %+v", e)
	}
	n := len(h.types())
	late(llm.TextResult("after the end"))
	if len(h.types()) != n {
		t.Fatalf("an update after tool_execution_end was emitted")
	}
	updates := 0
	for _, ev := range h.events {
		if u, ok := ev.(events.ToolExecutionUpdate); ok {
			updates++
			if u.ToolCallID != "l" || u.PartialResult.ResultText() != "progress" {
				t.Fatalf("update %+v", u)
			}
		}
	}
	if updates != 1 {
		t.Fatalf("updates = %d", updates)
	}
}

func TestTransformContext(t *testing.T) {
	h := newHarness([]faux.Step{{Text: "a"}})
	h.cfg.TransformContext = func(ctx context.Context, msgs []llm.Message) []llm.Message {
		return append([]llm.Message{llm.UserText("injected context")}, msgs...)
	}
	created := h.run(context.Background(), "go")
	if got := h.requests[0].Messages; len(got) != 2 || got[0].Text() != "injected context" {
		t.Fatalf("provider saw %v", roles(got))
	}
	if len(created) != 2 || created[0].Text() != "go" {
		t.Fatalf("the transform leaked into the run: %+v", created)
	}

	h = newHarness([]faux.Step{{Text: "b"}})
	h.cfg.TransformContext = func(ctx context.Context, msgs []llm.Message) []llm.Message { panic("bad hook") }
	h.run(context.Background(), "go")
	if got := h.requests[0].Messages; len(got) != 1 || got[0].Text() != "go" {
		t.Fatalf("a panicking transform must leave the context alone: %v", roles(got))
	}
}

func TestEndTurnReachesMessageUpdate(t *testing.T) {
	h := newHarness(nil)
	h.cfg.Provider = llm.ProviderFunc(func(ctx context.Context, req *llm.Request, b *llm.Builder) error {
		b.SetEndTurn(false)
		b.Delta(b.StartText(), "x")
		return nil
	})
	h.run(context.Background(), "go")
	for _, ev := range h.events {
		if u, ok := ev.(events.MessageUpdate); ok && (u.EndTurn == nil || *u.EndTurn) {
			t.Fatalf("message_update without endTurn=false: %+v", u)
		}
	}
}

// TestTerminatingToolBatchEndsTheRun: when every result of a tool batch
// terminates (a tool's result or a blocked call), no model call follows;
// one non-terminating result keeps the run going.
func TestTerminatingToolBatchEndsTheRun(t *testing.T) {
	final := &fakeTool{name: "final", run: func(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
		r := llm.TextResult("done")
		r.Terminate = true
		return r, nil
	}}
	plain := &fakeTool{name: "plain"}
	block := func(ctx context.Context, call llm.ContentBlock, args map[string]any) (agent.ToolDecision, error) {
		if call.ID == "stop" {
			return agent.ToolDecision{Block: true, Reason: "stopped", Terminate: true}, nil
		}
		return agent.ToolDecision{}, nil
	}
	for _, c := range []struct {
		name  string
		calls []faux.ToolCall
		turns int
	}{
		{"all terminate", calls("final#a", "final#b", "plain#stop"), 1},
		{"one does not", calls("final#a", "plain#p"), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness([]faux.Step{{ToolCalls: c.calls}, {Text: "follow-up"}}, final, plain)
			h.cfg.BeforeToolCall = block
			msgs := h.run(context.Background(), "go")
			n := 0
			for _, m := range msgs {
				if m.Role == llm.RoleAssistant {
					n++
				}
			}
			if n != c.turns {
				t.Fatalf("%d model calls, want %d: %v", n, c.turns, roles(msgs))
			}
		})
	}
}
