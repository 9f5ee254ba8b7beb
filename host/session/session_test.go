package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func user(text string) llm.Message { return llm.UserText(text) }

func assistant(text string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: llm.TextContent(text), API: "faux", Provider: "faux", Model: "faux-1", StopReason: llm.StopStop, Timestamp: llm.Now()}
}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func entriesJSON(t *testing.T, s *Session) []string {
	t.Helper()
	es, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func mustOpen(t *testing.T, path string) *Session {
	t.Helper()
	s, err := Open(path, "/cwd")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return s
}

func TestLazyFlushAndRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "s.jsonl")
	s := New(path, "/cwd", "")
	s.Append(Entry{Type: TypeModelChange, Provider: "faux", ModelID: "faux-1"})
	s.Append(Entry{Type: TypeThinkingLevelChange, ThinkingLevel: "medium"})
	s.AppendMessage(user("hi"))
	if fileExists(path) {
		t.Fatal("file written before the first assistant message")
	}
	s.AppendMessage(assistant("hello"))
	if !fileExists(path) {
		t.Fatal("file not written after the first assistant message")
	}
	name := "my session"
	s.Append(Entry{Type: TypeSessionInfo, Name: &name})
	big := strings.Repeat("x", 50_000)
	s.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "bash", Content: llm.TextContent(big), Timestamp: 1})
	lbl := "here"
	es, _ := s.Entries()
	s.Append(Entry{Type: TypeLabel, TargetID: es[2].ID, Label: &lbl})
	want := entriesJSON(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	r := mustOpen(t, path)
	if got := entriesJSON(t, r); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("round trip differs:\n got %v\nwant %v", got, want)
	}
	if r.Leaf() != s.Leaf() || r.ID() != s.ID() || r.Name() != "my session" {
		t.Fatalf("leaf/id/name: %s %s %q", r.Leaf(), r.ID(), r.Name())
	}
	if l, _, ok := r.Label(es[2].ID); !ok || l != "here" {
		t.Fatalf("label = %q", l)
	}
	if len(r.Warnings()) != 0 {
		t.Fatalf("warnings: %v", r.Warnings())
	}
	// The big body is not held in memory after loading.
	r.mu.RLock()
	for _, n := range r.nodes {
		if n.size > keepInline && n.entry != nil {
			t.Errorf("entry %s of %d bytes kept in memory", n.id, n.size)
		}
	}
	r.mu.RUnlock()
	// Appending after reopening continues the chain.
	e := r.AppendMessage(user("again"))
	if e.Parent() != s.Leaf() {
		t.Fatalf("parent = %s, want %s", e.Parent(), s.Leaf())
	}
	r.Close()
	r2 := mustOpen(t, path)
	if r2.Len() != len(want)+1 || r2.Leaf() != e.ID {
		t.Fatalf("len %d leaf %s", r2.Len(), r2.Leaf())
	}
	// Every line of the file is one JSON object.
	data, _ := os.ReadFile(path)
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Fatalf("line %d invalid: %q", i+1, line)
		}
	}
}

