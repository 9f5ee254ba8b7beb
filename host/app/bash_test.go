//go:build unix

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

func newBashRuntime(t *testing.T) *Runtime {
	t.Helper()
	t.Setenv("ATOMIC_CODING_AGENT_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	rt, err := New(Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	return rt
}

func bashMessages(s *session.Session) []llm.Message {
	var out []llm.Message
	entries, _ := s.Entries()
	for _, e := range entries {
		if e.Type == session.TypeMessage && e.Message.Role == llm.RoleBashExecution {
			out = append(out, *e.Message)
		}
	}
	return out
}

// gatedCommand waits in the shell until the gate file exists, then
// prints text.
func gatedCommand(dir, text string) (cmd, gate string) {
	gate = filepath.Join(dir, "gate")
	return `while [ ! -e '` + gate + `' ]; do sleep 0.01; done; echo ` + text, gate
}

func TestRunBashRecordsInOwningSessionAcrossNewSession(t *testing.T) {
	rt := newBashRuntime(t)
	rt.mu.Lock()
	oldSess := rt.sess
	rt.mu.Unlock()

	cmd, gate := gatedCommand(t.TempDir(), "late")
	cmd = "echo started; " + cmd
	done := make(chan BashResult, 1)
	started := make(chan struct{})
	go func() {
		res, err := rt.RunBash(context.Background(), BashRequest{Command: cmd, OnOutput: func(_, text string) {
			if text == "started\n" {
				close(started)
			}
		}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// Replace the session while the command runs.
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("command did not start")
	}
	if _, err := rt.NewSession(""); err != nil {
		t.Fatal(err)
	}
	rt.mu.Lock()
	newSess := rt.sess
	rt.mu.Unlock()
	if newSess == oldSess {
		t.Fatal("session not replaced")
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Output != "started\nlate\n" {
		t.Fatalf("output %q", res.Output)
	}
	if got := bashMessages(oldSess); len(got) != 1 || got[0].Output != "started\nlate\n" || got[0].Command != cmd {
		t.Fatalf("old session bash messages: %+v", got)
	}
	if got := bashMessages(newSess); len(got) != 0 {
		t.Fatalf("new session touched: %+v", got)
	}
	if msgs := rt.Messages(); len(msgs) != 0 {
		t.Fatalf("runtime messages of the new session: %+v", msgs)
	}
}

func TestRunBashKeepsMessagesAndEntriesConsistent(t *testing.T) {
	rt := newBashRuntime(t)
	for _, c := range []string{"echo one", "echo two; exit 2"} {
		if _, err := rt.RunBash(context.Background(), BashRequest{Command: c, ExcludeFromContext: c == "echo one"}); err != nil {
			t.Fatal(err)
		}
	}
	msgs := rt.Messages()
	rt.mu.Lock()
	entries := bashMessages(rt.sess)
	rt.mu.Unlock()
	if len(msgs) != 2 || len(entries) != 2 {
		t.Fatalf("%d messages, %d entries", len(msgs), len(entries))
	}
	for i := range msgs {
		if msgs[i].Command != entries[i].Command || msgs[i].Output != entries[i].Output {
			t.Fatalf("message %d differs from its entry: %+v vs %+v", i, msgs[i], entries[i])
		}
	}
	if !msgs[0].ExcludeFromContext || msgs[1].ExitCode == nil || *msgs[1].ExitCode != 2 {
		t.Fatalf("messages %+v", msgs)
	}
	// The model sees only the second one.
	conv := llm.ToProviderMessages(msgs)
	if len(conv) != 1 || !strings.Contains(conv[0].Text(), "Command exited with code 2") {
		t.Fatalf("converted %+v", conv)
	}
}

func TestRunBashHeldWhileRunning(t *testing.T) {
	rt := newBashRuntime(t)
	// Pretend a run is in flight.
	rt.mu.Lock()
	run := rt.beginRunLocked()
	rt.mu.Unlock()
	if _, err := rt.RunBash(context.Background(), BashRequest{Command: "echo held"}); err != nil {
		t.Fatal(err)
	}
	if len(rt.Messages()) != 0 {
		t.Fatal("message added during the run")
	}
	// The run decides to finish (as it does just before agent_end).
	if next := rt.nextOrFinish(run); next != nil {
		t.Fatalf("unexpected continuation %v", next)
	}
	run.cancel()
	close(run.done)
	close(run.settled)
	if msgs := rt.Messages(); len(msgs) != 1 || msgs[0].Output != "held\n" {
		t.Fatalf("after the run: %+v", msgs)
	}
}

func TestRunBashEmptyCommand(t *testing.T) {
	rt := newBashRuntime(t)
	if _, err := rt.RunBash(context.Background(), BashRequest{Command: "  "}); err != ErrEmptyCommand {
		t.Fatalf("err %v", err)
	}
}

func TestRunBashCancelledBeforeStart(t *testing.T) {
	rt := newBashRuntime(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := rt.RunBash(ctx, BashRequest{Command: "echo never"})
	if err != nil || !res.Cancelled || res.ExitCode != nil || res.Output != "" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if msgs := rt.Messages(); len(msgs) != 1 || !msgs[0].Cancelled {
		t.Fatalf("messages %+v", msgs)
	}
}
