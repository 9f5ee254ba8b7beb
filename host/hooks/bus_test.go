package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

// fake is a subscriber whose handler is a Go function.
type fake struct {
	path    string
	events  []string
	timeout time.Duration
	fn      func(ctx context.Context, ev map[string]any) (any, error)

	mu   sync.Mutex
	seen []string
}

func (f *fake) Path() string     { return f.path }
func (f *fake) Events() []string { return f.events }
func (f *fake) Timeout(string) time.Duration {
	return f.timeout
}
func (f *fake) Handle(ctx context.Context, ev *Event) (json.RawMessage, error) {
	raw, err := ev.JSON()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.seen = append(f.seen, ev.Name)
	f.mu.Unlock()
	if f.fn == nil {
		return nil, nil
	}
	v, err := f.fn(ctx, m)
	if err != nil || v == nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return json.RawMessage(s), nil
	}
	b, _ := json.Marshal(v)
	return b, nil
}

func (f *fake) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

type errs struct {
	mu   sync.Mutex
	list []ExtensionError
}

func (e *errs) add(x ExtensionError) {
	e.mu.Lock()
	e.list = append(e.list, x)
	e.mu.Unlock()
}

func (e *errs) all() []ExtensionError {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]ExtensionError(nil), e.list...)
}

func newBus(subs ...Subscriber) (*Bus, *errs) {
	b := New()
	e := &errs{}
	b.OnError = e.add
	b.Add(subs...)
	return b, e
}

func ret(v any) func(context.Context, map[string]any) (any, error) {
	return func(context.Context, map[string]any) (any, error) { return v, nil }
}

func TestBeforeLastTruthyWinsAndCancelStops(t *testing.T) {
	third := &fake{path: "c", events: []string{SessionBeforeSwitch}, fn: ret(map[string]any{"cancel": false, "x": 3})}
	b, _ := newBus(
		&fake{path: "a", events: []string{SessionBeforeSwitch}, fn: ret(map[string]any{"x": 1})},
		&fake{path: "b", events: []string{SessionBeforeSwitch}, fn: ret(nil)},
		third,
	)
	r := b.Before(context.Background(), SessionBeforeSwitch, SessionBeforeSwitchEvent{Reason: "new"})
	if r.Cancel || !strings.Contains(string(r.Raw), `"x":3`) {
		t.Fatalf("want last truthy result, got %+v %s", r, r.Raw)
	}

	never := &fake{path: "z", events: []string{SessionBeforeFork}}
	b2, _ := newBus(
		&fake{path: "a", events: []string{SessionBeforeFork}, fn: ret(map[string]any{"cancel": true})},
		never,
	)
	r = b2.Before(context.Background(), SessionBeforeFork, SessionBeforeForkEvent{EntryID: "e1", Position: "before"})
	if !r.Cancel {
		t.Fatal("cancel was not reported")
	}
	if len(never.names()) != 0 {
		t.Fatal("dispatch went on after cancel")
	}
}

func TestBeforeEmptyObjectReplacesEarlierResult(t *testing.T) {
	b, _ := newBus(
		&fake{path: "a", events: []string{SessionBeforeCompact}, fn: ret(map[string]any{"compactedText": "x"})},
		&fake{path: "b", events: []string{SessionBeforeCompact}, fn: ret(map[string]any{})},
	)
	r := b.Before(context.Background(), SessionBeforeCompact, nil)
	if string(r.Raw) != "{}" {
		t.Fatalf("got %s", r.Raw)
	}
}

func TestBeforeErrorIsReportedAndSkipped(t *testing.T) {
	b, e := newBus(
		&fake{path: "bad", events: []string{SessionBeforeSwitch}, fn: func(context.Context, map[string]any) (any, error) {
			return nil, errors.New("boom")
		}},
		&fake{path: "good", events: []string{SessionBeforeSwitch}, fn: ret(map[string]any{"cancel": true})},
	)
	r := b.Before(context.Background(), SessionBeforeSwitch, SessionBeforeSwitchEvent{Reason: "new"})
	if !r.Cancel {
		t.Fatal("second handler's cancel lost")
	}
	got := e.all()
	if len(got) != 1 || got[0].ExtensionPath != "bad" || got[0].Event != SessionBeforeSwitch || got[0].Error != "boom" {
		t.Fatalf("errors: %+v", got)
	}
}

