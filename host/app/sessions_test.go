package app

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

func newSessionRuntime(t *testing.T, opts Options) *Runtime {
	t.Helper()
	dir := t.TempDir()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	opts.Settings = &config.Loaded{Paths: config.Paths{AgentDir: dir, Cwd: opts.Cwd}}
	rt, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	return rt
}

func runPrompt(t *testing.T, rt *Runtime, text string) {
	t.Helper()
	start, err := rt.Prompt(PromptInput{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	start()
	if err := rt.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestSessionHooksCancelAndLifecycle(t *testing.T) {
	rt := newSessionRuntime(t, Options{})
	runPrompt(t, rt, "one")
	var log []string
	cancel := true
	rt.SetSessionHooks(SessionHooks{
		BeforeSwitch: func(_ context.Context, ev SessionSwitchEvent) bool {
			log = append(log, "before_switch:"+ev.Reason)
			return cancel
		},
		BeforeFork: func(_ context.Context, ev SessionForkEvent) bool {
			log = append(log, "before_fork:"+ev.Position)
			return cancel
		},
		BeforeTree: func(context.Context, TreeEvent) TreeDecision {
			log = append(log, "before_tree")
			return TreeDecision{Cancel: cancel}
		},
		Shutdown: func(ev SessionLifecycleEvent) { log = append(log, "shutdown:"+ev.Reason) },
		Start:    func(ev SessionLifecycleEvent) { log = append(log, "start:"+ev.Reason) },
	})
	first := rt.Session()
	if c, err := rt.NewSession(""); err != nil || !c {
		t.Fatalf("new_session: cancelled %v err %v", c, err)
	}
	users, _ := first.UserMessages()
	res, err := rt.Fork(users[0].EntryID)
	if err != nil || !res.Cancelled || res.Text != "" {
		t.Fatalf("fork: %+v %v", res, err)
	}
	if c, err := rt.Clone(); err != nil || !c {
		t.Fatalf("clone: %v %v", c, err)
	}
	nav, err := rt.NavigateTree(users[0].EntryID, NavigateOptions{})
	if err != nil || !nav.Cancelled {
		t.Fatalf("navigate: %+v %v", nav, err)
	}
	if rt.Session() != first || first.Leaf() == "" {
		t.Fatal("a cancelled operation changed the session")
	}
	cancel = false
	if c, err := rt.NewSession(first.Path()); err != nil || c {
		t.Fatalf("new_session: %v %v", c, err)
	}
	if rt.Session() == first || rt.Session().Header().ParentSession != first.Path() {
		t.Fatal("new session not installed")
	}
	got := strings.Join(log, ",")
	want := "before_switch:new,before_fork:before,before_fork:at,before_tree,before_switch:new,shutdown:new,start:new"
	if got != want {
		t.Fatalf("hooks\n got %s\nwant %s", got, want)
	}
}

func TestLoadedContextIsLazy(t *testing.T) {
	rt := newSessionRuntime(t, Options{})
	runPrompt(t, rt, "one")
	runPrompt(t, rt, "two")
	path := rt.Session().Path()
	rt.Close()

	rt2 := newSessionRuntime(t, Options{SessionPath: path})
	if st := rt2.State(); st.MessageCount != 4 || st.SessionFile != path {
		t.Fatalf("state %+v", st)
	}
	rt2.mu.Lock()
	lazy := rt2.lazy != nil
	rt2.mu.Unlock()
	if !lazy {
		t.Fatal("the context was loaded to answer get_state")
	}
	text, ok := rt2.LastAssistantText()
	if !ok || !strings.Contains(text, "two") {
		t.Fatalf("last assistant text %q", text)
	}
	if n := rt2.SessionStats().TotalMessages; n != 4 {
		t.Fatalf("stats %d", n)
	}
	if msgs := rt2.Messages(); len(msgs) != 4 || msgs[0].Role != llm.RoleUser {
		t.Fatalf("messages %v", msgs)
	}
	runPrompt(t, rt2, "three")
	if st := rt2.State(); st.MessageCount != 6 {
		t.Fatalf("messageCount %d", st.MessageCount)
	}
}

func TestContextRulesSeam(t *testing.T) {
	rt := newSessionRuntime(t, Options{NoSession: true})
	runPrompt(t, rt, "one")
	id := rt.Session().Leaf()
	rt.Session().Append(session.Entry{Type: session.TypeCompaction, Summary: "S", FirstKeptEntryID: &id})
	rt.SetContextRules(session.ContextRules{
		Active: func(*session.Entry) bool { return true },
		Boundary: func(c *session.Entry, kept []*session.Entry) []llm.Message {
			return []llm.Message{llm.UserText("boundary " + c.Summary)}
		},
	})
	msgs := rt.Messages()
	if len(msgs) != 1 || msgs[0].Content.JoinText("") != "boundary S" {
		t.Fatalf("messages %+v", msgs)
	}
}
