package main_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

const limit = 20 * time.Second

func TestPrintModePrintsTheFinalText(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "say", "hello"}, Script: []map[string]any{
		{"thinking": "hidden thoughts", "text": "Here is the answer.", "chunks": 3},
	}}, "", limit)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.ExitCode, res.Stderr)
	}
	if res.Stdout != "Here is the answer.\n" {
		t.Fatalf("stdout = %q", res.Stdout)
	}
}

func TestPrintModeWithoutScriptQuotesThePrompt(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "what is up"}}, "", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `"what is up"`) || strings.Count(res.Stdout, "\n") != 1 {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestPrintModeRunsTools(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "go"}, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo tool-output-line"}}}},
		{"text": "Finished."},
	}}, "", limit)
	if res.ExitCode != 0 || res.Stdout != "Finished.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestPrintModeReadsThePromptFromStdin(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p"}}, "from stdin\n", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `"from stdin"`) {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestPrintModeProviderErrorFails(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "hi"}, Script: []map[string]any{
		{"error": "overloaded right now", "status": 529},
	}, AgentFiles: map[string]string{"settings.json": `{"retry": {"enabled": false}}`}}, "", limit)
	if res.ExitCode != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, "overloaded right now") {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestPrintModeRetriesTransientErrors(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "hi"}, Script: []map[string]any{
		{"error": "overloaded right now", "status": 529},
		{"text": "Recovered."},
	}, AgentFiles: map[string]string{"settings.json": `{"retry": {"baseDelayMs": 10}}`}}, "", limit)
	if res.ExitCode != 0 || res.Stdout != "Recovered.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestJSONModePrintsOnlyEvents(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--mode", "json", "list the files"}, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo from-the-tool; echo also >&2"}}}},
		{"text": "Two files.", "chunks": 2},
	}}, "", limit)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.ExitCode, res.Stderr)
	}
	var types []string
	for i, line := range strings.SplitAfter(res.Stdout, "\n") {
		if line == "" {
			continue
		}
		if err := e2e.CheckRecordLine([]byte(line)); err != nil {
			t.Fatalf("line %d: %v: %q", i+1, err, line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		typ, _ := rec["type"].(string)
		if typ == "" || typ == "response" {
			t.Fatalf("line %d is not an event: %s", i+1, line)
		}
		types = append(types, typ)
	}
	if len(types) < 2 || types[0] != "agent_start" {
		t.Fatalf("types = %v", types)
	}
	want := map[string]bool{"turn_start": true, "message_update": true, "tool_execution_start": true, "tool_execution_end": true, "turn_end": true, "agent_end": true}
	for _, typ := range types {
		delete(want, typ)
	}
	if len(want) != 0 {
		t.Fatalf("missing events %v in %v", want, types)
	}
	if !strings.Contains(res.Stdout, "Two files.") {
		t.Fatalf("final text missing from the events")
	}
}

func TestNoModeNoMessageIsAnError(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true}, "", limit)
	if res.ExitCode != 2 || res.Stdout != "" || res.Stderr == "" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestUnknownFlagsAreAccepted(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--some-future-flag", "-p", "hello"}}, "", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `"hello"`) {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}