func TestToolCallBlockModifyAndFailClosed(t *testing.T) {
	var sawInput any
	modify := &fake{path: "mod", events: []string{ToolCall}, fn: ret(map[string]any{"input": map[string]any{"command": "echo safe"}})}
	check := &fake{path: "chk", events: []string{ToolCall}, fn: func(_ context.Context, ev map[string]any) (any, error) {
		sawInput = ev["input"]
		return nil, nil
	}}
	b, _ := newBus(modify, check)
	d := b.ToolCall(context.Background(), ToolCallEvent{ToolCallID: "1", ToolName: "bash", Input: map[string]any{"command": "rm -rf /"}})
	if d.Block || !d.Modified || d.Input["command"] != "echo safe" {
		t.Fatalf("decision %+v", d)
	}
	if m, _ := sawInput.(map[string]any); m["command"] != "echo safe" {
		t.Fatalf("second handler saw %v", sawInput)
	}

	after := &fake{path: "after", events: []string{ToolCall}}
	b, _ = newBus(&fake{path: "blk", events: []string{ToolCall}, fn: ret(map[string]any{"block": true, "reason": "no"})}, after)
	d = b.ToolCall(context.Background(), ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
	if !d.Block || d.Reason != "no" || len(after.names()) != 0 {
		t.Fatalf("block: %+v, after saw %v", d, after.names())
	}

	b, e := newBus(&fake{path: "err", events: []string{ToolCall}, fn: func(context.Context, map[string]any) (any, error) {
		return nil, errors.New("kaput")
	}})
	d = b.ToolCall(context.Background(), ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
	if !d.Block || !strings.Contains(d.Reason, "kaput") || len(e.all()) != 1 {
		t.Fatalf("error must block: %+v %+v", d, e.all())
	}

	b, _ = newBus(&fake{path: "garbage", events: []string{ToolCall}, fn: ret(`[1,2]`)})
	d = b.ToolCall(context.Background(), ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
	if !d.Block || !strings.Contains(d.Reason, "malformed") {
		t.Fatalf("malformed result must block: %+v", d)
	}
}

func TestTimeoutAndPanicAreIsolated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := &fake{path: "hang", events: []string{ToolCall}, timeout: 50 * time.Millisecond,
			fn: func(ctx context.Context, _ map[string]any) (any, error) {
				time.Sleep(2 * time.Second) // ignores ctx on purpose
				return nil, nil
			}}
		b, e := newBus(hang)
		start := time.Now()
		d := b.ToolCall(context.Background(), ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
		if time.Since(start) > time.Second {
			t.Fatal("deadline not honoured")
		}
		if !d.Block || !strings.Contains(d.Reason, "did not finish") || len(e.all()) != 1 {
			t.Fatalf("%+v %+v", d, e.all())
		}

		b, e = newBus(&fake{path: "panic", events: []string{ToolResult}, fn: func(context.Context, map[string]any) (any, error) {
			panic("oops")
		}})
		ev, changed := b.ToolResult(context.Background(), ToolResultEvent{ToolName: "x", Content: []llm.ContentBlock{llm.Text("a")}})
		if changed || ev.Content[0].Text != "a" {
			t.Fatal("panicking handler changed the result")
		}
		if got := e.all(); len(got) != 1 || !strings.Contains(got[0].Error, "panicked: oops") {
			t.Fatalf("%+v", got)
		}
		// The abandoned handler still sleeps; let the bubble's clock run
		// until it returns (no wall time passes).
		time.Sleep(2 * time.Second)
	})
}

func TestAbortCancelsWithoutReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, e := newBus(&fake{path: "slow", events: []string{ToolCall}, fn: func(ctx context.Context, _ map[string]any) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		d := b.ToolCall(ctx, ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
		if !d.Block || d.Reason != "Operation aborted" || len(e.all()) != 0 {
			t.Fatalf("%+v %+v", d, e.all())
		}
	})
}

func TestPauseDeadlineExcludesDialogTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, e := newBus(&fake{path: "ui", events: []string{ToolCall}, timeout: 100 * time.Millisecond,
			fn: func(ctx context.Context, _ map[string]any) (any, error) {
				resume := PauseDeadline(ctx)
				time.Sleep(300 * time.Millisecond) // waiting for the user
				resume()
				return map[string]any{"block": true, "reason": "user said no"}, nil
			}})
		d := b.ToolCall(context.Background(), ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
		if d.Reason != "user said no" || len(e.all()) != 0 {
			t.Fatalf("%+v %+v", d, e.all())
		}
	})
}

