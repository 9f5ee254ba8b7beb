package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
)

func newRuntime(t *testing.T, script ...string) *app.Runtime {
	t.Helper()
	dir := t.TempDir()
	path := ""
	if len(script) > 0 {
		path = filepath.Join(dir, "script.jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(script, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ATOMIC_FAUX_SCRIPT", path)
	t.Setenv("ATOMIC_FAUX_RECORD", "")
	loaded, err := config.Load(config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := app.New(app.Options{Cwd: dir, Settings: loaded})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	return rt
}

func prompt(t *testing.T, rt *app.Runtime, text string) {
	t.Helper()
	start, err := rt.Prompt(app.PromptInput{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	start()
}

func waitIdle(t *testing.T, rt *app.Runtime) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rt.WaitIdle(ctx); err != nil {
		t.Fatal("the run did not end")
	}
}

type recorder struct {
	mu    sync.Mutex
	types []string
}

func (r *recorder) add(ev events.Event) {
	r.mu.Lock()
	r.types = append(r.types, ev.EventType())
	r.mu.Unlock()
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.types...)
}

func TestIdleWhenAgentEndIsEmitted(t *testing.T) {
	rt := newRuntime(t)
	var rec recorder
	var streaming bool
	var count int
	var again error
	rt.Subscribe(func(ev events.Event) {
		rec.add(ev)
		if _, ok := ev.(events.AgentEnd); ok && count == 0 {
			streaming = rt.IsStreaming()
			count = rt.State().MessageCount
			// A client that reacts at once may start the next prompt.
			var start func()
			start, again = rt.Prompt(app.PromptInput{Text: "next"})
			if start != nil {
				start()
			}
		}
	})
	prompt(t, rt, "first")
	waitIdle(t, rt)
	if streaming || count != 2 || again != nil {
		t.Fatalf("at agent_end: streaming=%v messages=%d prompt error=%v", streaming, count, again)
	}
	// The second run starts only after the first one settled.
	want := "agent_start turn_start message_start message_end message_start message_update message_update message_update message_update message_update message_update message_end turn_end agent_end"
	got := strings.Join(rec.list(), " ")
	if !strings.HasPrefix(got, want+" agent_settled agent_start") || !strings.HasSuffix(got, "agent_end agent_settled") {
		t.Fatalf("events:\n%s", got)
	}
	if n := rt.State().MessageCount; n != 4 {
		t.Fatalf("messages = %d", n)
	}
}

func TestWaitIdleWaitsForAgentSettled(t *testing.T) {
	rt := newRuntime(t)
	var rec recorder
	rt.Subscribe(rec.add)
	for i := 0; i < 20; i++ {
		prompt(t, rt, "x")
		waitIdle(t, rt)
		got := rec.list()
		if got[len(got)-1] != "agent_settled" {
			t.Fatalf("WaitIdle returned before agent_settled: %v", got[len(got)-3:])
		}
	}
}

func TestAbortWaitsForAFinishingRun(t *testing.T) {
	rt := newRuntime(t)
	release := make(chan struct{})
	var aborted chan bool
	rt.Subscribe(func(ev events.Event) {
		if _, ok := ev.(events.AgentEnd); ok && aborted == nil {
			// The run has decided to end but is still emitting: an abort
			// now must wait for it.
			aborted = make(chan bool, 1)
			go func() { aborted <- rt.AbortRun() }()
			select {
			case <-aborted:
				t.Errorf("abort returned while agent_end was being emitted")
			case <-time.After(50 * time.Millisecond):
			}
			close(release)
		}
	})
	prompt(t, rt, "x")
	<-release
	select {
	case ok := <-aborted:
		if !ok {
			t.Fatal("abort did not see the finishing run")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("abort did not return")
	}
}

func TestQueueEventsMatchTheQueue(t *testing.T) {
	rt := newRuntime(t)
	var mu sync.Mutex
	var last events.QueueUpdate
	rt.Subscribe(func(ev events.Event) {
		if q, ok := ev.(events.QueueUpdate); ok {
			mu.Lock()
			last = q
			mu.Unlock()
		}
	})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				switch (g + i) % 3 {
				case 0:
					_ = rt.Steer("s", nil)
				case 1:
					_ = rt.FollowUp("f", nil)
				default:
					rt.ClearQueue()
				}
			}
		}(g)
	}
	wg.Wait()
	st := rt.State()
	mu.Lock()
	defer mu.Unlock()
	if n := len(last.Steering) + len(last.FollowUp); n != st.PendingMessageCount {
		t.Fatalf("last queue_update lists %d messages, the queue holds %d", n, st.PendingMessageCount)
	}
}
