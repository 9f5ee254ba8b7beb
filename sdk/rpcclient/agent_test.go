package rpcclient_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// startAtomic starts the atomic binary TestMain built, in a fresh working
// directory and agent directory.
func startAtomic(t *testing.T, opts rpcclient.Options) *rpcclient.Client {
	t.Helper()
	agentDir := t.TempDir()
	opts.Env = append([]string{"ATOMIC_CODING_AGENT_DIR=" + agentDir}, opts.Env...)
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	c, err := rpcclient.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Stop(context.Background())
		if t.Failed() {
			t.Logf("agent stderr:\n%s", c.Stderr())
		}
	})
	return c
}

func TestAgentRoundTrip(t *testing.T) {
	c := startAtomic(t, rpcclient.Options{})
	st, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Model == nil || st.Model.ID != "faux-1" || st.IsStreaming || st.MessageCount != 0 || st.SessionID == "" {
		t.Fatalf("state %+v", st)
	}
	run, err := c.PromptAndWait(ctx(t), "ping")
	if err != nil {
		t.Fatal(err)
	}
	want := `You said: "ping". This is the offline faux model. To talk to a real model, set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or add a provider in ~/.atomic/agent/models.json) and start again; atomic --list-models shows what is available.`
	if run.Text() != want {
		t.Fatalf("reply %q", run.Text())
	}
	if len(run.Messages) != 2 || run.Messages[0].Role != "user" || run.Messages[0].Text() != "ping" {
		t.Fatalf("messages %+v", run.Messages)
	}
	if run.Events[0].Type != "agent_start" || run.Events[len(run.Events)-1].Type != "agent_end" {
		t.Errorf("events from %s to %s", run.Events[0].Type, run.Events[len(run.Events)-1].Type)
	}
	// The deltas rebuild the final text.
	text := ""
	for _, ev := range run.OfType("message_update") {
		var u rpcclient.MessageUpdate
		if err := ev.Decode(&u); err != nil {
			t.Fatal(err)
		}
		if u.AssistantMessageEvent.Type == "text_delta" {
			text += u.AssistantMessageEvent.Delta
		}
	}
	if text != want {
		t.Errorf("deltas %q", text)
	}
	last, ok, err := c.GetLastAssistantText(ctx(t))
	if err != nil || !ok || last != want {
		t.Fatalf("last assistant text %q %v %v", last, ok, err)
	}
	msgs, err := c.GetMessages(ctx(t))
	if err != nil || len(msgs) != 2 || msgs[1].Role != "assistant" || msgs[1].StopReason != "stop" || msgs[1].Usage == nil {
		t.Fatalf("messages %+v %v", msgs, err)
	}
	stats, err := c.GetSessionStats(ctx(t))
	if err != nil || stats.UserMessages != 1 || stats.AssistantMessages != 1 || stats.TotalMessages != 2 || stats.SessionID != st.SessionID {
		t.Fatalf("stats %+v %v", stats, err)
	}
	entries, err := c.GetEntries(ctx(t), "")
	if err != nil || len(entries.Entries) == 0 || entries.LeafID == nil || *entries.LeafID != entries.Entries[len(entries.Entries)-1].ID {
		t.Fatalf("entries %+v %v", entries, err)
	}
	if cancelled, err := c.NewSession(ctx(t), ""); err != nil || cancelled {
		t.Fatalf("new session %v %v", cancelled, err)
	}
	if _, ok, _ := c.GetLastAssistantText(ctx(t)); ok {
		t.Errorf("a new session has assistant text")
	}
}

func TestAgentErrors(t *testing.T) {
	c := startAtomic(t, rpcclient.Options{})
	_, err := c.Call(ctx(t), map[string]any{"type": "no_such_command"})
	var ce *rpcclient.CommandError
	if !errors.As(err, &ce) || ce.Message != "Unknown command: no_such_command" || ce.Command != "no_such_command" {
		t.Fatalf("%v", err)
	}
	_, err = c.SetModel(ctx(t), "nope", "missing", false)
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "nope/missing") {
		t.Fatalf("%v", err)
	}
	sub := c.Subscribe("response")
	defer sub.Close()
	if err := c.SendRaw([]byte("{oops\n")); err != nil {
		t.Fatal(err)
	}
	ev, err := sub.Next(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	m := ev.Map()
	if m["command"] != "parse" || m["success"] != false || !strings.HasPrefix(m["error"].(string), "Failed to parse command: ") {
		t.Fatalf("%s", ev.Raw)
	}
}

func TestAgentBashAndAbort(t *testing.T) {
	c := startAtomic(t, rpcclient.Options{})
	var out strings.Builder
	res, err := c.Bash(ctx(t), rpcclient.BashRequest{Command: "echo hello; echo oops >&2; exit 3", OnOutput: func(u rpcclient.BashUpdate) {
		out.WriteString(u.Channel + ":" + u.Delta)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == nil || *res.ExitCode != 3 || !strings.Contains(res.Output, "hello") || res.Cancelled {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(out.String(), "stdout:hello") || !strings.Contains(out.String(), "stderr:oops") {
		t.Fatalf("updates %q", out.String())
	}
	// A long command aborted by its id.
	id := c.NewID()
	done := make(chan *rpcclient.BashResult, 1)
	started := make(chan struct{}, 1)
	go func() {
		r, err := c.Bash(context.Background(), rpcclient.BashRequest{ID: id, Command: "echo started; sleep 30", OnOutput: func(rpcclient.BashUpdate) {
			select {
			case started <- struct{}{}:
			default:
			}
		}})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not start")
	}
	if err := c.AbortBash(ctx(t), id); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r == nil || !r.Cancelled || r.ExitCode != nil {
			t.Fatalf("%+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("abort_bash did not end the command")
	}
}

func TestAgentEndsOnCloseInputAndStop(t *testing.T) {
	c := startAtomic(t, rpcclient.Options{})
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	st, err := c.Wait(ctx(t))
	if err != nil || st.ExitCode() != 0 {
		t.Fatalf("exit after EOF: %v %v", st, err)
	}

	c = startAtomic(t, rpcclient.Options{})
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Stop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// atomic ends on SIGTERM by itself, well before the SIGKILL.
	st, _ = c.Wait(ctx(t))
	if st.ExitCode() != 0 || time.Since(start) > 900*time.Millisecond {
		t.Errorf("stop: %v after %v", st, time.Since(start))
	}
	var ee *rpcclient.ExitError
	if _, err := c.GetState(ctx(t)); !errors.As(err, &ee) {
		t.Fatalf("call after stop: %v", err)
	}
}

func TestAgentCommandsAndTemplates(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".atomic", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmpl := "---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $1.\n"
	if err := os.WriteFile(filepath.Join(dir, ".atomic", "prompts", "greet.md"), []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	// The project's template is used only in a trusted project.
	c := startAtomic(t, rpcclient.Options{Dir: dir, Args: []string{"--no-session", "--trust-project"}})
	cmds, err := c.GetCommands(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var greet *rpcclient.SlashCommand
	for i := range cmds {
		if cmds[i].Name == "greet" {
			greet = &cmds[i]
		}
	}
	if greet == nil || greet.Source != "prompt" || greet.Location != "project" || greet.Description != "Greet someone" || greet.ArgumentHint != "<name>" {
		t.Fatalf("greet: %+v in %+v", greet, cmds)
	}
	run, err := c.PromptAndWait(ctx(t), "/greet Ada")
	if err != nil {
		t.Fatal(err)
	}
	if run.Messages[0].Text() != "Say hello to Ada." {
		t.Fatalf("expanded %q", run.Messages[0].Text())
	}
}