func TestToolResultPatchChain(t *testing.T) {
	var secondSaw []any
	b, _ := newBus(
		&fake{path: "a", events: []string{ToolResult}, fn: ret(map[string]any{"content": []any{map[string]any{"type": "text", "text": "patched"}}})},
		&fake{path: "b", events: []string{ToolResult}, fn: func(_ context.Context, ev map[string]any) (any, error) {
			secondSaw, _ = ev["content"].([]any)
			return map[string]any{"isError": true, "details": map[string]any{"k": 1}}, nil
		}},
	)
	ev, changed := b.ToolResult(context.Background(), ToolResultEvent{ToolName: "read", Content: []llm.ContentBlock{llm.Text("orig")}})
	if !changed || ev.Content[0].Text != "patched" || !ev.IsError || ev.Details.(map[string]any)["k"] != float64(1) {
		t.Fatalf("%+v", ev)
	}
	if len(secondSaw) != 1 || secondSaw[0].(map[string]any)["text"] != "patched" {
		t.Fatalf("second handler saw %v", secondSaw)
	}
}

func TestInputChainAndHandled(t *testing.T) {
	last := &fake{path: "c", events: []string{Input}}
	b, _ := newBus(
		&fake{path: "a", events: []string{Input}, fn: func(_ context.Context, ev map[string]any) (any, error) {
			return map[string]any{"action": "transform", "text": ev["text"].(string) + "!"}, nil
		}},
		&fake{path: "b", events: []string{Input}, fn: func(_ context.Context, ev map[string]any) (any, error) {
			if ev["text"] == "hi!" {
				return map[string]any{"action": "handled"}, nil
			}
			return nil, nil
		}},
		last,
	)
	r := b.Input(context.Background(), InputEvent{Text: "hi", Source: "rpc"})
	if r.Action != ActionHandled || len(last.names()) != 0 {
		t.Fatalf("%+v", r)
	}
	r = b.Input(context.Background(), InputEvent{Text: "yo", Source: "rpc"})
	if r.Action != ActionTransform || r.Text != "yo!" {
		t.Fatalf("%+v", r)
	}
}

func TestBeforeAgentStartChainsPromptAndCollectsMessages(t *testing.T) {
	b, _ := newBus(
		&fake{path: "a", events: []string{BeforeAgentStart}, fn: func(_ context.Context, ev map[string]any) (any, error) {
			return map[string]any{"systemPrompt": ev["systemPrompt"].(string) + " +a", "message": map[string]any{"customType": "m1", "content": "one", "display": true}}, nil
		}},
		&fake{path: "b", events: []string{BeforeAgentStart}, fn: func(_ context.Context, ev map[string]any) (any, error) {
			return map[string]any{"systemPrompt": ev["systemPrompt"].(string) + " +b", "message": map[string]any{"customType": "m2", "content": "two"}}, nil
		}},
	)
	r := b.BeforeAgentStart(context.Background(), BeforeAgentStartEvent{Prompt: "p", SystemPrompt: "base"}, nil)
	if r.SystemPrompt == nil || *r.SystemPrompt != "base +a +b" || len(r.Messages) != 2 || r.Messages[1].CustomType != "m2" {
		t.Fatalf("%+v", r)
	}
}

func TestContextReplacesMessages(t *testing.T) {
	b, _ := newBus(&fake{path: "a", events: []string{Context}, fn: func(_ context.Context, ev map[string]any) (any, error) {
		msgs := ev["messages"].([]any)
		return map[string]any{"messages": msgs[len(msgs)-1:]}, nil
	}})
	in := []llm.Message{llm.UserText("one"), llm.UserText("two")}
	out, changed := b.Context(context.Background(), in)
	if !changed || len(out) != 1 || out[0].Text() != "two" || len(in) != 2 {
		t.Fatalf("%v %v", changed, out)
	}
}

