package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// newFauxRuntime starts a runtime on the faux model with a script and the
// given settings.json content, in an isolated agent directory.
func newFauxRuntime(t *testing.T, settings string, steps ...map[string]any) (*Runtime, *eventLog) {
	t.Helper()
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	if err := os.MkdirAll(agentDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		if err := os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "script.jsonl")
	var lines []byte
	for _, s := range steps {
		b, _ := json.Marshal(s)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(script, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ATOMIC_FAUX_SCRIPT", script)
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		t.Setenv(k, "")
	}
	paths := config.Paths{AgentDir: agentDir, ProjectDir: filepath.Join(dir, "proj", ".atomic"), Cwd: dir}
	loaded, err := config.Load(paths, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{Cwd: dir, Settings: loaded, NoTools: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	log := &eventLog{}
	rt.Subscribe(log.add)
	return rt, log
}

type eventLog struct {
	mu  sync.Mutex
	evs []events.Event
}

func (l *eventLog) add(ev events.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *eventLog) all() []events.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]events.Event(nil), l.evs...)
}

func (l *eventLog) waitFor(t *testing.T, typ string) events.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, ev := range l.all() {
			if ev.EventType() == typ {
				return ev
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s event", typ)
	return nil
}

func prompt(t *testing.T, rt *Runtime, text string) {
	t.Helper()
	start, err := rt.Prompt(PromptInput{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	start()
}

func TestRetryInProcess(t *testing.T) {
	rt, log := newFauxRuntime(t, `{"retry": {"baseDelayMs": 5, "maxRetries": 2}}`,
		map[string]any{"text": "partial", "error": "Overloaded", "status": 529},
		map[string]any{"error": "connection reset by peer"},
		map[string]any{"text": "fine"},
	)
	prompt(t, rt, "hi")
	if err := rt.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	var starts []events.AutoRetryStart
	var ends []events.AutoRetryEnd
	for _, ev := range log.all() {
		switch e := ev.(type) {
		case events.AutoRetryStart:
			starts = append(starts, e)
		case events.AutoRetryEnd:
			ends = append(ends, e)
		}
	}
	if len(starts) != 2 || starts[0].Attempt != 1 || starts[1].Attempt != 2 || starts[0].MaxAttempts != 2 || starts[1].DelayMs != 10 {
		t.Fatalf("starts %+v", starts)
	}
	if len(ends) != 1 || !ends[0].Success || ends[0].Attempt != 2 {
		t.Fatalf("ends %+v", ends)
	}
	msgs := rt.Messages()
	if len(msgs) != 2 || msgs[1].Text() != "fine" {
		t.Errorf("context %+v", msgs)
	}
}

func TestRetryDisabled(t *testing.T) {
	rt, log := newFauxRuntime(t, `{"retry": {"enabled": false}}`, map[string]any{"error": "Overloaded", "status": 529})
	prompt(t, rt, "hi")
	_ = rt.WaitIdle(context.Background())
	for _, ev := range log.all() {
		if ev.EventType() == "auto_retry_start" {
			t.Fatal("retried although disabled")
		}
	}
	msgs := rt.Messages()
	if last := msgs[len(msgs)-1]; last.StopReason != llm.StopError || last.ErrorMessage != "529 Overloaded" {
		t.Errorf("last message %+v", last)
	}
}

func TestAbortRetryInProcess(t *testing.T) {
	rt, log := newFauxRuntime(t, `{"retry": {"baseDelayMs": 60000}}`, map[string]any{"error": "Service Unavailable", "status": 503})
	prompt(t, rt, "hi")
	log.waitFor(t, "auto_retry_start")
	rt.AbortRetry()
	end := log.waitFor(t, "auto_retry_end").(events.AutoRetryEnd)
	if end.Success || end.FinalError != RetryCancelled {
		t.Errorf("end %+v", end)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rt.WaitIdle(ctx); err != nil {
		t.Fatal("run did not end after abort_retry")
	}
}

func TestThinkingFollowsModel(t *testing.T) {
	rt, log := newFauxRuntime(t, "")
	if rt.State().ThinkingLevel != llm.ThinkingMedium {
		t.Fatalf("initial level %q", rt.State().ThinkingLevel)
	}
	m, err := rt.SetModel("faux", "faux-2", false) // no reasoning
	if err != nil || m.ID != "faux-2" {
		t.Fatal(m, err)
	}
	if rt.State().ThinkingLevel != llm.ThinkingOff {
		t.Errorf("level on a non-reasoning model: %q", rt.State().ThinkingLevel)
	}
	if _, err := rt.SetModel("faux", "faux-1", false); err != nil {
		t.Fatal(err)
	}
	if rt.State().ThinkingLevel != llm.ThinkingMedium {
		t.Errorf("the wanted level should come back: %q", rt.State().ThinkingLevel)
	}
	var kinds []string
	for _, ev := range log.all() {
		switch e := ev.(type) {
		case events.ModelChanged:
			kinds = append(kinds, "model:"+e.Model.ID)
		case events.ThinkingLevelChanged:
			kinds = append(kinds, "thinking:"+e.Level)
		}
	}
	want := "model:faux-2,thinking:off,model:faux-1,thinking:medium"
	if got := join(kinds); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	// The changes are recorded in the session.
	var entries []string
	all, err := rt.Session().Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if e.Type == "model_change" || e.Type == "thinking_level_change" {
			entries = append(entries, e.Type)
		}
	}
	// A new session starts with the initial pair; each change adds its own.
	if got := join(entries); got != "model_change,thinking_level_change,model_change,thinking_level_change,model_change,thinking_level_change" {
		t.Errorf("session entries %s", got)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
