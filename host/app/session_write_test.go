package app

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-go/atomic/host/events"
)

// The session directory is replaced by a regular file before the session
// file is created (a way to make it unwritable that also holds for root):
// one session_write_error for the streak, the conversation goes on in
// memory, and when the directory is back the held entries are written and
// session_write_recovered follows.
func TestSessionWriteErrorAndRecovery(t *testing.T) {
	rt := newSessionRuntime(t, Options{})
	var mu sync.Mutex
	var got []events.Event
	unsub := rt.Subscribe(func(ev events.Event) {
		switch ev.(type) {
		case events.SessionWriteError, events.SessionWriteRecovered:
			mu.Lock()
			got = append(got, ev)
			mu.Unlock()
		}
	})
	defer unsub()
	file := rt.Session().Path()
	sessions := filepath.Join(rt.paths.AgentDir, "sessions")
	if !strings.HasPrefix(file, sessions+string(filepath.Separator)) {
		t.Fatalf("session file %s is not under %s", file, sessions)
	}
	if err := os.WriteFile(sessions, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	runPrompt(t, rt, "one")
	runPrompt(t, rt, "two")
	mu.Lock()
	if len(got) != 1 {
		t.Fatalf("events after two failing prompts: %#v", got)
	}
	werr, ok := got[0].(events.SessionWriteError)
	if !ok || werr.SessionFile != file || !strings.Contains(werr.Error, "not a directory") {
		t.Fatalf("event: %#v", got[0])
	}
	mu.Unlock()
	if n := len(rt.Messages()); n != 4 {
		t.Fatalf("%d messages in memory", n)
	}

	if err := os.Remove(sessions); err != nil {
		t.Fatal(err)
	}
	runPrompt(t, rt, "three")
	mu.Lock()
	if len(got) != 2 || got[1] != (events.SessionWriteRecovered{SessionFile: file}) {
		t.Fatalf("events after recovery: %#v", got)
	}
	mu.Unlock()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"type":"message"`); n != 6 {
		t.Fatalf("%d messages in the file, want 6:\n%s", n, data)
	}
}