func TestUserBashFirstWins(t *testing.T) {
	second := &fake{path: "b", events: []string{UserBash}, fn: ret(map[string]any{"result": map[string]any{"output": "two"}})}
	b, _ := newBus(
		&fake{path: "a", events: []string{UserBash}, fn: ret(map[string]any{"result": map[string]any{"output": "one", "exitCode": 0}})},
		second,
	)
	r := b.UserBash(context.Background(), UserBashEvent{Command: "ls"})
	if r == nil || r.Output != "one" || len(second.names()) != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestNotifyOrderedAsyncAndOnlySubscribed(t *testing.T) {
	var mu sync.Mutex
	var order []string
	slow := &fake{path: "slow", events: []string{TurnStart, MessageEnd, ToolCall}, fn: func(_ context.Context, ev map[string]any) (any, error) {
		if ev["type"] == TurnStart {
			time.Sleep(100 * time.Millisecond)
		}
		mu.Lock()
		order = append(order, ev["type"].(string))
		mu.Unlock()
		return nil, nil
	}}
	other := &fake{path: "other", events: []string{AgentEnd}}
	b, _ := newBus(slow, other)
	t.Cleanup(func() { b.Remove(slow); b.Remove(other) }) // ends their delivery goroutines
	start := time.Now()
	b.Notify(TurnStart, TurnStartEvent{TurnIndex: 0})
	b.Notify(MessageEnd, json.RawMessage(`{"type":"message_end","message":{"role":"user","content":"x"}}`))
	if time.Since(start) > 50*time.Millisecond {
		t.Fatal("Notify waited for the handler")
	}
	// An intercepting call waits for the subscriber's queued notifications.
	b.ToolCall(context.Background(), ToolCallEvent{ToolName: "x", Input: map[string]any{}})
	mu.Lock()
	got := strings.Join(order, ",")
	mu.Unlock()
	if got != "turn_start,message_end,tool_call" {
		t.Fatalf("order %s", got)
	}
	b.Flush(time.Second)
	if len(other.names()) != 0 {
		t.Fatal("unsubscribed extension got events")
	}
	if !b.Has(AgentEnd) || b.Has(MessageUpdate) {
		t.Fatal("Has is wrong")
	}
}

func TestEventJSONAddsType(t *testing.T) {
	raw, err := NewEvent(ToolCall, ToolCallEvent{ToolCallID: "c", ToolName: "bash", Input: map[string]any{"a": 1}}).JSON()
	if err != nil || string(raw) != `{"type":"tool_call","toolCallId":"c","toolName":"bash","input":{"a":1}}` {
		t.Fatalf("%s %v", raw, err)
	}
	raw, _ = NewEvent(AgentStart, nil).JSON()
	if string(raw) != `{"type":"agent_start"}` {
		t.Fatalf("%s", raw)
	}
}

type batchFake struct {
	fake
	batches int
	got     []string
}

func (b *batchFake) HandleBatch(ctx context.Context, evs []*Event) []error {
	time.Sleep(20 * time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches++
	for _, ev := range evs {
		raw, _ := ev.JSON()
		var m map[string]any
		json.Unmarshal(raw, &m)
		b.got = append(b.got, m["delta"].(string))
	}
	errs := make([]error, len(evs))
	errs[len(evs)-1] = errors.New("last failed")
	return errs
}

func TestNotificationsAreBatchedInOrder(t *testing.T) {
	s := &batchFake{fake: fake{path: "batch", events: []string{MessageUpdate}}}
	b, e := newBus(s)
	t.Cleanup(func() { b.Remove(s) }) // ends its delivery goroutine
	for i := 0; i < 50; i++ {
		b.Notify(MessageUpdate, json.RawMessage(`{"type":"message_update","delta":"`+string(rune('a'+i%26))+`"}`))
	}
	b.Flush(5 * time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.got) != 50 || s.batches >= 50 || s.batches < 1 {
		t.Fatalf("got %d events in %d batches", len(s.got), s.batches)
	}
	for i, d := range s.got {
		if d != string(rune('a'+i%26)) {
			t.Fatalf("out of order at %d: %v", i, s.got)
		}
	}
	if len(e.all()) != s.batches {
		t.Fatalf("per-event errors: %d reports for %d batches", len(e.all()), s.batches)
	}
}

func TestTruthyReadsAsJavaScriptDoes(t *testing.T) {
	for raw, want := range map[string]bool{
		`true`: true, `false`: false, `null`: false, `0`: false, `1`: true, `-0.0`: false, `""`: false, `"x"`: true,
		`{}`: true, `[]`: true, ` true`: true,
	} {
		var v struct {
			B Truthy `json:"b"`
		}
		if err := json.Unmarshal([]byte(`{"b":`+raw+`}`), &v); err != nil || bool(v.B) != want {
			t.Errorf("%s: got %v (%v), want %v", raw, v.B, err, want)
		}
	}
}
