package compaction

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// seedBoundarySession writes a session with a verbatim-lines compaction
// (the shape the runtime writes) and returns its bytes.
func seedBoundarySession(f testing.TB, firstKept func(ids []string) *string, details any) []byte {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.jsonl")
	s := session.New(path, "/cwd", "")
	var ids []string
	for i, text := range []string{"first question", "first answer", "second question", "second answer"} {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		m := llm.Message{Role: role, Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text(text)}}}
		ids = append(ids, s.AppendMessage(m).ID)
	}
	s.Append(session.Entry{Type: session.TypeCompaction, Summary: "[User]: first question\n(filtered 3 lines)",
		FirstKeptEntryID: firstKept(ids), TokensBefore: 1234, Details: details})
	s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text("after")}}})
	if err := s.Close(); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzSessionBoundary loads arbitrary session files holding compaction
// entries (any firstKeptEntryId, any details, nested or broken) under the
// verbatim-lines context rules. Loading and building the context must
// never panic; the session's lazy plan and the entry-based BuildContext
// must agree on the context; and a context that starts at a boundary
// starts with the boundary message.
func FuzzSessionBoundary(f *testing.F) {
	verbatim := map[string]any{"strategy": Strategy, "promptVersion": 3, "rung": "planned",
		"parameters": map[string]any{"compression_ratio": 0.5, "preserve_recent": 2}}
	f.Add(seedBoundarySession(f, func(ids []string) *string { return &ids[2] }, verbatim))
	f.Add(seedBoundarySession(f, func([]string) *string { return nil }, verbatim))
	f.Add(seedBoundarySession(f, func([]string) *string { s := "missing1"; return &s }, verbatim))
	f.Add(seedBoundarySession(f, func(ids []string) *string { return &ids[0] }, map[string]any{"strategy": 7}))
	f.Add(seedBoundarySession(f, func(ids []string) *string { return &ids[1] }, nil))
	f.Add([]byte(`{"type":"session","version":3,"id":"x","cwd":"/"}` + "\n" +
		`{"type":"compaction","id":"c1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","summary":"s","firstKeptEntryId":"c1","details":{"strategy":"verbatim-lines"}}` + "\n"))
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		defer func() {
			matches, _ := filepath.Glob(filepath.Join(dir, "*"))
			for _, m := range matches {
				os.RemoveAll(m)
			}
		}()
		s, err := session.Open(path, "/cwd")
		if err != nil {
			return // a documented error (unreadable, not a session file)
		}
		defer s.Close()
		planned := s.Plan(ContextRules).Messages()
		branch := s.Branch(s.Leaf())
		built := BuildContext(branch).Messages
		if len(planned) != len(built) {
			t.Fatalf("plan has %d messages, BuildContext %d", len(planned), len(built))
		}
		for i := range planned {
			a, _ := json.Marshal(planned[i])
			b, _ := json.Marshal(built[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("message %d differs:\nplan  %s\nbuild %s", i, a, b)
			}
		}
		if LastBoundary(branch) >= 0 {
			if len(built) == 0 || built[0].Role != llm.RoleCustom || built[0].CustomType != BoundaryCustomType {
				t.Fatalf("a context after a boundary starts with %+v", built)
			}
		}
	})
}

// fuzzDir is a scratch directory in memory when /dev/shm is there (every
// input is written to a file and loaded), else a temporary directory.
func fuzzDir(f *testing.F) string {
	if d, err := os.MkdirTemp("/dev/shm", "atomic-fuzz-"); err == nil {
		f.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return f.TempDir()
}
