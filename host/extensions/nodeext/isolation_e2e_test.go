package nodeext_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// An extension that ends the shared Node process in every tool_call is
// disabled after its first crash; its neighbours restart without it and
// keep working, tool calls (bash included) run again, and get_extensions
// tells the truth.
func TestOffenderInTheSharedProcessIsDisabledAfterItsFirstCrash(t *testing.T) {
	needNode(t)
	bash := map[string]any{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo still-here"}}}}
	script := []map[string]any{bash, {"text": "one"}, bash, {"text": "two"}, bash, {"text": "three"}}
	a := start(t, script, map[string]any{"extensionRuntime": "node",
		"extensions": []any{abs(t, "nodeonly.ts"), abs(t, "nodeonly2.ts"), abs(t, "exiter.ts")}}, nil)
	from := a.Len()
	a.PromptAndWait("one")
	reports := map[string]string{}
	a.WaitFrom(from, 30*time.Second, func(r e2e.Record) bool {
		if r.Type() == "extension_error" && r["event"] == "crash" {
			reports[filepath.Base(r["extensionPath"].(string))], _ = r["error"].(string)
		}
		return len(reports) == 3
	})
	if !strings.Contains(reports["exiter.ts"], "disabled") || strings.Contains(reports["nodeonly.ts"], "disabled") {
		t.Fatalf("crash reports: %v", reports)
	}
	for _, p := range []string{"two", "three"} {
		from := a.Len()
		recs := a.PromptAndWait(p)
		if res := toolResultTexts(recs); len(res) != 1 || !strings.Contains(res[0], "still-here") {
			t.Fatalf("%s: bash after the offender was disabled: %v", p, res)
		}
		for _, r := range a.Records(from) {
			if r.Type() == "extension_error" {
				t.Fatalf("%s: another crash: %v", p, r)
			}
		}
	}
	st := statuses(t, a)
	if st["exiter.ts"]["state"] != "disabled" || st["nodeonly.ts"]["state"] != "loaded" || st["nodeonly2.ts"]["state"] != "loaded" {
		t.Fatalf("statuses: %v", st)
	}
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/pid2"})
	if ui := a.WaitType(from, "extension_ui_request"); !strings.HasPrefix(ui["message"].(string), "pid ") {
		t.Fatalf("neighbour: %v", ui)
	}
}

// Buffers (outside the V8 heap) in an isolated Node extension with
// "memoryLimitMB": 64 end its process past 128 MiB resident: extension_error
// names the extension and the reason, and the agent answers on. The
// handler stops at 512 MiB, so a regression fails the test, not the
// machine.
func TestNodeBuffersPastTheRSSLimitEndTheProcessNotTheAgent(t *testing.T) {
	needNode(t)
	a := start(t, nil, map[string]any{"extensionRuntime": "node",
		"extensions": []any{map[string]any{"path": abs(t, "buffers.ts"), "isolation": "process", "memoryLimitMB": 64}}}, nil)
	from := a.Len()
	a.Send(map[string]any{"type": "prompt", "message": "/buffers"})
	r := a.WaitFrom(from, 30*time.Second, func(r e2e.Record) bool {
		return (r.Type() == "extension_error" && r["event"] == "crash") || r.Type() == "extension_ui_request"
	})
	msg, _ := r["error"].(string)
	if r.Type() != "extension_error" || !strings.HasSuffix(r["extensionPath"].(string), "buffers.ts") ||
		!strings.Contains(msg, "passed the limit of 128 MiB") {
		t.Fatalf("want the RSS kill reported, got %v", r)
	}
	a.MustSucceed(map[string]any{"type": "get_state"})
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/ok"})
	if ui := a.WaitType(from, "extension_ui_request"); !strings.HasPrefix(ui["message"].(string), "ok ") {
		t.Fatalf("after the restart: %v", ui)
	}
}
