package rpc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

func sessionHeader(id, cwd, ts string) string {
	return `{"type":"session","version":3,"id":"` + id + `","timestamp":"` + ts + `","cwd":"` + cwd + `"}`
}

// startWithSession starts an agent that has saved one session: its
// state and its session file.
func startWithSession(t *testing.T) (*e2e.Agent, map[string]any, string) {
	t.Helper()
	a := e2e.Start(t, e2e.Options{})
	a.PromptAndWait("hello there")
	st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	own, _ := st["sessionFile"].(string)
	if own == "" {
		t.Fatal("no session file")
	}
	return a, st, own
}

func TestListSessions(t *testing.T) {
	a, st, own := startWithSession(t)
	dir := filepath.Dir(own)
	var cwd string
	if h, err := os.ReadFile(own); err == nil {
		cwd = strings.SplitN(strings.SplitN(string(h), `"cwd":"`, 2)[1], `"`, 2)[0]
	}
	write := func(dir, name, body string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// An older session of this directory, named (then renamed), with a
	// message line far longer than what list_sessions decodes.
	huge := strings.Repeat("x", 3<<20)
	old := write(dir, "old.jsonl", sessionHeader("aaaaaaaa-0000-4000-8000-000000000001", cwd, "2020-01-01T00:00:00.000Z")+"\n"+
		`{"type":"session_info","id":"i1","parentId":null,"timestamp":"2020-01-01T00:00:00.500Z","name":"first name"}`+"\n"+
		`{"type":"message","id":"u1","parentId":"i1","timestamp":"2020-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"fix"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"the bug"}],"timestamp":1577836801000}}`+"\n"+
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2020-01-02T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"`+huge+`"}],"timestamp":1577923200000}}`+"\n"+
		`{"type":"session_info","id":"i2","parentId":"a1","timestamp":"2020-01-01T00:00:03.000Z","name":" renamed "}`+"\n")
	// Not session files, and an empty session.
	write(dir, "garbage.jsonl", "not json\n")
	write(dir, "notes.txt", "x")
	empty := write(dir, "empty.jsonl", sessionHeader("aaaaaaaa-0000-4000-8000-000000000002", cwd, "2019-05-05T00:00:00.000Z")+"\n")
	// A session of another directory.
	otherDir := filepath.Join(a.AgentDir, "sessions", "--elsewhere--")
	other := write(otherDir, "o.jsonl", sessionHeader("aaaaaaaa-0000-4000-8000-000000000003", "/elsewhere", "2021-01-01T00:00:00.000Z")+"\n"+userLine("u1", "", "other work")+"\n")

	resp := a.MustSucceed(map[string]any{"type": "list_sessions"})
	list := arr(dataOf(t, resp), "sessions")
	var paths []string
	for _, s := range list {
		paths = append(paths, str(s.(map[string]any), "path"))
	}
	requireEqual(t, "cwd sessions, newest first", paths, []string{own, old, empty})
	o := list[1].(map[string]any)
	requireEqual(t, "old session", o, map[string]any{
		"path": old, "id": "aaaaaaaa-0000-4000-8000-000000000001", "cwd": cwd, "name": "renamed",
		"created": "2020-01-01T00:00:00.000Z", "modified": "2020-01-02T00:00:00.000Z",
		"messageCount": float64(2), "firstMessage": "fix the bug",
	})
	e := list[2].(map[string]any)
	if e["firstMessage"] != "(no messages)" || e["messageCount"] != float64(0) || e["modified"] != "2019-05-05T00:00:00.000Z" {
		t.Fatalf("empty session %v", e)
	}
	if _, has := e["name"]; has {
		t.Fatalf("unnamed session has a name: %v", e)
	}
	me := list[0].(map[string]any)
	if me["firstMessage"] != "hello there" || me["messageCount"] != float64(2) || me["id"] != st["sessionId"] {
		t.Fatalf("own session %v", me)
	}

	all := arr(dataOf(t, a.MustSucceed(map[string]any{"type": "list_sessions", "scope": "all"})), "sessions")
	paths = nil
	for _, s := range all {
		paths = append(paths, str(s.(map[string]any), "path"))
	}
	requireEqual(t, "all sessions", paths, []string{own, other, old, empty})

	if r := a.Request(map[string]any{"type": "list_sessions", "scope": "mine"}); r["success"] != false || !strings.Contains(str(r, "error"), `"cwd" or "all"`) {
		t.Fatalf("bad scope: %v", r)
	}
}

func TestListSessionsThroughClient(t *testing.T) {
	c := e2e.StartClient(t, e2e.Options{})
	ctx := e2e.Ctx(t, 20*time.Second)
	if _, err := c.PromptAndWait(ctx, "first prompt"); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListSessions(ctx, rpcclient.SessionScopeCwd)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := c.GetState(ctx)
	if len(list) != 1 || list[0].Path != st.SessionFile || list[0].FirstMessage != "first prompt" || list[0].MessageCount != 2 || list[0].Created == "" {
		t.Fatalf("sessions %+v", list)
	}
	if _, err := c.ListSessions(ctx, "bogus"); err == nil {
		t.Fatal("bad scope accepted")
	}
}

// Special files named *.jsonl in the session directory are left out of
// list_sessions (scope cwd and all) at once, and get_state, sent right
// behind, answers.
func TestListSessionsSkipsSpecialFiles(t *testing.T) {
	a, _, own := startWithSession(t)
	e2e.SpecialFiles(t, filepath.Dir(own), ".jsonl")
	for _, scope := range []string{"cwd", "all"} {
		from := a.Len()
		a.Send(map[string]any{"type": "list_sessions", "scope": scope, "id": "l-" + scope})
		a.Send(map[string]any{"type": "get_state", "id": "s-" + scope})
		if r := a.WaitResponse(from, "s-"+scope); r["success"] != true {
			t.Fatalf("get_state: %v", r)
		}
		r := a.WaitResponse(from, "l-"+scope)
		list := arr(dataOf(t, r), "sessions")
		if len(list) != 1 || str(list[0].(map[string]any), "path") != own {
			t.Fatalf("%s: sessions %v", scope, list)
		}
	}
}
