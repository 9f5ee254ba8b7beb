package nodeext_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// lateRun runs late.ts's scenario in one runtime and returns its events
// (ids and times taken out).
func lateRun(t *testing.T, runtime string) []string {
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "late_tool", "arguments": map[string]any{}}}},
		{"text": "after late"},
		{"toolCalls": []map[string]any{{"name": "final_answer", "arguments": map[string]any{"answer": "42"}}}},
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo stop-here"}}}},
		{"text": "never"},
	}
	a := start(t, script, map[string]any{"extensionRuntime": runtime, "extensions": []any{abs(t, "late.ts")}}, nil)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(fmt.Sprint(statuses(t, a)["late.ts"]["tools"]), "late_tool") {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the session_start tool was never registered: %v", runtime, statuses(t, a)["late.ts"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	var recs []e2e.Record
	one := a.PromptAndWait("one")
	if res := toolResultTexts(one); len(res) != 1 || res[0] != "late ok" {
		t.Fatalf("%s: late tool: %v", runtime, res)
	}
	recs = append(recs, one...)
	if got := notice(t, a, "/more", "more:"); strings.Contains(got, "late_tool") || !strings.Contains(got, "final_answer") {
		t.Fatalf("%s: active tools after /more: %s", runtime, got)
	}
	two := a.PromptAndWait("two")
	if res := toolResultTexts(two); len(res) != 1 || res[0] != "final: 42" {
		t.Fatalf("%s: final tool: %v", runtime, res)
	}
	reqs := a.FauxRequests()
	if len(reqs) != 3 {
		t.Fatalf("%s: terminate did not end the run: %d model requests", runtime, len(reqs))
	}
	if offered := fmt.Sprint(reqs[2]["tools"]); strings.Contains(offered, "late_tool") || !strings.Contains(offered, "final_answer") {
		t.Fatalf("%s: the request after setActiveTools offered %s", runtime, offered)
	}
	recs = append(recs, two...)
	three := a.PromptAndWait("three")
	if res := toolResultTexts(three); len(res) != 1 || res[0] != "stopped" {
		t.Fatalf("%s: blocked: %v", runtime, res)
	}
	if n := len(a.FauxRequests()); n != 4 {
		t.Fatalf("%s: a terminating block did not end the run: %d model requests", runtime, n)
	}
	return comparable(append(recs, three...))
}

func toolResultTexts(recs []e2e.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Type() != "tool_execution_end" {
			continue
		}
		res, _ := r["result"].(map[string]any)
		var b strings.Builder
		for _, c := range asSlice(res["content"]) {
			if m, ok := c.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		out = append(out, b.String())
	}
	return out
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// TestLateToolsAndTerminateSameInGojaAndNode: tools registered after load
// reach the next model request, setActiveTools narrows what it offers, a
// terminating tool result or block ends the run; the two runtimes give the
// same events.
func TestLateToolsAndTerminateSameInGojaAndNode(t *testing.T) {
	needNode(t)
	goja := lateRun(t, "goja")
	node := lateRun(t, "node")
	if strings.Join(goja, "\n") != strings.Join(node, "\n") {
		t.Fatalf("events differ\n--- goja\n%s\n--- node\n%s", strings.Join(goja, "\n"), strings.Join(node, "\n"))
	}
}
