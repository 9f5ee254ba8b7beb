package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

var clientCaps = sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}

// toolText returns the text content and the raw output of the final
// update of tool call id, and whether it showed a terminal.
func toolText(ns []sdk.SessionNotification, id string) (text, raw string, terminal bool) {
	for _, n := range ns {
		tu := n.Update.ToolCallUpdate
		if tu == nil || string(tu.ToolCallId) != id {
			continue
		}
		for _, c := range tu.Content {
			if c.Content != nil && c.Content.Content.Text != nil {
				text = c.Content.Content.Text.Text
			}
			terminal = terminal || c.Terminal != nil
		}
		if tu.RawOutput != nil {
			b, _ := json.Marshal(tu.RawOutput)
			raw = string(b)
		}
	}
	return text, raw, terminal
}

// TestACPClientFsAndTerminal: with acp.useClientFs and
// acp.useClientTerminal on and the capabilities advertised, read, edit
// and write work on the editor's buffers (the disk is left alone) and
// bash runs in the editor's terminal, shown in the tool call.
func TestACPClientFsAndTerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("disk text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"toolCalls": []map[string]any{{"name": name, "id": id, "arguments": args}}}
	}
	s := start(t, e2e.Options{Dir: dir,
		AgentFiles: map[string]string{"settings.json": `{"acp": {"useClientFs": true, "useClientTerminal": true}}`},
		Script: []map[string]any{
			call("r1", "read", map[string]any{"path": "f.txt"}), {"text": "read"},
			call("e1", "edit", map[string]any{"path": "f.txt", "oldText": "buffer", "newText": "edited"}), {"text": "edited"},
			call("w1", "write", map[string]any{"path": "new.txt", "content": "fresh"}), {"text": "wrote"},
			call("b1", "bash", map[string]any{"command": "echo term-$((6*7)); pwd"}), {"text": "ran"},
			call("b2", "bash", map[string]any{"command": "sleep 60"}), {"text": "never"},
		}})
	f := filepath.Join(dir, "f.txt")
	s.ed.files = map[string]string{f: "buffer text, unsaved\n"}
	s.ed.terms = map[string]*editorTerminal{}
	s.initWith(t, clientCaps)
	for _, p := range []string{"read", "edit", "write", "bash"} {
		if r := s.prompt(t, p); r != sdk.StopReasonEndTurn {
			t.Fatalf("%s: stop reason %q", p, r)
		}
	}
	ns := s.ed.snapshot()
	if text, _, _ := toolText(ns, "r1"); text != "buffer text, unsaved\n" {
		t.Fatalf("read gave %q", text)
	}
	s.ed.mu.Lock()
	buf, fresh := s.ed.files[f], s.ed.files[filepath.Join(dir, "new.txt")]
	created, released := s.ed.created, s.ed.released
	s.ed.mu.Unlock()
	if buf != "edited text, unsaved\n" || fresh != "fresh" {
		t.Fatalf("buffers: %q %q", buf, fresh)
	}
	if b, _ := os.ReadFile(f); string(b) != "disk text\n" {
		t.Fatalf("the disk changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Fatal("write touched the disk")
	}
	if len(created) != 1 || len(created[0].Args) != 2 || created[0].Args[0] != "-c" || created[0].Cwd == nil || *created[0].Cwd != dir {
		t.Fatalf("terminal/create: %+v", created)
	}
	if len(released) != 1 {
		t.Fatalf("terminals released: %v", released)
	}
	_, raw, terminal := toolText(ns, "b1")
	if !terminal || !strings.Contains(raw, "term-42") || !strings.Contains(raw, dir) {
		t.Fatalf("bash: terminal %v, output %s", terminal, raw)
	}

	// session/cancel while the command runs: the terminal is killed and
	// released, the prompt answers cancelled.
	releasedSig := make(chan string, 1)
	s.ed.mu.Lock()
	s.ed.onRelease = releasedSig
	s.ed.mu.Unlock()
	res := s.promptAsync(t, "sleep")
	s.ed.waitFor(t, "the terminal of b2", func(u sdk.SessionUpdate) bool {
		if tu := u.ToolCallUpdate; tu != nil && tu.ToolCallId == "b2" {
			for _, c := range tu.Content {
				if c.Terminal != nil {
					return true
				}
			}
		}
		return false
	})
	s.cancel(t, res)
	s.ed.mu.Lock()
	term := s.ed.terms["term-2"]
	s.ed.mu.Unlock()
	select {
	case <-term.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the command was not killed")
	}
	select {
	case id := <-releasedSig:
		if id != "term-2" {
			t.Fatalf("released %s", id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the terminal was not released")
	}
}

// TestACPClientFsOffByDefault: without the settings the tools use the disk
// even when the client offers its files and terminal.
func TestACPClientFsOffByDefault(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("disk text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, e2e.Options{Dir: dir, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "read", "id": "r1", "arguments": map[string]any{"path": "f.txt"}}}}, {"text": "read"},
		{"toolCalls": []map[string]any{{"name": "bash", "id": "b1", "arguments": map[string]any{"command": "echo local"}}}}, {"text": "ran"},
	}})
	s.ed.files = map[string]string{filepath.Join(dir, "f.txt"): "buffer"}
	s.ed.terms = map[string]*editorTerminal{}
	s.initWith(t, clientCaps)
	s.prompt(t, "read")
	s.prompt(t, "bash")
	if text, _, _ := toolText(s.ed.snapshot(), "r1"); text != "disk text\n" {
		t.Fatalf("read gave %q", text)
	}
	if _, raw, terminal := toolText(s.ed.snapshot(), "b1"); terminal || !strings.Contains(raw, "local") || len(s.ed.created) != 0 {
		t.Fatalf("bash: terminal %v, output %s", terminal, raw)
	}
}
