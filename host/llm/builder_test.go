package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
)

type recorded struct {
	ev    AssistantEvent
	usage Usage
}

func newRecorder() (*[]recorded, Sink) {
	var evs []recorded
	return &evs, func(ev AssistantEvent, u Usage) { evs = append(evs, recorded{ev, u}) }
}

var testModel = Model{ID: "m1", API: "test-api", Provider: "prov", Cost: ModelCost{Input: 3, Output: 15}}

func TestBuilderBuildsTheMessageAndEvents(t *testing.T) {
	evs, sink := newRecorder()
	b := NewBuilder(testModel, sink)
	snap := b.Snapshot()
	if snap.StopReason != StopPending || len(snap.Content.Blocks) != 0 || snap.Role != RoleAssistant || snap.Provider != "prov" {
		t.Fatalf("initial snapshot %+v", snap)
	}
	th := b.StartThinking()
	b.Delta(th, "let me ")
	b.Delta(th, "think")
	b.SetSignature(th, "sig")
	b.End(th)
	tx := b.StartText()
	b.SetUsage(Usage{Input: 1000, Output: 10})
	b.Delta(tx, "Hello ")
	b.Delta(tx, "")
	b.Delta(tx, "world")
	tc := b.StartToolCall("call1", "bash")
	b.Delta(tc, `{"command":`)
	b.Delta(tc, `"ls"}`)
	b.SetEndTurn(true)
	msg := b.Finish(context.Background(), nil)

	var types []string
	for _, r := range *evs {
		types = append(types, r.ev.Type)
	}
	want := []string{EvThinkingStart, EvThinkingDelta, EvThinkingDelta, EvThinkingEnd, EvTextStart, EvTextDelta, EvTextDelta,
		EvToolCallStart, EvToolCallDelta, EvToolCallDelta, EvTextEnd, EvToolCallEnd}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("events %v\nwant   %v", types, want)
	}
	last := (*evs)[len(*evs)-1]
	if last.ev.ToolCall == nil || last.ev.ToolCall.Arguments["command"] != "ls" || last.ev.EndTurn == nil || !*last.ev.EndTurn {
		t.Fatalf("toolcall_end = %+v", last.ev)
	}
	if (*evs)[5].usage.Input != 1000 || (*evs)[5].usage.Cost.Input != 0.003 {
		t.Fatalf("usage on a delta = %+v", (*evs)[5].usage)
	}
	if msg.StopReason != StopToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stop = %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if got := msg.Content.Blocks; len(got) != 3 || got[0].Thinking != "let me think" || got[0].ThinkingSignature != "sig" ||
		got[1].Text != "Hello world" || got[2].ID != "call1" || got[2].Arguments["command"] != "ls" {
		t.Fatalf("content = %+v", got)
	}
	if msg.Usage.TotalTokens != 1010 || msg.Usage.Cost.Output != 10*15/1e6 {
		t.Fatalf("usage = %+v", msg.Usage)
	}
	// The end text event carries the whole block.
	for _, r := range *evs {
		if r.ev.Type == EvTextEnd && r.ev.Content != "Hello world" {
			t.Fatalf("text_end content %q", r.ev.Content)
		}
	}
}

func TestBuilderStopReasons(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	cases := []struct {
		name     string
		ctx      context.Context
		setup    func(b *Builder)
		err      error
		stop     string
		errorMsg string
	}{
		{"plain text", bg, func(b *Builder) { b.Delta(b.StartText(), "x") }, nil, StopStop, ""},
		{"empty", bg, func(b *Builder) {}, nil, StopStop, ""},
		{"length kept", bg, func(b *Builder) { b.Delta(b.StartText(), "x"); b.SetStopReason(StopLength) }, nil, StopLength, ""},
		{"stop with tools becomes toolUse", bg, func(b *Builder) { b.StartToolCall("a", "b"); b.SetStopReason(StopStop) }, nil, StopToolUse, ""},
		{"length with tools stays length", bg, func(b *Builder) { b.StartToolCall("a", "b"); b.SetStopReason(StopLength) }, nil, StopLength, ""},
		{"unknown reason derived", bg, func(b *Builder) { b.SetStopReason("weird") }, nil, StopStop, ""},
		{"provider error", bg, func(b *Builder) { b.Delta(b.StartText(), "part") }, &APIError{Status: 529, Message: "overloaded"}, StopError, "529 overloaded"},
		{"empty error text", bg, func(b *Builder) {}, errors.New(""), StopError, "unknown provider error"},
		{"reported error", bg, func(b *Builder) { b.SetStopReason(StopError) }, nil, StopError, "the provider ended the response with error"},
		{"aborted", cancelled, func(b *Builder) { b.Delta(b.StartText(), "part") }, context.Canceled, StopAborted, AbortedMessage},
		{"aborted without error", cancelled, func(b *Builder) {}, nil, StopAborted, AbortedMessage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder(testModel, nil)
			c.setup(b)
			m := b.Finish(c.ctx, c.err)
			if m.StopReason != c.stop || m.ErrorMessage != c.errorMsg {
				t.Fatalf("got %s %q, want %s %q", m.StopReason, m.ErrorMessage, c.stop, c.errorMsg)
			}
		})
	}
}

