package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/testreq"
)

// TestRestoreOnForkThroughTheAgent: the model changes a file, the user
// forks from the prompt that preceded the change and chooses to restore.
func TestRestoreOnForkThroughTheAgent(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testreq.Missing(t, "git", "git is not on PATH")
	}
	dir := t.TempDir()
	git := exec.Command("git", "init", "-q")
	git.Dir = dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("original\n"), 0o644)

	bin := e2e.BuildPlugin(t, "./extensions/git-checkpoint")
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo changed > a.txt"}}}},
		{"text": "changed it"},
	}
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", bin}, Script: script, Dir: dir})
	a.PromptAndWait("change a.txt")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "changed\n" {
		t.Fatalf("the model's change did not happen: %q", b)
	}
	fm := a.MustSucceed(map[string]any{"type": "get_fork_messages"})["data"].(map[string]any)["messages"].([]any)
	if len(fm) != 1 {
		t.Fatalf("fork messages: %v", fm)
	}
	from := a.Len()
	a.Send(map[string]any{"id": "fork-1", "type": "fork", "entryId": fm[0].(map[string]any)["entryId"]})
	req := a.WaitType(from, "extension_ui_request")
	if req["method"] != "select" {
		t.Fatalf("%v", req)
	}
	a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": choiceRestore})
	resp := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool { return r.Type() == "response" && r["id"] == "fork-1" })
	if resp["success"] != true || resp["data"].(map[string]any)["cancelled"] == true {
		t.Fatalf("fork: %v", resp)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "original\n" {
		t.Fatalf("not restored: %q", b)
	}
}
