package app

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// A branch summary's file lists count the model's calls, the calls tools
// made to other tools (nestedCalls), and the lists of an earlier summary
// the agent wrote (not one an extension wrote).
func TestBranchTranscriptFiles(t *testing.T) {
	msg := func(m llm.Message) *session.Entry { return &session.Entry{Type: session.TypeMessage, Message: &m} }
	entries := []*session.Entry{
		{Type: session.TypeBranchSummary, Summary: "earlier", Details: map[string]any{"readFiles": []any{"old-read.go"}, "modifiedFiles": []any{"old-mod.go"}}},
		{Type: session.TypeBranchSummary, Summary: "by a hook", FromHook: true, Details: map[string]any{"readFiles": []any{"hook.go"}}},
		msg(llm.UserText("go")),
		msg(llm.Message{Role: llm.RoleAssistant, Content: llm.Content{Blocks: []llm.ContentBlock{
			llm.ToolCall("c1", "read", map[string]any{"path": "a.go"}), llm.ToolCall("c2", "outer", map[string]any{})}}}),
		msg(llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: llm.TextContent("package a")}),
		msg(llm.Message{Role: llm.RoleToolResult, ToolCallID: "c2", ToolName: "outer", Content: llm.TextContent("done"),
			Extra: map[string]json.RawMessage{"nestedCalls": json.RawMessage(`{"calls":[` +
				`{"id":"c2/1","name":"read","arguments":{"path":"nested-read.go"},"status":"ok"},` +
				`{"id":"c2/2","name":"edit","arguments":{"path":"a.go"},"status":"ok"},` +
				`{"id":"c2/3","name":"write","argumentsBytes":9000,"status":"ok"},` +
				`{"id":"c2/4","name":"write","arguments":{"path":"nested-new.go"},"status":"error"}],"complete":false}`)}}),
	}
	_, read, modified := branchTranscript(entries)
	if want := []string{"nested-read.go", "old-read.go"}; !reflect.DeepEqual(read, want) {
		t.Errorf("read files %v, want %v", read, want)
	}
	if want := []string{"a.go", "nested-new.go", "old-mod.go"}; !reflect.DeepEqual(modified, want) {
		t.Errorf("modified files %v, want %v", modified, want)
	}
}
