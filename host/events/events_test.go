package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// reflectEncode encodes an event with encoding/json and the struct tags,
// the reference the hand-written encoders must agree with.
func reflectEncode(t *testing.T, ev Event) map[string]any {
	t.Helper()
	body, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	m["type"] = ev.EventType()
	return m
}

func TestHandEncodedEventsMatchTheirStructTags(t *testing.T) {
	user := llm.UserText("hi <there> & \u2028 \"q\"")
	asst := llm.Message{Role: llm.RoleAssistant, API: "faux", Provider: "faux", Model: "m",
		Content:    llm.Content{Blocks: []llm.ContentBlock{llm.Text("ok"), llm.ToolCall("c1", "bash", map[string]any{"command": "ls", "n": 2.5})}},
		StopReason: llm.StopToolUse, Usage: llm.Usage{Input: 3, Output: 4, TotalTokens: 7, Cost: llm.Cost{Total: 0.25}}, Timestamp: 9}
	res := llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "bash", Content: llm.TextContent("out"), Details: map[string]any{"x": []any{1.0}}, Timestamp: 10}
	partial := llm.ToolResult{Content: []llm.ContentBlock{llm.Text("so far")}, Details: map[string]any{"truncation": nil}}
	evs := []Event{
		AgentStart{}, AgentSettled{}, TurnStart{},
		AgentEnd{Messages: []llm.Message{user, asst, res}},
		AgentEnd{Messages: []llm.Message{}},
		TurnEnd{Message: asst, ToolResults: []llm.Message{res}},
		TurnEnd{Message: asst, ToolResults: []llm.Message{}},
		MessageStart{Message: user}, MessageEnd{Message: asst},
		ToolExecutionStart{ToolCallID: "c1", ToolName: "bash", Args: map[string]any{"command": "ls"}},
		ToolExecutionUpdate{ToolCallID: "c1", ToolName: "bash", Args: map[string]any{"command": "ls"}, PartialResult: partial},
		ToolExecutionEnd{ToolCallID: "c1", ToolName: "bash", Result: llm.TextResult("done"), IsError: true},
		ToolExecutionEnd{ToolCallID: "c2", ToolName: "read", Result: llm.ToolResult{}, IsError: false},
		QueueUpdate{Steering: []string{"a", "b"}, FollowUp: []string{}},
	}
	for _, ev := range evs {
		b, err := Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(string(b), "\n\r") {
			t.Fatalf("%s: line break in %s", ev.EventType(), b)
		}
		if !strings.HasPrefix(string(b), `{"type":"`+ev.EventType()+`"`) {
			t.Fatalf("%s: type is not first: %s", ev.EventType(), b)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v: %s", ev.EventType(), err, b)
		}
		if want := reflectEncode(t, ev); !reflect.DeepEqual(got, want) {
			w, _ := json.Marshal(want)
			t.Errorf("%s:\n hand %s\n tags %s", ev.EventType(), b, w)
		}
	}
}

func TestQueueUpdateNeverWritesNull(t *testing.T) {
	b, _ := Encode(QueueUpdate{})
	if string(b) != `{"type":"queue_update","steering":[],"followUp":[]}` {
		t.Fatalf("got %s", b)
	}
}

func TestMessageUpdateShape(t *testing.T) {
	no := false
	b, _ := Encode(MessageUpdate{Usage: llm.Usage{Input: 1, TotalTokens: 1}, Event: llm.AssistantEvent{Type: llm.EvTextDelta, Delta: "x"}, EndTurn: &no})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, has := m["message"]; has {
		t.Fatalf("message_update carries a message: %s", b)
	}
	if m["endTurn"] != false || m["usage"].(map[string]any)["input"] != 1.0 {
		t.Fatalf("got %s", b)
	}
	b, _ = Encode(MessageUpdate{Event: llm.AssistantEvent{Type: llm.EvTextStart}})
	if strings.Contains(string(b), "endTurn") {
		t.Fatalf("endTurn written without a value: %s", b)
	}
}

func TestReflectionFallback(t *testing.T) {
	b, err := Encode(ExtensionError{ExtensionPath: "/x.ts", Event: "tool_call", Error: "boom"})
	if err != nil || string(b) != `{"type":"extension_error","extensionPath":"/x.ts","event":"tool_call","error":"boom"}` {
		t.Fatalf("got %s %v", b, err)
	}
	b, err = Encode(Raw{Type: "custom_thing"})
	if err != nil || string(b) != `{"type":"custom_thing"}` {
		t.Fatalf("got %s %v", b, err)
	}
}
