package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
	"github.com/atomic-go/atomic/host/session"
)

// compactRuntime is a runtime on the faux model with scripted steps.
func compactRuntime(t *testing.T, steps ...faux.Step) (*Runtime, *eventLog) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("ATOMIC_FAUX_SCRIPT", "")
	loaded, err := config.Load(config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{Cwd: dir, Settings: loaded, NoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	rt.catalog.RegisterAPI(faux.API, faux.NewWithSteps(steps...))
	log := &eventLog{}
	rt.Subscribe(log.add)
	t.Cleanup(rt.Close)
	return rt, log
}

func (l *eventLog) types() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ev := range l.evs {
		out = append(out, ev.EventType())
	}
	return out
}

func (l *eventLog) last(typ string) events.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.evs) - 1; i >= 0; i-- {
		if l.evs[i].EventType() == typ {
			return l.evs[i]
		}
	}
	return nil
}

func answers(n int) []faux.Step {
	var out []faux.Step
	for i := 0; i < n; i++ {
		out = append(out, faux.Step{Text: fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i)})
	}
	return out
}

// promptAndWait runs a prompt to the end.
func promptAndWait(t *testing.T, rt *Runtime, text string) {
	t.Helper()
	start, err := rt.Prompt(PromptInput{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	start()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rt.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func compactionEntries(rt *Runtime) []*session.Entry {
	var out []*session.Entry
	for _, e := range rt.sess.Branch("") {
		if e.Type == session.TypeCompaction {
			out = append(out, e)
		}
	}
	return out
}

func TestCompactHookCancels(t *testing.T) {
	rt, log := compactRuntime(t, answers(5)...)
	for i := 0; i < 5; i++ {
		promptAndWait(t, rt, fmt.Sprintf("request %d", i))
	}
	var seen BeforeCompactEvent
	rt.SetCompactionHooks(CompactionHooks{Before: func(ctx context.Context, ev BeforeCompactEvent) (BeforeCompactDecision, error) {
		seen = ev
		return BeforeCompactDecision{Cancel: true}, nil
	}})
	if _, err := rt.Compact(context.Background()); !errors.Is(err, compaction.ErrCancelled) {
		t.Fatalf("err %v", err)
	}
	if seen.Reason != "manual" || seen.Preparation == nil || seen.Preparation.Region.Len() != 23 {
		t.Fatalf("hook saw %+v", seen)
	}
	end := log.last("compaction_end").(events.CompactionEnd)
	if !end.Aborted || end.Result != nil || len(compactionEntries(rt)) != 0 {
		t.Fatalf("end %+v", end)
	}
}

func TestCompactHookSuppliesText(t *testing.T) {
	rt, _ := compactRuntime(t, answers(5)...)
	for i := 0; i < 5; i++ {
		promptAndWait(t, rt, fmt.Sprintf("request %d", i))
	}
	blank := "  \n"
	rt.SetCompactionHooks(CompactionHooks{Before: func(ctx context.Context, ev BeforeCompactEvent) (BeforeCompactDecision, error) {
		return BeforeCompactDecision{CompactedText: &blank}, nil
	}})
	if _, err := rt.Compact(context.Background()); err == nil || err.Error() != noCompactedText {
		t.Fatalf("blank text: %v", err)
	}

	text := "[User]: the gist\n(filtered 22 lines)"
	var after CompactEvent
	rt.SetCompactionHooks(CompactionHooks{
		Before: func(ctx context.Context, ev BeforeCompactEvent) (BeforeCompactDecision, error) {
			return BeforeCompactDecision{CompactedText: &text}, nil
		},
		After: func(ctx context.Context, ev CompactEvent) { after = ev },
	})
	res, err := rt.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rung != compaction.RungExtension || res.CompactedText != text || res.Stats.LinesKept != 2 {
		t.Fatalf("result %+v", res)
	}
	es := compactionEntries(rt)
	if len(es) != 1 || es[0].Summary != text || !after.FromExtension || after.CompactionEntry.ID != es[0].ID {
		t.Fatalf("entries %v after %+v", es, after)
	}
	// The extension never asked the model: no planner step was consumed.
	msgs := rt.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text(), text+"\n\n[User]: request 4") {
		t.Fatalf("context %+v", msgs)
	}

}

func TestPromptWaitsForCompactionOutsideRun(t *testing.T) {
	steps := append(answers(5), faux.Step{Text: "1,4\n", Chunks: 4, DelayMs: 100}, faux.Step{Text: "after"})
	rt, log := compactRuntime(t, steps...)
	for i := 0; i < 5; i++ {
		promptAndWait(t, rt, fmt.Sprintf("request %d", i))
	}
	done := make(chan error, 1)
	go func() {
		_, err := rt.runCompaction(context.Background(), events.CompactionManual, compaction.Recoverable, false)
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !rt.IsCompacting() {
		if time.Now().After(deadline) {
			t.Fatal("compaction did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := rt.State(); !st.IsCompacting {
		t.Fatal("state should report compacting")
	}
	promptAndWait(t, rt, "while compacting")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	types := strings.Join(log.types(), " ")
	iEnd := strings.LastIndex(types, "compaction_end")
	iStart := strings.LastIndex(types, "agent_start")
	if iEnd < 0 || iStart < iEnd {
		t.Fatalf("the prompt ran before the compaction ended: %s", types)
	}
	if text, _ := rt.LastAssistantText(); text != "after" {
		t.Fatalf("last text %q", text)
	}
}

func TestThresholdUsesLatestAssistantUsage(t *testing.T) {
	rt, _ := compactRuntime(t)
	m := faux.Models()[1]
	rt.model = &m
	limit := m.ContextWindow - rt.settings.Compaction.ReserveTokens
	rt.lazy = nil
	rt.messages = []llm.Message{{Role: llm.RoleAssistant, StopReason: llm.StopStop, Usage: llm.Usage{Input: limit + 1}}}
	if !rt.thresholdExceeded() {
		t.Fatal("above the limit")
	}
	rt.messages[0].Usage.Input = limit
	if rt.thresholdExceeded() {
		t.Fatal("at the limit")
	}
	rt.messages = append(rt.messages, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopAborted, Usage: llm.Usage{Input: limit * 2}})
	if rt.thresholdExceeded() {
		t.Fatal("an aborted message is not a measurement")
	}
	rt.autoCompact = false
	rt.messages = rt.messages[:1]
	rt.messages[0].Usage.Input = limit * 2
	if rt.thresholdExceeded() {
		t.Fatal("disabled")
	}
}

// fileRuntime is testRuntime on a session file.
func fileRuntime(t *testing.T, path string, steps ...faux.Step) *Runtime {
	t.Helper()
	dir := filepath.Dir(path)
	loaded, err := config.Load(config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{Cwd: dir, Settings: loaded, SessionPath: path})
	if err != nil {
		t.Fatal(err)
	}
	rt.catalog.RegisterAPI(faux.API, faux.NewWithSteps(steps...))
	t.Cleanup(rt.Close)
	return rt
}

func TestCrashBetweenBackupAndAppendLeavesSessionLoadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	rt := fileRuntime(t, path, append(answers(5), faux.Step{Text: "1,4\n"})...)
	for i := 0; i < 5; i++ {
		promptAndWait(t, rt, fmt.Sprintf("request %d", i))
	}
	rt.cmp.afterBackup = func() error { return errors.New("simulated crash") }
	if _, err := rt.Compact(context.Background()); err == nil || err.Error() != "simulated crash" {
		t.Fatalf("err %v", err)
	}
	rt.Close()

	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	baks, _ := filepath.Glob(path + ".*.compact.bak")
	if len(baks) != 1 {
		t.Fatalf("backups %v", baks)
	}
	bak, _ := os.ReadFile(baks[0])
	if !bytes.Equal(bak, before) {
		t.Fatal("the session file changed although nothing was appended")
	}
	// A torn compaction line (the process died mid-write) is skipped.
	torn := `{"type":"compaction","id":"deadbeef","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","summary":"(filtered`
	if err := os.WriteFile(path, append(before, torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, baks[0]} {
		s, err := session.Open(p, filepath.Dir(path))
		if err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		es, err := s.Entries()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Type == session.TypeCompaction {
				t.Fatalf("%s: unexpected compaction entry", p)
			}
		}
		s.Close()
	}

	// The session reopens, compacts and stays loadable.
	rt2 := fileRuntime(t, path, faux.Step{Text: "1,4\n"})
	if n := len(rt2.Messages()); n != 10 {
		t.Fatalf("messages after reopen %d", n)
	}
	res, err := rt2.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rt2.Close()
	s, err := session.Open(path, filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := compaction.BuildContext(s.Branch(""))
	if len(c.Messages) != 1 || !strings.Contains(c.Messages[0].Text(), res.CompactedText) {
		t.Fatalf("context after reload: %+v", c.Messages)
	}
}
