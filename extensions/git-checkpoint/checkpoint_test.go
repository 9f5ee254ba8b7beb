package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atomic-go/atomic/internal/testreq"
	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

func TestSnapshotAndRestoreOnFork(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testreq.Missing(t, "git", "git is not on PATH")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("ignored.txt\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ignored.txt"), []byte("keep me"), 0o644)

	h := sdktest.New(newExtension())
	h.Info.Cwd = dir
	if _, err := h.Event(sdk.EventBeforeAgentStart, sdk.BeforeAgentStartEvent{Prompt: "change a"}); err != nil {
		t.Fatal(err)
	}
	if len(h.Host.Entries) != 1 || h.Host.Entries[0].CustomType != EntryType {
		t.Fatalf("entries: %+v", h.Host.Entries)
	}
	// The agent changes files.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("created"), 0o644)
	// The user forks from a message after the checkpoint and says restore.
	h.Host.Entries = append(h.Host.Entries, sdktest.Entry{ID: "user-msg", CustomType: "placeholder"})
	h.Host.Select = func(title string, options []string) string { return choiceRestore }
	r, err := h.BeforeFork(sdk.SessionBeforeForkEvent{EntryID: "user-msg", Position: "before"})
	if err != nil || (r != nil && r.Cancel) {
		t.Fatalf("%+v %v", r, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one" {
		t.Fatalf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatal("a file created after the checkpoint survived the restore")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ignored.txt")); string(b) != "keep me" {
		t.Fatal("an ignored file was touched")
	}
	if err := h.RunCommand("checkpoints", ""); err != nil || len(h.Host.Requests("notify")) < 2 {
		t.Fatalf("checkpoints: %v", err)
	}
}

func TestOutsideGitDoesNothing(t *testing.T) {
	h := sdktest.New(newExtension())
	h.Info.Cwd = t.TempDir()
	if _, err := h.Event(sdk.EventBeforeAgentStart, sdk.BeforeAgentStartEvent{Prompt: "x"}); err != nil {
		t.Fatal(err)
	}
	if len(h.Host.Entries) != 0 {
		t.Fatal("checkpoint outside git")
	}
}
