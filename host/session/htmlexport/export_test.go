package htmlexport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

func TestMarkdownIsSafe(t *testing.T) {
	out := markdown("**b** <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![r](https://example.invalid/a.png) ![d](data:image/png;base64,AAAA)\n\n<div>block</div>\n")
	for _, want := range []string{"<strong>b</strong>", "&lt;img src=x onerror=alert(1)&gt;", "remote-image", `<img src="data:image/png;base64,AAAA"`, "&lt;div&gt;block&lt;/div&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"<img src=x", "javascript:", `src="https`, "<div>"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q:\n%s", bad, out)
		}
	}
	if isDataImage(`data:image/png;base64,AAAA" onload="x`) || isDataImage("data:text/html;base64,AAAA") {
		t.Fatal("unsafe data URI accepted")
	}
}

func TestRenderActiveBranchAndTotals(t *testing.T) {
	s := session.NewInMemory("/proj")
	s.AppendMessage(llm.UserText("first question"))
	a := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Provider: "p", Model: "m", Content: llm.TextContent("answer **one**"),
		Usage: llm.Usage{Input: 10, Output: 5, Cost: llm.Cost{Total: 0.5}}, StopReason: llm.StopStop})
	s.AppendMessage(llm.UserText("abandoned question"))
	if err := s.SetLeaf(a.ID); err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(llm.UserText("second <question>"))
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Provider: "p", Model: "m2", StopReason: llm.StopStop,
		Content: llm.Content{Blocks: []llm.ContentBlock{{Type: llm.BlockThinking, Thinking: "hmm"}, llm.ToolCall("c1", "read", map[string]any{"path": "a.go"})}},
		Usage:   llm.Usage{Input: 20, Output: 7, Cost: llm.Cost{Total: 0.25}}})
	s.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: llm.TextContent("package main")})
	var buf bytes.Buffer
	if err := Render(&buf, s, Info{Model: "p/m2"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"first question", "answer <strong>one</strong>", "&lt;question&gt;", `<details class="thinking">`,
		"Tool call", "&#34;path&#34;: &#34;a.go&#34;", "Result of read", "package main", "input 30", "output 12", "$0.7500", "p/m, p/m2"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<question>") {
		t.Error("raw HTML from a message reached the page")
	}
	if strings.Contains(page, "abandoned question") {
		t.Error("the page shows an abandoned branch")
	}
}

// A tool result's record of the calls the tool made to other tools is
// listed with it, as pi 1.6's export lists it.
func TestRenderNestedCalls(t *testing.T) {
	s := session.NewInMemory("/proj")
	s.AppendMessage(llm.UserText("go"))
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse,
		Content: llm.Content{Blocks: []llm.ContentBlock{llm.ToolCall("c1", "outer", map[string]any{})}}})
	s.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "outer", Content: llm.TextContent("done"),
		Extra: map[string]json.RawMessage{"nestedCalls": json.RawMessage(`{"calls":[` +
			`{"id":"c1/1","name":"read","arguments":{"path":"<a>.go"},"status":"ok","durationMs":3},` +
			`{"id":"c1/2","name":"bash","argumentsBytes":9000,"status":"error","durationMs":0,"error":"no\nshell"},` +
			`{"id":"c1/3","name":"write","arguments":{},"status":"unfinished"}],"complete":false}`)}})
	s.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: "c2", ToolName: "plain", Content: llm.TextContent("x")})
	var buf bytes.Buffer
	if err := Render(&buf, s, Info{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	want := "<summary>Nested calls: 3 (incomplete record)</summary><pre>" +
		"✓ read {&#34;path&#34;:&#34;&lt;a&gt;.go&#34;} 3ms\n" +
		"✗ bash [arguments omitted, 9000 bytes] 0ms\n    no\n    shell\n" +
		"… write {}</pre>"
	if !strings.Contains(page, want) {
		t.Errorf("page lacks %q:\n%s", want, page)
	}
	if strings.Count(page, "Nested calls") != 1 {
		t.Error("a result without nested calls lists some")
	}
}