func TestOpenPiFixture(t *testing.T) {
	s := mustOpen(t, copyFixture(t, "pi-v3.jsonl"))
	if s.Len() != 14 || s.Leaf() != "7a8b9c0d" {
		t.Fatalf("len %d leaf %s", s.Len(), s.Leaf())
	}
	if s.Name() != "file listing" {
		t.Fatalf("name %q", s.Name())
	}
	if l, ts, ok := s.Label("c3d4e5f6"); !ok || l != "start" || ts != "2026-03-15T10:20:35.000Z" {
		t.Fatalf("label %q %q", l, ts)
	}
	ctx := s.BuildContext()
	if ctx.ThinkingLevel != "low" || ctx.Provider != "faux" || ctx.ModelID != "faux-2" {
		t.Fatalf("state %+v", ctx)
	}
	var roles []string
	for _, m := range ctx.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,branchSummary,user,assistant" {
		t.Fatalf("context roles %s", got)
	}
	if s.Plan(DefaultRules).Len() != 4 {
		t.Fatal("plan length differs from the context")
	}
	// The abandoned branch, as a context, converts bash and custom
	// messages.
	if err := s.SetLeaf("4a5b6c7d"); err != nil {
		t.Fatal(err)
	}
	ctx = s.BuildContext()
	prov := llm.ToProviderMessages(ctx.Messages)
	var texts []string
	for _, m := range prov {
		texts = append(texts, m.Role+":"+m.Content.JoinText(""))
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"user:Ran `git status`", "user:Remember the tests", "toolResult:a.go"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("provider messages %q lack %q", joined, want)
		}
	}
	// Unknown fields survive.
	e, _ := s.Entry("5a6b7c8d")
	b, _ := json.Marshal(e)
	if !strings.Contains(string(b), `"futureField":"kept"`) {
		t.Fatalf("unknown field lost: %s", b)
	}
	e, _ = s.Entry("6a7b8c9d")
	b, _ = json.Marshal(e)
	if !strings.Contains(string(b), `"extraField":{"x":1}`) || !strings.Contains(string(b), `"content":"Now count the lines"`) {
		t.Fatalf("message fields changed: %s", b)
	}
	fm, err := s.UserMessages()
	if err != nil || len(fm) != 2 || fm[0].EntryID != "c3d4e5f6" || fm[1].Text != "Now count the lines" {
		t.Fatalf("user messages %+v %v", fm, err)
	}
}

func TestMigrateV1(t *testing.T) {
	path := copyFixture(t, "pi-v1.jsonl")
	orig, _ := os.ReadFile(path)
	s := mustOpen(t, path)
	if s.Header().Version != 3 || s.Len() != 6 {
		t.Fatalf("version %d len %d", s.Header().Version, s.Len())
	}
	es, _ := s.Entries()
	for i, e := range es {
		if len(e.ID) != 8 {
			t.Fatalf("entry %d id %q", i, e.ID)
		}
		if i == 0 && e.ParentID != nil || i > 0 && e.Parent() != es[i-1].ID {
			t.Fatalf("entry %d parent %v", i, e.ParentID)
		}
	}
	c := es[4]
	if c.Type != TypeCompaction || c.FirstKeptEntryID == nil || *c.FirstKeptEntryID != es[2].ID {
		t.Fatalf("compaction %+v", c)
	}
	if _, has := c.Extra["firstKeptEntryIndex"]; has {
		t.Fatal("firstKeptEntryIndex kept")
	}
	warn := strings.Join(s.Warnings(), "\n")
	if !strings.Contains(warn, "migrated from version 1") || !strings.Contains(warn, "1 malformed line") {
		t.Fatalf("warnings %q", warn)
	}
	backups, _ := filepath.Glob(path + ".v1-*.bak")
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); !bytes.Equal(b, orig) {
		t.Fatal("backup differs from the original")
	}
	// It continues.
	s.AppendMessage(assistant("third answer"))
	s.Close()
	r := mustOpen(t, path)
	if r.Len() != 7 || len(r.Warnings()) != 0 {
		t.Fatalf("len %d warnings %v", r.Len(), r.Warnings())
	}
}

