package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestGateThroughTheAgent runs the built gate under the agent: a dangerous
// command from the model becomes a confirm dialog for the RPC client.
func TestGateThroughTheAgent(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./extensions/permission-gate")
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "rm -rf ./build"}}}},
		{"text": "ok"},
	}
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", bin}, Script: script})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "clean up"})
	req := a.WaitType(from, "extension_ui_request")
	if req["method"] != "confirm" || req["message"] != "rm -rf ./build" {
		t.Fatalf("%v", req)
	}
	a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": false})
	a.WaitType(from, "agent_end")
	for _, r := range a.Records(from) {
		if r.Type() == "tool_execution_end" {
			if r["isError"] != true || !strings.Contains(fmt.Sprint(r["result"]), "did not allow") {
				t.Fatalf("%v", r)
			}
			return
		}
	}
	t.Fatal("no tool result")
}
