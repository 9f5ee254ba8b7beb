//go:build unix

package rpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// messages returns get_messages' messages.
func messages(t *testing.T, a *e2e.Agent) []map[string]any {
	t.Helper()
	raw := a.MustSucceed(map[string]any{"type": "get_messages"})["data"].(map[string]any)["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i] = m.(map[string]any)
	}
	return out
}

func bashRoles(msgs []map[string]any) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = fmt.Sprint(m["role"])
	}
	return out
}

func TestBashMessageReachesNextPrompt(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "ok"}}})
	a.MustSucceed(map[string]any{"type": "bash", "command": "echo hello-from-bash"})
	a.MustSucceed(map[string]any{"type": "bash", "command": "echo secret-output", "excludeFromContext": true})
	a.MustSucceed(map[string]any{"type": "bash", "command": "echo failing; exit 3"})
	a.MustSucceed(map[string]any{"type": "bash", "command": "true"})

	// Recorded without any event, in the session's messages.
	msgs := messages(t, a)
	if strings.Join(bashRoles(msgs), ",") != "bashExecution,bashExecution,bashExecution,bashExecution" {
		t.Fatalf("roles %v", bashRoles(msgs))
	}
	if msgs[1]["excludeFromContext"] != true || msgs[2]["exitCode"] != 3.0 {
		t.Fatalf("messages %v", msgs)
	}
	if recs := a.Records(0); len(recs) != 0 {
		for _, r := range recs {
			if r.Type() != "response" && r.Type() != "bash_execution_update" {
				t.Fatalf("unexpected event %v", r)
			}
		}
	}

	a.PromptAndWait("what happened?")
	reqs := a.FauxRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d provider requests", len(reqs))
	}
	texts := userTexts(reqs[0])
	want := []string{
		"Ran `echo hello-from-bash`\n```\nhello-from-bash\n\n```",
		"Ran `echo failing; exit 3`\n```\nfailing\n\n```\n\nCommand exited with code 3",
		"Ran `true`\n(no output)",
		"what happened?",
	}
	if strings.Join(texts, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Fatalf("user texts sent to the model:\n%q\nwant\n%q", texts, want)
	}
}

func TestBashCancelledAndTruncatedNotesInContext(t *testing.T) {
	tmp := t.TempDir()
	a := e2e.Start(t, e2e.Options{Env: map[string]string{"TMPDIR": tmp}, Script: []map[string]any{{"text": "ok"}}})
	from := a.Len()
	a.Send(map[string]any{"id": "c", "type": "bash", "command": "echo partial; sleep 100 & wait"})
	waitBashDelta(t, a, from, "c", "partial")
	a.MustSucceed(map[string]any{"type": "abort_bash", "requestId": "c"})
	d := bashData(t, a.MustSucceed(map[string]any{"type": "bash", "command": "seq 1 2500"}))
	a.PromptAndWait("go")
	texts := userTexts(a.FauxRequests()[0])
	if texts[0] != "Ran `echo partial; sleep 100 & wait`\n```\npartial\n\n```\n\n(command cancelled)" {
		t.Errorf("cancelled: %q", texts[0])
	}
	wantEnd := fmt.Sprintf("2500\n\n```\n\n[Output truncated. Full output: %s]", d["fullOutputPath"])
	if !strings.HasPrefix(texts[1], "Ran `seq 1 2500`\n```\n501\n502\n") || !strings.HasSuffix(texts[1], wantEnd) {
		t.Errorf("truncated: %q … %q", texts[1][:40], texts[1][len(texts[1])-120:])
	}
}

func TestBashDuringRunIsHeldUntilTheRunEnds(t *testing.T) {
	// The agent's own bash tool waits for a gate, so the run is known to
	// be in flight while the direct command completes.
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": waitFn + "w tool-gate; echo tool-done"}}}},
		{"text": "first answer"},
		{"text": "second answer"},
	}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "start"})
	a.WaitFrom(from, 15*time.Second, func(r e2e.Record) bool { return r.Type() == "tool_execution_start" })

	r := a.MustSucceed(map[string]any{"id": "during", "type": "bash", "command": "echo ran-during-run"})
	if bashData(t, r)["output"] != "ran-during-run\n" {
		t.Fatal(r)
	}
	for _, m := range messages(t, a) {
		if m["role"] == "bashExecution" {
			t.Fatal("bash message entered the context of the running turn")
		}
	}
	gate(t, a, "tool-gate")
	a.WaitType(from, "agent_end")
	reqs := a.FauxRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, txt := range userTexts(reqs[1]) {
		if strings.Contains(txt, "ran-during-run") {
			t.Fatal("bash output reached the running turn")
		}
	}
	// After the run it is in the context, after the run's messages.
	got := bashRoles(messages(t, a))
	if strings.Join(got, ",") != "user,assistant,toolResult,assistant,bashExecution" {
		t.Fatalf("roles after the run: %v", got)
	}
	a.PromptAndWait("next")
	texts := userTexts(a.FauxRequests()[2])
	if len(texts) != 3 || texts[1] != "Ran `echo ran-during-run`\n```\nran-during-run\n\n```" || texts[2] != "next" {
		t.Fatalf("next prompt's user texts: %q", texts)
	}
}

