package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Black-box tests of the session commands and files, through --mode rpc.

func data(r e2e.Record) map[string]any {
	d, _ := r["data"].(map[string]any)
	return d
}

func state(a *e2e.Agent) map[string]any {
	return data(a.MustSucceed(map[string]any{"type": "get_state"}))
}

// fileLines reads a JSONL file into objects (every line must be JSON).
func fileLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s line %d is not JSON: %q", path, i+1, line)
		}
		out = append(out, m)
	}
	return out
}

func entryTypes(lines []map[string]any) string {
	var out []string
	for _, l := range lines {
		s := l["type"].(string)
		if m, ok := l["message"].(map[string]any); ok {
			s += ":" + m["role"].(string)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func entries(a *e2e.Agent, since string) ([]map[string]any, any) {
	cmd := map[string]any{"type": "get_entries"}
	if since != "" {
		cmd["since"] = since
	}
	d := data(a.MustSucceed(cmd))
	var out []map[string]any
	for _, e := range d["entries"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out, d["leafId"]
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestSessionFileLifecycle(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	st := state(a)
	path, _ := st["sessionFile"].(string)
	wantDir := filepath.Join(a.AgentDir, "sessions")
	if !strings.HasPrefix(path, wantDir) || !strings.HasSuffix(path, "_"+st["sessionId"].(string)+".jsonl") {
		t.Fatalf("sessionFile %q", path)
	}
	if filepath.Base(filepath.Dir(path)) != "--"+strings.ReplaceAll(strings.TrimPrefix(a.Dir, "/"), "/", "-")+"--" {
		t.Fatalf("session dir %q for cwd %q", filepath.Dir(path), a.Dir)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("session file exists before any assistant message")
	}
	if st["messageCount"].(float64) != 0 {
		t.Fatalf("messageCount %v", st["messageCount"])
	}
	a.PromptAndWait("first")
	lines := fileLines(t, path)
	if got := entryTypes(lines); got != "session,model_change,thinking_level_change,message:user,message:assistant" {
		t.Fatalf("file %s", got)
	}
	h := lines[0]
	if h["version"].(float64) != 3 || h["id"] != st["sessionId"] || h["cwd"] != a.Dir {
		t.Fatalf("header %v", h)
	}
	for i, l := range lines[1:] {
		if id, _ := l["id"].(string); len(id) != 8 {
			t.Fatalf("entry id %q", id)
		}
		if i > 0 && l["parentId"] != lines[i]["id"] {
			t.Fatalf("entry %d parent %v", i+1, l["parentId"])
		}
	}
	a.PromptAndWait("second")
	if n := len(fileLines(t, path)); n != 7 {
		t.Fatalf("%d lines after the second prompt", n)
	}
	if c := state(a)["messageCount"].(float64); c != 4 {
		t.Fatalf("messageCount %v", c)
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)

	// --session reopens it; the model sees the earlier turns.
	b := e2e.Start(t, e2e.Options{Args: []string{"--session", path}, Dir: a.Dir})
	st = state(b)
	if st["sessionId"] != h["id"] || st["messageCount"].(float64) != 4 || st["sessionFile"] != path {
		t.Fatalf("reopened state %v", st)
	}
	b.PromptAndWait("third")
	reqs := b.FauxRequests()
	msgs := reqs[len(reqs)-1]["messages"].([]any)
	if len(msgs) != 5 {
		t.Fatalf("the model got %d messages, want 5", len(msgs))
	}
	if n := len(fileLines(t, path)); n != 9 {
		t.Fatalf("%d lines after resuming", n)
	}
	b.CloseStdin()
	b.Wait(10 * time.Second)

	// -c continues the latest session of this directory.
	c := e2e.Start(t, e2e.Options{Args: []string{"-c"}, Dir: a.Dir, Env: map[string]string{"ATOMIC_CODING_AGENT_DIR": a.AgentDir}})
	if st := state(c); st["sessionId"] != h["id"] || st["messageCount"].(float64) != 6 {
		t.Fatalf("continued state %v", st)
	}
}

func TestSessionDirOverrides(t *testing.T) {
	dir := t.TempDir()
	a := e2e.Start(t, e2e.Options{Args: []string{"--session-dir", dir}})
	if p := state(a)["sessionFile"].(string); filepath.Dir(p) != dir {
		t.Fatalf("sessionFile %q not in %q", p, dir)
	}
	env := t.TempDir()
	b := e2e.Start(t, e2e.Options{Env: map[string]string{"ATOMIC_CODING_AGENT_SESSION_DIR": env}})
	if p := state(b)["sessionFile"].(string); filepath.Dir(p) != env {
		t.Fatalf("sessionFile %q not in %q", p, env)
	}
}

func TestNoSessionAndName(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Args: []string{"--no-session", "-n", "scratch"}})
	st := state(a)
	if _, has := st["sessionFile"]; has {
		t.Fatalf("sessionFile with --no-session: %v", st)
	}
	if st["sessionName"] != "scratch" {
		t.Fatalf("sessionName %v", st["sessionName"])
	}
	a.PromptAndWait("hi")
	r := a.Request(map[string]any{"type": "export_html"})
	if r["success"] != false || r["error"] != "Cannot export in-memory session to HTML" {
		t.Fatalf("export %v", r)
	}
	if _, err := os.Stat(filepath.Join(a.AgentDir, "sessions")); err == nil {
		t.Fatal("--no-session wrote a session directory")
	}
	// Fork and clone work in memory.
	fm := data(a.MustSucceed(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
	a.MustSucceed(map[string]any{"type": "clone"})
	f := a.MustSucceed(map[string]any{"type": "fork", "entryId": fm[0].(map[string]any)["entryId"]})
	if data(f)["text"] != "hi" {
		t.Fatalf("fork %v", f)
	}
	// Importing reads the file into memory; nothing is written.
	src := filepath.Join(t.TempDir(), "pi.jsonl")
	copyFile(t, filepath.Join("..", "session", "testdata", "pi-v3.jsonl"), src)
	a.MustSucceed(map[string]any{"type": "import_session", "inputPath": src})
	if st := state(a); st["messageCount"].(float64) != 4 || st["sessionName"] != "file listing" {
		t.Fatalf("state after import %v", st)
	}
	a.PromptAndWait("more")
	if _, err := os.Stat(filepath.Join(a.AgentDir, "sessions")); err == nil {
		t.Fatal("--no-session wrote a session directory")
	}
	if n := len(fileLines(t, src)); n != 15 {
		t.Fatalf("the imported file has %d lines", n)
	}
}

func TestNewSessionAndSwitch(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	a.PromptAndWait("one")
	first := state(a)["sessionFile"].(string)
	r := a.MustSucceed(map[string]any{"type": "new_session", "parentSession": first})
	if data(r)["cancelled"] != false {
		t.Fatalf("new_session %v", r)
	}
	st := state(a)
	second := st["sessionFile"].(string)
	if second == first || st["messageCount"].(float64) != 0 {
		t.Fatalf("state after new_session %v", st)
	}
	a.PromptAndWait("two")
	if h := fileLines(t, second)[0]; h["parentSession"] != first {
		t.Fatalf("header %v", h)
	}
	r = a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": first})
	if data(r)["cancelled"] != false {
		t.Fatalf("switch %v", r)
	}
	st = state(a)
	if st["sessionFile"] != first || st["messageCount"].(float64) != 2 {
		t.Fatalf("state after switch %v", st)
	}
	if txt := data(a.MustSucceed(map[string]any{"type": "get_last_assistant_text"}))["text"].(string); !strings.Contains(txt, "one") {
		t.Fatalf("last assistant text %q", txt)
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	r = a.Request(map[string]any{"type": "switch_session", "sessionPath": missing})
	if r["success"] != false || r["error"] != "Session file not found: "+missing {
		t.Fatalf("switch to a missing file %v", r)
	}
	if r := a.Request(map[string]any{"type": "switch_session"}); r["success"] != false || !strings.Contains(r["error"].(string), "sessionPath") {
		t.Fatalf("switch without a path %v", r)
	}
	if state(a)["sessionFile"] != first {
		t.Fatal("a failed switch changed the session")
	}
}

func TestReplacementAbortsRunAndClearsQueue(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "a slow answer that streams for a while", "chunks": 40, "delayMs": 100}}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "message_update" })
	a.MustSucceed(map[string]any{"type": "follow_up", "message": "later"})
	r := a.MustSucceed(map[string]any{"type": "new_session"})
	if data(r)["cancelled"] != false {
		t.Fatal(r)
	}
	recs := a.Records(from)
	var sawEnd, sawClear bool
	for _, rec := range recs {
		if rec.Type() == "agent_end" {
			sawEnd = true
		}
		if rec.Type() == "queue_update" && len(rec["followUp"].([]any)) == 0 && sawEnd {
			sawClear = true
		}
	}
	if !sawEnd || !sawClear {
		t.Fatalf("agent_end %v, queue cleared %v: %v", sawEnd, sawClear, e2e.Types(recs))
	}
	st := state(a)
	if st["isStreaming"] != false || st["pendingMessageCount"].(float64) != 0 || st["messageCount"].(float64) != 0 {
		t.Fatalf("state %v", st)
	}
}

func TestForkCloneAndForkMessages(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	a.PromptAndWait("one")
	a.PromptAndWait("two")
	orig := state(a)["sessionFile"].(string)
	fm := data(a.MustSucceed(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
	if len(fm) != 2 || fm[1].(map[string]any)["text"] != "two" {
		t.Fatalf("fork messages %v", fm)
	}
	secondID := fm[1].(map[string]any)["entryId"].(string)

	r := a.MustSucceed(map[string]any{"type": "fork", "entryId": secondID})
	if d := data(r); d["text"] != "two" || d["cancelled"] != false {
		t.Fatalf("fork %v", r)
	}
	st := state(a)
	forked := st["sessionFile"].(string)
	if forked == orig || st["messageCount"].(float64) != 2 {
		t.Fatalf("state after fork %v", st)
	}
	lines := fileLines(t, forked)
	if lines[0]["parentSession"] != orig {
		t.Fatalf("fork header %v", lines[0])
	}
	if got := entryTypes(lines); got != "session,model_change,thinking_level_change,message:user,message:assistant" {
		t.Fatalf("fork file %s", got)
	}

	for _, bad := range []map[string]any{
		{"type": "fork", "entryId": "nope1234"},
		{"type": "fork", "entryId": lines[4]["id"]}, // an assistant message
	} {
		r := a.Request(bad)
		if r["success"] != false || !strings.HasPrefix(r["error"].(string), "Invalid entry ID for forking") {
			t.Fatalf("fork %v: %v", bad, r)
		}
	}
	if r := a.Request(map[string]any{"type": "fork"}); r["success"] != false || !strings.Contains(r["error"].(string), "entryId") {
		t.Fatalf("fork without id %v", r)
	}

	a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": orig})
	before, leaf := entries(a, "")
	r = a.MustSucceed(map[string]any{"type": "clone"})
	if data(r)["cancelled"] != false {
		t.Fatal(r)
	}
	cloned := state(a)["sessionFile"].(string)
	after, leaf2 := entries(a, "")
	if cloned == orig || len(after) != len(before) || leaf2 != leaf {
		t.Fatalf("clone: %d entries (want %d), leaf %v (want %v)", len(after), len(before), leaf2, leaf)
	}
	if fileLines(t, cloned)[0]["parentSession"] != orig {
		t.Fatal("clone header has no parentSession")
	}
}

func TestForkBeforeSaved(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "slow", "chunks": 30, "delayMs": 100}}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "q"})
	a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "message_update" })
	fm := data(a.MustSucceed(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
	if len(fm) != 1 {
		t.Fatalf("fork messages %v", fm)
	}
	want := "This session has not been saved yet. Wait for the first assistant response before cloning or forking it."
	for _, cmd := range []map[string]any{{"type": "fork", "entryId": fm[0].(map[string]any)["entryId"]}, {"type": "clone"}} {
		r := a.Request(cmd)
		if r["success"] != false || r["error"] != want {
			t.Fatalf("%v: %v", cmd["type"], r)
		}
	}
	a.MustSucceed(map[string]any{"type": "abort"})
}

func TestEntriesTreeNavigateAndLabels(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	if d := data(a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})); d["text"] != nil {
		t.Fatalf("last text before any answer %v", d)
	}
	a.PromptAndWait("one")
	a.PromptAndWait("two")
	all, leaf := entries(a, "")
	if len(all) != 6 || leaf != all[5]["id"] {
		t.Fatalf("%d entries, leaf %v", len(all), leaf)
	}
	if all[0]["type"] == "session" {
		t.Fatal("get_entries returned the header")
	}
	tail, _ := entries(a, all[3]["id"].(string))
	if len(tail) != 2 || tail[0]["id"] != all[4]["id"] {
		t.Fatalf("since: %v", tail)
	}
	if tail, _ := entries(a, leaf.(string)); len(tail) != 0 {
		t.Fatalf("since the leaf: %v", tail)
	}
	r := a.Request(map[string]any{"type": "get_entries", "since": "deadbeef"})
	if r["success"] != false || r["error"] != "Entry not found: deadbeef" {
		t.Fatalf("unknown cursor %v", r)
	}

	// Navigate to the second user message: the leaf goes to its parent and
	// the text comes back for the editor.
	secondUser := all[4]["id"].(string)
	r = a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": secondUser})
	if d := data(r); d["cancelled"] != false || d["editorText"] != "two" {
		t.Fatalf("navigate %v", r)
	}
	if _, leaf := entries(a, ""); leaf != all[3]["id"] {
		t.Fatalf("leaf after navigate %v", leaf)
	}
	if c := state(a)["messageCount"].(float64); c != 2 {
		t.Fatalf("messageCount after navigate %v", c)
	}
	a.PromptAndWait("two again")
	reqs := a.FauxRequests()
	if n := len(reqs[len(reqs)-1]["messages"].([]any)); n != 3 {
		t.Fatalf("the new branch sent %d messages", n)
	}

	// Labels.
	a.MustSucceed(map[string]any{"type": "set_label", "entryId": all[2]["id"], "label": "start"})
	if r := a.Request(map[string]any{"type": "set_label", "entryId": "nope", "label": "x"}); r["success"] != false || r["error"] != "Entry nope not found" {
		t.Fatalf("set_label unknown %v", r)
	}
	// Navigate to an assistant message with a label option.
	r = a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": all[5]["id"], "options": map[string]any{"label": "old end"}})
	if _, has := data(r)["editorText"]; has {
		t.Fatalf("editorText for an assistant target %v", r)
	}
	if r := a.Request(map[string]any{"type": "navigate_tree", "targetId": "nope"}); r["success"] != false || r["error"] != "Entry nope not found" {
		t.Fatalf("navigate unknown %v", r)
	}

	d := data(a.MustSucceed(map[string]any{"type": "get_tree"}))
	tree := d["tree"].([]any)
	if len(tree) != 1 {
		t.Fatalf("%d roots", len(tree))
	}
	nodes := map[string]map[string]any{}
	var walk func([]any)
	walk = func(ns []any) {
		for _, n := range ns {
			m := n.(map[string]any)
			nodes[m["entry"].(map[string]any)["id"].(string)] = m
			walk(m["children"].([]any))
		}
	}
	walk(tree)
	if len(nodes) != len(all)+2+2 { // + the new branch's two messages + two labels
		t.Fatalf("%d nodes in the tree", len(nodes))
	}
	if kids := nodes[all[3]["id"].(string)]["children"].([]any); len(kids) != 2 {
		t.Fatalf("the first answer has %d children, want 2", len(kids))
	}
	if n := nodes[all[2]["id"].(string)]; n["label"] != "start" || n["labelTimestamp"] == nil {
		t.Fatalf("labelled node %v", n)
	}
	if n := nodes[all[5]["id"].(string)]; n["label"] != "old end" {
		t.Fatalf("navigate label %v", n)
	}
	if d["leafId"] == nil {
		t.Fatal("no leafId")
	}
	// Clearing a label.
	a.MustSucceed(map[string]any{"type": "set_label", "entryId": all[2]["id"]})
	nodes = map[string]map[string]any{}
	walk(data(a.MustSucceed(map[string]any{"type": "get_tree"}))["tree"].([]any))
	if _, has := nodes[all[2]["id"].(string)]["label"]; has {
		t.Fatal("label not cleared")
	}
}