func TestMigrateV2(t *testing.T) {
	path := copyFixture(t, "pi-v2.jsonl")
	s := mustOpen(t, path)
	e, ok := s.Entry("22222222")
	if !ok || e.Message.Role != llm.RoleCustom || e.Message.CustomType != "reminder" {
		t.Fatalf("entry %+v", e)
	}
	if s.Leaf() != "33333333" {
		t.Fatalf("leaf %s", s.Leaf())
	}
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := `{"type":"session","version":3,"id":"h1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/cwd"}` + "\n"
	line := func(id, parent, text string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1}}` + "\n"
	}

	t.Run("missing", func(t *testing.T) {
		_, err := Open(filepath.Join(dir, "nope.jsonl"), "/cwd")
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := Open(dir, "/cwd")
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		p := write("garbage.jsonl", "hello world\nmore\n")
		_, err := Open(p, "/cwd")
		if !errors.Is(err, ErrNotSession) {
			t.Fatalf("err %v", err)
		}
		if b, _ := os.ReadFile(p); string(b) != "hello world\nmore\n" {
			t.Fatal("garbage file was changed")
		}
	})
	t.Run("not a header", func(t *testing.T) {
		p := write("nohdr.jsonl", line("a", "", "x"))
		if _, err := Open(p, "/cwd"); !errors.Is(err, ErrNotSession) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("wrong version", func(t *testing.T) {
		content := strings.Replace(header, `"version":3`, `"version":4`, 1) + line("a", "", "x")
		p := write("v4.jsonl", content)
		_, err := Open(p, "/cwd")
		if err == nil || !strings.Contains(err.Error(), "version 4") {
			t.Fatalf("err %v", err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Fatal("file was changed")
		}
	})
	t.Run("one huge line", func(t *testing.T) {
		p := write("huge.jsonl", strings.Repeat("x", maxFirstLine+readChunk))
		if _, err := Open(p, "/cwd"); !errors.Is(err, ErrNotSession) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		p := write("empty.jsonl", "")
		s, err := Open(p, "/cwd")
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != 0 || s.Cwd() != "/cwd" {
			t.Fatalf("len %d", s.Len())
		}
		s.AppendMessage(user("q"))
		s.AppendMessage(assistant("a"))
		s.Close()
		r := mustOpen(t, p)
		if r.Len() != 2 || r.ID() != s.ID() {
			t.Fatalf("len %d", r.Len())
		}
	})
	t.Run("torn last line", func(t *testing.T) {
		full := line("a", "", "one") + line("b", "a", "two")
		torn := line("c", "b", "three")
		p := write("torn.jsonl", header+full+torn[:len(torn)/2])
		s := mustOpen(t, p)
		if s.Len() != 2 || s.Leaf() != "b" {
			t.Fatalf("len %d leaf %s", s.Len(), s.Leaf())
		}
		if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "last line is incomplete") {
			t.Fatalf("warnings %q", w)
		}
		// Appending starts on a fresh line; the torn bytes become a
		// malformed middle line that later loads skip and report.
		e := s.AppendMessage(user("four"))
		s.Close()
		r := mustOpen(t, p)
		if r.Len() != 3 || r.Leaf() != e.ID {
			t.Fatalf("len %d leaf %s", r.Len(), r.Leaf())
		}
		if w := strings.Join(r.Warnings(), "\n"); !strings.Contains(w, "skipped 1 malformed line(s): line 4") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("garbage middle lines", func(t *testing.T) {
		p := write("mid.jsonl", header+line("a", "", "one")+"{not json\n"+`{"type":"message"}`+"\n"+"\n"+line("b", "a", "two"))
		s := mustOpen(t, p)
		if s.Len() != 2 || s.Leaf() != "b" {
			t.Fatalf("len %d leaf %s", s.Len(), s.Leaf())
		}
		if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "skipped 2 malformed line(s): line 3, 4") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("complete last line without newline", func(t *testing.T) {
		p := write("nonl.jsonl", header+strings.TrimSuffix(line("a", "", "one"), "\n"))
		s := mustOpen(t, p)
		if s.Len() != 1 || len(s.Warnings()) != 0 {
			t.Fatalf("len %d warnings %v", s.Len(), s.Warnings())
		}
		s.AppendMessage(user("two"))
		s.Close()
		r := mustOpen(t, p)
		if r.Len() != 2 || len(r.Warnings()) != 0 {
			t.Fatalf("len %d warnings %v", r.Len(), r.Warnings())
		}
	})
	t.Run("wrongly typed fields are kept as they are", func(t *testing.T) {
		odd := `{"type":"message","id":"o","parentId":"a","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":42}}`
		p := write("odd.jsonl", header+line("a", "", "one")+odd+"\n")
		s := mustOpen(t, p)
		e, ok := s.Entry("o")
		if !ok {
			t.Fatal("entry missing")
		}
		b, _ := json.Marshal(e)
		if string(b) != odd {
			t.Fatalf("got %s", b)
		}
		if n := len(s.BuildContext().Messages); n != 1 {
			t.Fatalf("context has %d messages", n)
		}
	})
}

func TestConcurrentAppendersDoNotInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	s := New(path, "/cwd", "")
	s.AppendMessage(user("start"))
	s.AppendMessage(assistant("ok"))
	s.Close()
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		w := w
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each writer is its own session object with its own
			// descriptor, as another process would be.
			ws, err := Open(path, "/cwd")
			if err != nil {
				t.Error(err)
				return
			}
			defer ws.Close()
			body := strings.Repeat(string(rune('a'+w)), 20_000+w*1000)
			for i := 0; i < each; i++ {
				if _, err := ws.AppendEntry(Entry{Type: TypeMessage, Message: &llm.Message{Role: llm.RoleUser, Content: llm.TextContent(body), Timestamp: 1}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	r := mustOpen(t, path)
	if len(r.Warnings()) != 0 {
		t.Fatalf("warnings %v", r.Warnings())
	}
	if r.Len() != 2+writers*each {
		t.Fatalf("len %d, want %d", r.Len(), 2+writers*each)
	}
	es, err := r.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es[2:] {
		text := e.Message.Content.JoinText("")
		if strings.Trim(text, text[:1]) != "" {
			t.Fatal("a line mixes two writers' bytes")
		}
	}
}

func TestBranchToAndTree(t *testing.T) {
	dir := t.TempDir()
	s := NewIn(dir, "/cwd", "")
	s.Append(Entry{Type: TypeModelChange, Provider: "faux", ModelID: "faux-1"})
	u1 := s.AppendMessage(user("one"))
	a1 := s.AppendMessage(assistant("r1"))
	lbl := "L"
	s.Append(Entry{Type: TypeLabel, TargetID: u1.ID, Label: &lbl})
	u2 := s.AppendMessage(user("two"))
	a2 := s.AppendMessage(assistant("r2"))
	// A second branch from a1.
	if err := s.SetLeaf(a1.ID); err != nil {
		t.Fatal(err)
	}
	u3 := s.AppendMessage(user("three"))

	tree, err := s.Tree()
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != 1 {
		t.Fatalf("%d roots", len(tree))
	}
	b, _ := json.Marshal(tree)
	var decoded []map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatalf("tree JSON %s: %v", b, err)
	}
	// a1 has two children: the label (then u2) and u3.
	var find func(ns []map[string]any, id string) map[string]any
	find = func(ns []map[string]any, id string) map[string]any {
		for _, n := range ns {
			if n["entry"].(map[string]any)["id"] == id {
				return n
			}
			var kids []map[string]any
			for _, k := range n["children"].([]any) {
				kids = append(kids, k.(map[string]any))
			}
			if f := find(kids, id); f != nil {
				return f
			}
		}
		return nil
	}
	if n := find(decoded, a1.ID); n == nil || len(n["children"].([]any)) != 2 {
		t.Fatalf("a1 node %v", n)
	}
	if n := find(decoded, u1.ID); n["label"] != "L" || n["labelTimestamp"] == nil {
		t.Fatalf("u1 node %v", n)
	}

	// Fork before u2: the path up to a1, label re-created.
	f, err := s.BranchTo(dir, "/cwd", a2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header().ParentSession != s.Path() || !f.Saved() {
		t.Fatalf("parent %q saved %v", f.Header().ParentSession, f.Saved())
	}
	fes, _ := f.Entries()
	var types []string
	for _, e := range fes {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, ","); got != "model_change,message,message,message,message,label" {
		t.Fatalf("fork entries %s", got)
	}
	// u2's parent was the label entry; in the copy it is a1.
	if fes[3].ID != u2.ID || fes[3].Parent() != a1.ID {
		t.Fatalf("u2 copy parent %s", fes[3].Parent())
	}
	if l, _, ok := f.Label(u1.ID); !ok || l != "L" {
		t.Fatal("label not re-created")
	}
	ctx := f.BuildContext()
	if len(ctx.Messages) != 4 {
		t.Fatalf("fork context %d", len(ctx.Messages))
	}
	// A fork of a path without an assistant message is not written yet.
	g, err := s.BranchTo(dir, "/cwd", u1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Saved() || fileExists(g.Path()) || g.Len() != 3 { // model change, u1, label
		t.Fatalf("saved %v len %d", g.Saved(), g.Len())
	}
	g.AppendMessage(assistant("later"))
	if !fileExists(g.Path()) {
		t.Fatal("not written after the assistant message")
	}
	r := mustOpen(t, g.Path())
	if r.Len() != 4 {
		t.Fatalf("len %d", r.Len())
	}
	_ = u3
}

func TestTreeOrphansAndCycles(t *testing.T) {
	content := `{"type":"session","version":3,"id":"h","timestamp":"t","cwd":"/c"}
{"type":"message","id":"a","parentId":null,"timestamp":"1","message":{"role":"user","content":"a"}}
{"type":"message","id":"b","parentId":"gone","timestamp":"2","message":{"role":"user","content":"b"}}
{"type":"message","id":"c","parentId":"d","timestamp":"3","message":{"role":"user","content":"c"}}
{"type":"message","id":"d","parentId":"c","timestamp":"4","message":{"role":"user","content":"d"}}
{"type":"message","id":"e","parentId":"e","timestamp":"5","message":{"role":"user","content":"e"}}
`
	p := filepath.Join(t.TempDir(), "o.jsonl")
	os.WriteFile(p, []byte(content), 0o600)
	s := mustOpen(t, p)
	tree, err := s.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	count := 0
	var walk func(ns []*TreeNode)
	walk = func(ns []*TreeNode) {
		for _, n := range ns {
			count++
			walk(n.Children)
		}
	}
	for _, r := range tree {
		roots = append(roots, r.ID)
	}
	walk(tree)
	if got := strings.Join(roots, ","); got != "a,b,e,c" {
		t.Fatalf("roots %s", got)
	}
	if count != 5 {
		t.Fatalf("%d nodes in the tree", count)
	}
	if _, err := json.Marshal(tree); err != nil {
		t.Fatal(err)
	}
	// The branch of a cycle member terminates.
	if n := len(s.Branch("c")); n != 2 {
		t.Fatalf("branch of c has %d entries", n)
	}
}

func TestContextWithCompaction(t *testing.T) {
	s := NewInMemory("/c")
	s.AppendMessage(user("old question"))
	s.AppendMessage(assistant("old answer"))
	kept := s.AppendMessage(user("kept question"))
	s.AppendMessage(assistant("kept answer"))
	// An inert summary compaction, then an active one.
	s.Append(Entry{Type: TypeCompaction, Summary: "inert", TokensBefore: 10})
	id := kept.ID
	s.Append(Entry{Type: TypeCompaction, Summary: "[user] old question", FirstKeptEntryID: &id, TokensBefore: 100,
		Details: map[string]any{"strategy": "verbatim-lines"}})
	s.AppendMessage(user("new question"))
	ctx := s.BuildContext()
	var parts []string
	for _, m := range ctx.Messages {
		parts = append(parts, m.Role+":"+m.Content.JoinText(""))
	}
	got := strings.Join(parts, "|")
	want := "custom:" + CompactionPreamble + "[user] old question|user:kept question|assistant:kept answer|user:new question"
	if got != want {
		t.Fatalf("context\n got %q\nwant %q", got, want)
	}
	if s.Plan(DefaultRules).Len() != 4 {
		t.Fatal("plan length")
	}
	// Rules are a seam: other rules, other context.
	custom := ContextRules{
		Active:   func(c *Entry) bool { return c.Summary == "inert" },
		Boundary: func(c *Entry, kept []*Entry) []llm.Message { return []llm.Message{llm.UserText("B" + c.Summary)} },
	}
	p := s.Plan(custom)
	if p.Len() != 2 { // the boundary, then the new question
		t.Fatalf("custom plan length %d", p.Len())
	}
	msgs := p.Messages()
	if msgs[0].Content.JoinText("") != "Binert" || msgs[len(msgs)-1].Content.JoinText("") != "new question" {
		t.Fatalf("custom rules: %+v", msgs)
	}
}
