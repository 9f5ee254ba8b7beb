package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

const limit = 20 * time.Second

func TestPrintModePrintsTheFinalText(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "say hello"}, Script: []map[string]any{
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

// commandExtension is a script extension whose /show command notifies (at
// two levels) and sends a message for display, and whose /ask command
// sends one that triggers a turn.
const commandExtension = `
module.exports = function (pi) {
  pi.registerCommand("show", {
    description: "shows things",
    handler: async (args, ctx) => {
      ctx.ui.notify("noted: " + args, "info");
      ctx.ui.notify("careful", "warning");
      pi.sendMessage({ customType: "show", content: "sent by the command", display: true });
      pi.sendMessage({ customType: "hidden", content: "not for display", display: false });
    },
  });
  pi.registerCommand("ask", {
    description: "asks the model",
    handler: async (args, ctx) => {
      pi.sendMessage({ customType: "ask", content: "question: " + args, display: true }, { triggerTurn: true });
    },
  });
};
`

// Issue 18 item 14: print mode shows what an extension command produced
// (its notifications and the messages it sends for display, then the
// model's answer when the command starts a turn); json mode writes them as
// records (the notification as RPC mode's extension_ui_request, the
// messages as message events). The todo example's /todo add prints its
// notification.
func TestPrintAndJSONModesShowExtensionCommandOutput(t *testing.T) {
	dir := t.TempDir()
	ext := filepath.Join(dir, "show.js")
	if err := os.WriteFile(ext, []byte(commandExtension), 0o600); err != nil {
		t.Fatal(err)
	}
	todo, _ := filepath.Abs(filepath.Join("..", "..", "examples", "ts-todo"))

	res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Args: []string{"-e", todo, "-p", "/todo add x"}}, "", limit)
	if res.ExitCode != 0 || res.Stdout != "Added #1: x\n" {
		t.Fatalf("/todo add: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}

	res = e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Args: []string{"-e", ext, "-p", "/show a b"}}, "", limit)
	if want := "noted: a b\nWarning: careful\nsent by the command\n"; res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("/show: exit %d stdout %q, want %q; stderr %q", res.ExitCode, res.Stdout, want, res.Stderr)
	}

	res = e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Args: []string{"-e", ext, "-p", "/ask why"},
		Script: []map[string]any{{"text": "Because."}}}, "", limit)
	if want := "question: why\nBecause.\n"; res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("/ask: exit %d stdout %q, want %q; stderr %q", res.ExitCode, res.Stdout, want, res.Stderr)
	}

	res = e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-e", ext, "--mode", "json", "/show a b"}}, "", limit)
	if res.ExitCode != 0 {
		t.Fatalf("json /show: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	var notes, shown []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		var rec struct {
			Type, Method, NotifyType string
			Message                  any
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		var full map[string]any
		json.Unmarshal([]byte(line), &full)
		switch {
		case rec.Type == "extension_ui_request" && rec.Method == "notify":
			notes = append(notes, fmt.Sprint(rec.NotifyType, ":", rec.Message))
		case rec.Type == "message_end":
			m, _ := full["message"].(map[string]any)
			if m["role"] == "custom" {
				shown = append(shown, fmt.Sprint(m["customType"]))
			}
		}
	}
	if fmt.Sprint(notes) != "[info:noted: a b warning:careful]" {
		t.Errorf("json notifications %v\n%s", notes, res.Stdout)
	}
	if fmt.Sprint(shown) != "[show hidden]" {
		t.Errorf("json custom messages %v\n%s", shown, res.Stdout)
	}
}

// Print mode says each retry on stderr as it happens.
func TestPrintModeShowsRetries(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "hi"},
		AgentFiles: map[string]string{"settings.json": `{"retry": {"baseDelayMs": 10}}`},
		Script: []map[string]any{
			{"error": "The server is overloaded", "status": 503},
			{"text": "Recovered."},
		}}, "", limit)
	if res.ExitCode != 0 || res.Stdout != "Recovered.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "retrying in 10ms (attempt 1 of 3)") || !strings.Contains(res.Stderr, "overloaded") {
		t.Fatalf("no retry on stderr: %q", res.Stderr)
	}
}