func TestSessionNameAndStats(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo hi"}}}, "usage": map[string]any{"input": 100, "output": 10}},
		{"text": "done", "usage": map[string]any{"input": 150, "output": 5, "cacheRead": 20}},
	}})
	from := a.Len()
	r := a.MustSucceed(map[string]any{"type": "set_session_name", "name": "  my work  "})
	ev := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "session_info_changed" })
	if ev["name"] != "my work" || r["data"] != nil {
		t.Fatalf("event %v response %v", ev, r)
	}
	if state(a)["sessionName"] != "my work" {
		t.Fatal("sessionName not set")
	}
	if r := a.Request(map[string]any{"type": "set_session_name", "name": "   "}); r["success"] != false || r["error"] != "Session name cannot be empty" {
		t.Fatalf("empty name %v", r)
	}
	a.PromptAndWait("run it")
	st := data(a.MustSucceed(map[string]any{"type": "get_session_stats"}))
	want := map[string]float64{"userMessages": 1, "assistantMessages": 2, "toolCalls": 1, "toolResults": 1, "totalMessages": 4, "cost": 0}
	for k, v := range want {
		if st[k].(float64) != v {
			t.Fatalf("%s = %v, want %v (%v)", k, st[k], v, st)
		}
	}
	tok := st["tokens"].(map[string]any)
	if tok["input"].(float64) != 250 || tok["output"].(float64) != 15 || tok["cacheRead"].(float64) != 20 || tok["total"].(float64) != 285 {
		t.Fatalf("tokens %v", tok)
	}
	cu := st["contextUsage"].(map[string]any)
	if cu["contextWindow"].(float64) != 128000 || cu["tokens"].(float64) < 175 {
		t.Fatalf("contextUsage %v", cu)
	}
	if st["sessionFile"] != state(a)["sessionFile"] {
		t.Fatal("stats sessionFile")
	}
	// The name is in the file.
	lines := fileLines(t, st["sessionFile"].(string))
	found := false
	for _, l := range lines {
		if l["type"] == "session_info" && l["name"] == "my work" {
			found = true
		}
	}
	if !found {
		t.Fatal("no session_info entry in the file")
	}
}

