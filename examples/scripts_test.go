package examples_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestScriptExamples runs the JavaScript guard and the TypeScript todo
// extension through the agent.
func TestScriptExamples(t *testing.T) {
	guard, _ := filepath.Abs(filepath.Join("js-guard", "guard.js"))
	todo, _ := filepath.Abs("ts-todo")
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "todo", "arguments": map[string]any{"action": "add", "text": "write the docs"}}}},
		{"text": "added"},
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "rm -rf build"}}}},
		{"text": "not removed"},
	}
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", guard, "-e", todo}, Script: script})

	recs := a.PromptAndWait("remember to write the docs")
	if got := toolResultTexts(recs); len(got) != 1 || got[0] != "Added #1: write the docs" {
		t.Fatalf("todo tool: %v", got)
	}

	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "clean the build"})
	req := a.WaitType(from, "extension_ui_request")
	if req["method"] != "confirm" || req["message"] != "rm -rf build" {
		t.Fatalf("guard dialog: %v", req)
	}
	a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": false})
	a.WaitType(from, "agent_end")
	if got := toolResultTexts(a.Records(from)); len(got) != 1 || got[0] != "guard: the user declined this command" {
		t.Fatalf("guard: %v", got)
	}

	notify := func(prompt string) string {
		from := a.Len()
		a.MustSucceed(map[string]any{"type": "prompt", "message": prompt})
		r := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
			return r.Type() == "extension_ui_request" && r["method"] == "notify"
		})
		return fmt.Sprint(r["message"])
	}
	if got := notify("/todo done 1"); got != "Done: write the docs" {
		t.Fatalf("/todo done: %q", got)
	}
	if got := notify("/todo"); got != "[x] #1 write the docs" {
		t.Fatalf("/todo: %q", got)
	}
	if got := notify("/guard"); got != "guard: 0 allowed, 1 blocked" {
		t.Fatalf("/guard: %q", got)
	}
	entries := fmt.Sprint(a.MustSucceed(map[string]any{"type": "get_entries"})["data"])
	if strings.Count(entries, "todo-state") != 2 {
		t.Fatalf("entries: %s", entries)
	}
}

func toolResultTexts(recs []e2e.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Type() != "message_end" {
			continue
		}
		m, _ := r["message"].(map[string]any)
		if m["role"] != "toolResult" {
			continue
		}
		var sb strings.Builder
		for _, b := range m["content"].([]any) {
			s, _ := b.(map[string]any)["text"].(string)
			sb.WriteString(s)
		}
		out = append(out, sb.String())
	}
	return out
}
