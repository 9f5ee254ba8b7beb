package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func seedFuzz(f *testing.F) {
	for _, name := range []string{"pi-v1.jsonl", "pi-v2.jsonl", "pi-v3.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"session","version":3,"id":"x","cwd":"/"}` + "\n" + `{"type":"message","id":"a","parentId":"a"}`))
	f.Add([]byte(`{"type":"session","version":3,"id":"x"}` + "\n" + `{"type":"label","id":"a","parentId":null,"targetId":"a","label":7}` + "\n"))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":0}` + "\n"))
	f.Add([]byte("garbage"))
}

// FuzzOpen loads arbitrary bytes as a session file: it must never panic,
// never change the file without keeping a backup of it, and what it loads
// must be consistent.
func FuzzOpen(f *testing.F) {
	syncEnabled = false // durability is not what this target checks
	defer func() { syncEnabled = true }()
	seedFuzz(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		olds, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, o := range olds {
			os.RemoveAll(o)
		}
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, "/cwd")
		after, _ := os.ReadFile(path)
		if !bytes.Equal(after, data) {
			backups, _ := filepath.Glob(path + ".v*.bak")
			if len(backups) != 1 {
				t.Fatalf("the file changed without a backup (err %v)", err)
			}
			if b, _ := os.ReadFile(backups[0]); !bytes.Equal(b, data) {
				t.Fatal("the backup differs from the original")
			}
		}
		if err != nil {
			return
		}
		defer s.Close()
		es, err := s.Entries()
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != s.Len() {
			t.Fatalf("%d entries, Len %d", len(es), s.Len())
		}
		if s.Len() > 0 && s.Leaf() != es[len(es)-1].ID {
			t.Fatal("the leaf is not the last entry")
		}
		tree, err := s.Tree()
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		stack := append([]*TreeNode(nil), tree...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			count++
			stack = append(stack, n.Children...)
		}
		if count != len(es) {
			t.Fatalf("the tree has %d nodes for %d entries", count, len(es))
		}
		if b, err := json.Marshal(tree); err != nil || !json.Valid(b) {
			t.Fatalf("tree JSON: %v", err)
		}
		for _, e := range es {
			b, err := json.Marshal(e)
			if err != nil || !json.Valid(b) {
				t.Fatalf("entry %s JSON: %v", e.ID, err)
			}
			if _, err := s.EntriesSince(e.ID); err != nil {
				t.Fatal(err)
			}
		}
		_ = s.BuildContext()
		// Appending works and the result loads again.
		e := s.AppendMessage(assistant("fuzz")) // an assistant message: written even to a new file
		s.Close()
		r, err := Open(path, "/cwd")
		if err != nil {
			t.Fatalf("reopen after append: %v", err)
		}
		if r.Leaf() != e.ID || r.Len() != len(es)+1 {
			t.Fatalf("after append: leaf %s len %d", r.Leaf(), r.Len())
		}
		r.Close()
	})
}

// FuzzScanLine checks the index scanner against encoding/json: a line is
// accepted exactly when it is a valid JSON object, and the fields it picks
// out are the ones a decoder sees.
func FuzzScanLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}`,
		`{"type":"label","id":"\u0061b","parentId":"p","label":"\"q\"","n":-1.5e+3,"a":[true,false,null,{}]}`,
		`{"id":1}`, `[]`, `{"a":"\x01"}`, `{"a":01}`, `{"a":"\ud800"}`, ` {"a" : [ 1 , 2 ] } `, `{"a":"` + string([]byte{0xff}) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := scanEntryLine(line)
		var obj map[string]json.RawMessage
		valid := json.Valid(line) && json.Unmarshal(line, &obj) == nil && obj != nil
		if ok != valid {
			t.Fatalf("scanner says %v, encoding/json says %v for %q", ok, valid, line)
		}
		if validJSON(line) != json.Valid(line) {
			t.Fatalf("validJSON disagrees for %q", line)
		}
		if !ok {
			return
		}
		str := func(k string) string {
			var s string
			if raw, has := obj[k]; has {
				_ = json.Unmarshal(raw, &s)
			}
			return s
		}
		if m.id != str("id") || m.typ != str("type") || m.parent != str("parentId") || m.ts != str("timestamp") {
			t.Fatalf("fields %+v differ from %v", m, obj)
		}
	})
}