func TestImportSession(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	src := filepath.Join(t.TempDir(), "pi.jsonl")
	copyFile(t, filepath.Join("..", "session", "testdata", "pi-v3.jsonl"), src)
	orig, _ := os.ReadFile(src)
	project := t.TempDir()
	from := a.Len()
	r := a.MustSucceed(map[string]any{"type": "import_session", "inputPath": src, "cwdOverride": project})
	if data(r)["cancelled"] != false {
		t.Fatal(r)
	}
	st := state(a)
	path := st["sessionFile"].(string)
	wantDir := filepath.Join(a.AgentDir, "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(project, "/"), "/", "-")+"--")
	if filepath.Dir(path) != wantDir {
		t.Fatalf("imported to %q, want dir %q", path, wantDir)
	}
	if st["sessionId"] != "0b6c5a0e-1c1f-4c1e-9d8e-2f1a3b4c5d6e" || st["messageCount"].(float64) != 4 || st["sessionName"] != "file listing" {
		t.Fatalf("state %v", st)
	}
	// The branch's model and thinking level are restored (faux-2 cannot
	// think, so the level clamps to off).
	if st["model"].(map[string]any)["id"] != "faux-2" || st["thinkingLevel"] != "off" {
		t.Fatalf("model %v thinking %v", st["model"], st["thinkingLevel"])
	}
	ev := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "model_changed" })
	if ev["source"] != "restore" {
		t.Fatalf("model_changed %v", ev)
	}
	if h := fileLines(t, path)[0]; h["cwd"] != project {
		t.Fatalf("header cwd %v", h["cwd"])
	}
	if b, _ := os.ReadFile(src); !bytes.Equal(b, orig) {
		t.Fatal("the imported file was changed")
	}
	// It continues, in the session's directory.
	a.PromptAndWait("and now?")
	reqs := a.FauxRequests()
	last := reqs[len(reqs)-1]
	if n := len(last["messages"].([]any)); n != 5 {
		t.Fatalf("the model got %d messages", n)
	}
	if sp, _ := last["systemPrompt"].(string); !strings.Contains(sp, project) {
		t.Fatalf("system prompt does not name the session's directory %q", project)
	}
	lines := fileLines(t, path)
	if n := len(lines); n != 17 {
		t.Fatalf("%d lines after continuing", n)
	}
	if lines[15]["parentId"] != "7a8b9c0d" {
		t.Fatalf("new entry's parent %v", lines[15]["parentId"])
	}

	missing := filepath.Join(project, "nope.jsonl")
	if r := a.Request(map[string]any{"type": "import_session", "inputPath": missing}); r["success"] != false || r["error"] != "File not found: "+missing {
		t.Fatalf("import missing %v", r)
	}
}