func TestBashOutlivesNewSession(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "fresh"}}})
	oldID := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"]
	from := a.Len()
	a.Send(map[string]any{"id": "own", "type": "bash", "command": waitFn + `echo "before $ATOMIC_SESSION_ID"; w go; echo after >&2`})
	waitBashDelta(t, a, from, "own", "before")
	a.MustSucceed(map[string]any{"type": "new_session"})
	newID := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"]
	if newID == oldID {
		t.Fatal("new_session kept the session id")
	}
	gate(t, a, "go")
	d := bashData(t, waitResponse(t, a, from, "own"))
	if d["output"] != fmt.Sprintf("before %s\nafter\n", oldID) {
		t.Fatalf("output %q", d["output"])
	}
	if streamText(updates(a.Records(from), "own"), "stderr") != "after\n" {
		t.Fatal("the delta after new_session did not stream under the original id")
	}
	// The replacement session is not touched, and the next prompt of
	// the new session does not see the command.
	if msgs := messages(t, a); len(msgs) != 0 {
		t.Fatalf("new session has messages %v", msgs)
	}
	a.PromptAndWait("hello")
	for _, txt := range userTexts(a.FauxRequests()[0]) {
		if strings.Contains(txt, "before") {
			t.Fatal("bash output of the old session reached the new session's context")
		}
	}
}

func TestBashTruncationPersistsFullOutput(t *testing.T) {
	tmp := t.TempDir()
	a := e2e.Start(t, e2e.Options{Env: map[string]string{"TMPDIR": tmp}})
	sid := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"].(string)
	// 3000 lines of 30 bytes: over both limits.
	r := a.MustSucceed(map[string]any{"type": "bash", "command": `i=1; while [ $i -le 3000 ]; do printf 'line %05d ....................\n' $i; i=$((i+1)); done`})
	d := bashData(t, r)
	if d["truncated"] != true || d["exitCode"] != 0.0 {
		t.Fatalf("data %v", d)
	}
	out := d["output"].(string)
	if len(out) > 50*1024 || strings.Count(out, "\n") > 2000 || !strings.HasSuffix(out, "line 03000 ....................\n") {
		t.Fatalf("output of %d bytes, %d lines, ends %q", len(out), strings.Count(out, "\n"), out[len(out)-40:])
	}
	path, _ := d["fullOutputPath"].(string)
	userDir := filepath.Join(tmp, fmt.Sprintf("atomic-%d", os.Getuid()))
	re := regexp.MustCompile("^" + regexp.QuoteMeta(filepath.Join(userDir, sid)) + `/atomic-bash-[0-9a-f]+\.log$`)
	if !re.MatchString(path) {
		t.Fatalf("fullOutputPath %q does not follow <tmpdir>/atomic-<uid>/<session-id>/atomic-bash-<random>.log", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 3000 || lines[0] != "line 00001 ...................." {
		t.Fatalf("full output has %d lines, first %q", len(lines), lines[0])
	}
	for p, want := range map[string]os.FileMode{userDir: 0o700 | os.ModeDir, filepath.Dir(path): 0o700 | os.ModeDir, path: 0o600} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
	// A short output is not persisted.
	if d := bashData(t, a.MustSucceed(map[string]any{"type": "bash", "command": "echo short"})); d["fullOutputPath"] != nil {
		t.Fatal(d)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("%d files in the session directory", len(ents))
	}
}

func TestBashRefusesPlantedSymlinks(t *testing.T) {
	big := `seq 1 3000`
	for _, where := range []string{"user", "session"} {
		t.Run(where, func(t *testing.T) {
			tmp := t.TempDir()
			target := t.TempDir()
			a := e2e.Start(t, e2e.Options{Env: map[string]string{"TMPDIR": tmp}})
			sid := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionId"].(string)
			userDir := filepath.Join(tmp, fmt.Sprintf("atomic-%d", os.Getuid()))
			link := userDir
			if where == "session" {
				if err := os.Mkdir(userDir, 0o700); err != nil {
					t.Fatal(err)
				}
				link = filepath.Join(userDir, sid)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			d := bashData(t, a.MustSucceed(map[string]any{"type": "bash", "command": big}))
			if d["truncated"] != true || d["exitCode"] != 0.0 {
				t.Fatalf("data %v", d)
			}
			if p, has := d["fullOutputPath"]; has {
				t.Fatalf("fullOutputPath %v through a planted symlink", p)
			}
			if ents, _ := os.ReadDir(target); len(ents) != 0 {
				t.Fatalf("wrote behind the symlink: %v", ents)
			}
		})
	}
}

func TestBashOutputRetention(t *testing.T) {
	tmp := t.TempDir()
	userDir := filepath.Join(tmp, fmt.Sprintf("atomic-%d", os.Getuid()))
	old := filepath.Join(userDir, "old-session", "atomic-bash-0123456789abcdef.log")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(userDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("old output\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(old, when, when); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(userDir, "fresh-session", "atomic-bash-fedcba9876543210.log")
	if err := os.MkdirAll(filepath.Dir(fresh), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fresh, []byte("fresh output\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2e.Start(t, e2e.Options{Env: map[string]string{"TMPDIR": tmp}})
	// Pruned at start: the old file and its directory go, the fresh one
	// stays.
	eventually(t, "the old output file to be pruned", func() bool {
		_, err := os.Lstat(filepath.Dir(old))
		return os.IsNotExist(err)
	})
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("fresh file: %v", err)
	}
}