func TestBuilderToolArguments(t *testing.T) {
	b := NewBuilder(testModel, nil)
	bad := b.StartToolCall("c1", "read")
	b.Delta(bad, `{"path": "unterminated`)
	whole := b.StartToolCall("c2", "read")
	b.Delta(whole, `{"ignored":true}`)
	b.SetToolArguments(whole, map[string]any{"path": "x"})
	notObj := b.StartToolCall("c3", "read")
	b.Delta(notObj, `[1,2]`)
	m := b.Finish(context.Background(), nil)
	calls := m.ToolCalls()
	if len(calls[0].Arguments) != 0 || calls[0].Arguments == nil {
		t.Fatalf("bad JSON arguments = %#v", calls[0].Arguments)
	}
	if calls[1].Arguments["path"] != "x" || len(calls[1].Arguments) != 1 {
		t.Fatalf("whole arguments = %#v", calls[1].Arguments)
	}
	if len(calls[2].Arguments) != 0 {
		t.Fatalf("array arguments = %#v", calls[2].Arguments)
	}
}

func TestBuilderIgnoresCallsAfterFinish(t *testing.T) {
	evs, sink := newRecorder()
	b := NewBuilder(testModel, sink)
	idx := b.StartText()
	b.Delta(idx, "done")
	m := b.Finish(context.Background(), nil)
	n := len(*evs)
	b.Delta(idx, " late")
	if b.StartText() != -1 || b.StartToolCall("x", "y") != -1 {
		t.Fatalf("Start after Finish did not return -1")
	}
	b.End(idx)
	b.SetStopReason(StopLength)
	b.SetUsage(Usage{Input: 99})
	if len(*evs) != n {
		t.Fatalf("events after Finish: %v", (*evs)[n:])
	}
	again := b.Finish(context.Background(), errors.New("ignored"))
	if !reflect.DeepEqual(again, m) || m.Text() != "done" {
		t.Fatalf("message changed after Finish: %+v", again)
	}
	// Invalid indexes are ignored.
	b2 := NewBuilder(testModel, nil)
	b2.Delta(5, "x")
	b2.End(-1)
	b2.SetSignature(3, "s")
	if got := b2.Finish(context.Background(), nil); len(got.Content.Blocks) != 0 {
		t.Fatalf("content = %+v", got.Content.Blocks)
	}
}

func TestBuilderConcurrentUse(t *testing.T) {
	var mu sync.Mutex
	count := 0
	b := NewBuilder(testModel, func(AssistantEvent, Usage) { mu.Lock(); count++; mu.Unlock() })
	idx := b.StartText()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				b.Delta(idx, "x")
				_ = b.Snapshot()
			}
		}()
	}
	wg.Wait()
	m := b.Finish(context.Background(), nil)
	if len(m.Text()) != 800 || count != 1+800+1 {
		t.Fatalf("text %d bytes, %d events", len(m.Text()), count)
	}
}

func TestAssistantEventJSON(t *testing.T) {
	tc := ToolCall("id1", "bash", map[string]any{"command": "ls"})
	end := true
	cases := []struct {
		ev   AssistantEvent
		want string
	}{
		{AssistantEvent{Type: EvTextStart, ContentIndex: 0}, `{"type":"text_start","contentIndex":0}`},
		{AssistantEvent{Type: EvTextDelta, ContentIndex: 1, Delta: "a\"b"}, `{"type":"text_delta","contentIndex":1,"delta":"a\"b"}`},
		{AssistantEvent{Type: EvThinkingEnd, ContentIndex: 2, Content: "t", EndTurn: &end}, `{"type":"thinking_end","contentIndex":2,"content":"t"}`},
		{AssistantEvent{Type: EvToolCallEnd, ContentIndex: 3, ToolCall: &tc}, `{"type":"toolcall_end","contentIndex":3,"toolCall":{"type":"toolCall","id":"id1","name":"bash","arguments":{"command":"ls"}}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.ev)
		if err != nil || string(b) != c.want {
			t.Errorf("got %s (%v), want %s", b, err, c.want)
		}
	}
}