func TestNavigateWithBranchSummary(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\n"), 0o600)
	a := e2e.Start(t, e2e.Options{Dir: dir, Script: []map[string]any{
		{"text": "first answer"},
		{"toolCalls": []map[string]any{{"name": "read", "arguments": map[string]any{"path": "notes.txt"}}}},
		{"text": "the notes have one line"},
		{"text": "The user read notes.txt and found one line."}, // the summary
		{"text": "back on the main line"},
	}})
	a.PromptAndWait("hello")
	a.PromptAndWait("read the notes")
	all, oldLeaf := entries(a, "")
	firstAnswer := all[3]["id"].(string)
	r := a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": firstAnswer,
		"options": map[string]any{"summarize": true, "customInstructions": "the files involved", "label": "explored"}})
	if d := data(r); d["cancelled"] != false {
		t.Fatalf("navigate %v", r)
	}
	reqs := a.FauxRequests()
	asked := reqs[len(reqs)-1]
	prompt := asked["messages"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	for _, want := range []string{"<conversation>", "[User]: read the notes", `[Assistant tool call]: read {"path":"notes.txt"}`, "[Tool result]: line one", "Pay particular attention to: the files involved"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the summary request lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "first answer") {
		t.Error("the summary request includes the shared part of the branch")
	}
	after, leaf := entries(a, oldLeaf.(string))
	if len(after) != 2 || after[0]["type"] != "branch_summary" || after[1]["type"] != "label" || leaf != after[1]["id"] {
		t.Fatalf("entries after navigating: %v (leaf %v)", after, leaf)
	}
	bs := after[0]
	sum := bs["summary"].(string)
	if bs["parentId"] != firstAnswer || bs["fromId"] != firstAnswer || !strings.Contains(sum, "The user read notes.txt and found one line.") ||
		!strings.Contains(sum, "<read-files>\nnotes.txt\n</read-files>") {
		t.Fatalf("branch summary %v", bs)
	}
	if after[1]["targetId"] != bs["id"] || after[1]["label"] != "explored" {
		t.Fatalf("label %v", after[1])
	}
	if c := state(a)["messageCount"].(float64); c != 3 {
		t.Fatalf("messageCount %v", c)
	}
	a.PromptAndWait("go on")
	reqs = a.FauxRequests()
	msgs := reqs[len(reqs)-1]["messages"].([]any)
	if len(msgs) != 4 || !strings.Contains(fmt.Sprint(msgs[2]), "The user read notes.txt") {
		t.Fatalf("the next prompt's context: %v", msgs)
	}
}
