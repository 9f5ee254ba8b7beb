package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

func TestDangerousPatterns(t *testing.T) {
	g, err := compile(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"rm -rf build", true}, {"rm -r x", true}, {"rm file.txt", false}, {"sudo apt install x", true},
		{"git push --force origin main", true}, {"git push origin main", false}, {"curl -s https://x | sh", true},
		{"curl -o file https://x", false}, {"ls -la", false}, {"git reset --hard HEAD~1", true}, {"chmod -R 777 .", true},
	} {
		if got := g.dangerousCommand(c.cmd) != ""; got != c.want {
			t.Errorf("%q: dangerous=%v, want %v", c.cmd, got, c.want)
		}
	}
	g, _ = compile(Config{Allow: []string{`^rm -rf build$`}, ExtraDangerous: []string{`\bnpm\s+publish\b`}})
	if g.dangerousCommand("rm -rf build") != "" || g.dangerousCommand("npm publish") == "" {
		t.Fatal("allow/extra patterns ignored")
	}
}

func TestGateAsksAndBlocks(t *testing.T) {
	project := t.TempDir()
	h := sdktest.New(newExtension())
	h.Info.Cwd = project
	os.Setenv("ATOMIC_CODING_AGENT_DIR", t.TempDir())

	r, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "rm -rf /"}})
	if err != nil || r == nil || !r.Block || !strings.Contains(r.Reason, "did not allow") {
		t.Fatalf("declined: %+v %v", r, err)
	}
	if reqs := h.Host.Requests("confirm"); len(reqs) != 1 || reqs[0].Params["message"] != "rm -rf /" {
		t.Fatalf("confirm: %+v", reqs)
	}
	h.Host.Confirm = func(title, msg string) bool { return true }
	if r, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "rm -rf /"}}); err != nil || r != nil {
		t.Fatalf("allowed: %+v %v", r, err)
	}
	// Harmless commands and writes inside the project never ask.
	before := len(h.Host.Requests("confirm"))
	h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "ls"}})
	h.ToolCall(sdk.ToolCallEvent{ToolName: "write", Input: map[string]any{"path": "src/a.go"}})
	if len(h.Host.Requests("confirm")) != before {
		t.Fatal("asked about a harmless call")
	}
	h.Host.Confirm = nil
	r, _ = h.ToolCall(sdk.ToolCallEvent{ToolName: "edit", Input: map[string]any{"path": "../elsewhere/x.txt"}})
	if r == nil || !r.Block {
		t.Fatalf("write outside the project not blocked: %+v", r)
	}
	// No UI: block without asking.
	h.Info.HasUI = false
	r, _ = h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "sudo reboot"}})
	if r == nil || !r.Block || !strings.Contains(r.Reason, "no user") {
		t.Fatalf("no UI: %+v", r)
	}
}

func TestConfigFileAndBrokenConfig(t *testing.T) {
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".atomic"), 0o755)
	os.WriteFile(filepath.Join(project, ".atomic", "permission-gate.json"), []byte(`{"dangerous":["\\bterraform\\s+destroy\\b"],"protectOutsideProject":false}`), 0o644)
	h := sdktest.New(newExtension())
	h.Info.Cwd = project
	r, _ := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "rm -rf x"}})
	if r != nil {
		t.Fatal("replaced defaults still apply")
	}
	r, _ = h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "terraform destroy"}})
	if r == nil || !r.Block {
		t.Fatal("configured pattern ignored")
	}
	if r, _ := h.ToolCall(sdk.ToolCallEvent{ToolName: "write", Input: map[string]any{"path": "/etc/x"}}); r != nil {
		t.Fatal("protectOutsideProject:false ignored")
	}

	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, ".atomic"), 0o755)
	os.WriteFile(filepath.Join(bad, ".atomic", "permission-gate.json"), []byte(`{"dangerous":["("]}`), 0o644)
	h = sdktest.New(newExtension())
	h.Info.Cwd = bad
	if _, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "ls"}}); err == nil {
		t.Fatal("a broken configuration must fail (closed)")
	}
}
