package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func editArgs(path, oldText, newText string) map[string]any {
	return map[string]any{"path": path, "oldText": oldText, "newText": newText}
}

func TestEditUnique(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.go": "package main\n\nfunc a() {}\n\nfunc b() {}\n"})
	res, err := run(t, EditTool{}, dir, editArgs("f.go", "func b() {}", "func b() int { return 1 }"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ResultText(); got != "Successfully replaced text in f.go." {
		t.Fatalf("got %q", got)
	}
	if s := readFile(t, filepath.Join(dir, "f.go")); s != "package main\n\nfunc a() {}\n\nfunc b() int { return 1 }\n" {
		t.Fatalf("file holds %q", s)
	}
	d, ok := res.Details.(EditDetails)
	if !ok {
		t.Fatalf("details %#v", res.Details)
	}
	if d.FirstChangedLine != 5 {
		t.Errorf("firstChangedLine = %d", d.FirstChangedLine)
	}
	if !strings.Contains(d.Diff, "-func b() {}\n+func b() int { return 1 }") || !strings.Contains(d.Diff, "@@ -1,5 +1,5 @@") {
		t.Errorf("diff:\n%s", d.Diff)
	}
}

func TestEditNotFound(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "alpha\n  beta\n"})
	msg := mustFail(t, EditTool{}, dir, editArgs("f.txt", "gamma", "delta"))
	if !strings.Contains(msg, "Could not find") || !strings.Contains(msg, "f.txt") || !strings.Contains(msg, "exactly") || !strings.Contains(msg, "whitespace") {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, EditTool{}, dir, editArgs("nope.txt", "a", "b")); msg != "File not found: nope.txt" {
		t.Fatalf("got %q", msg)
	}
	if s := readFile(t, filepath.Join(dir, "f.txt")); s != "alpha\n  beta\n" {
		t.Fatalf("file changed: %q", s)
	}
}

func TestEditAmbiguous(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "x = 1\ny = 2\nx = 1\nx = 1\n"})
	msg := mustFail(t, EditTool{}, dir, editArgs("f.txt", "x = 1", "x = 3"))
	if !strings.Contains(msg, "Found 3 occurrences") || !strings.Contains(msg, "unique") || !strings.Contains(msg, "context") {
		t.Fatalf("got %q", msg)
	}
	// More context makes it unique.
	mustText(t, EditTool{}, dir, editArgs("f.txt", "y = 2\nx = 1", "y = 2\nx = 3"))
	if s := readFile(t, filepath.Join(dir, "f.txt")); s != "x = 1\ny = 2\nx = 3\nx = 1\n" {
		t.Fatalf("file holds %q", s)
	}
}

func TestEditNoChange(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "same"})
	if msg := mustFail(t, EditTool{}, dir, editArgs("f.txt", "same", "same")); !strings.Contains(msg, "No changes made to f.txt") {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, EditTool{}, dir, editArgs("f.txt", "", "x")); !strings.Contains(msg, "empty") {
		t.Fatalf("got %q", msg)
	}
}

func TestEditPreservesCRLFAndBOM(t *testing.T) {
	dir := t.TempDir()
	orig := "\uFEFFline one\r\nline two\r\nline three\r\n"
	writeFiles(t, dir, map[string]string{"win.txt": orig})
	// oldText given with LF line endings matches the CRLF file.
	mustText(t, EditTool{}, dir, editArgs("win.txt", "line one\nline two", "first\nsecond\nextra"))
	want := "\uFEFFfirst\r\nsecond\r\nextra\r\nline three\r\n"
	if s := readFile(t, filepath.Join(dir, "win.txt")); s != want {
		t.Fatalf("file holds %q, want %q", s, want)
	}
	// oldText with CRLF endings works as well.
	mustText(t, EditTool{}, dir, editArgs("win.txt", "extra\r\nline three", "last"))
	if s := readFile(t, filepath.Join(dir, "win.txt")); s != "\uFEFFfirst\r\nsecond\r\nlast\r\n" {
		t.Fatalf("file holds %q", s)
	}
}

func TestEditKeepsLF(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"unix.txt": "a\nb\n"})
	mustText(t, EditTool{}, dir, editArgs("unix.txt", "a\nb", "c\r\nd"))
	if s := readFile(t, filepath.Join(dir, "unix.txt")); s != "c\nd\n" {
		t.Fatalf("file holds %q", s)
	}
}

func TestEditKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(p, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustText(t, EditTool{}, dir, editArgs("run.sh", "hi", "bye"))
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
}

func TestEditFuzzy(t *testing.T) {
	dir := t.TempDir()
	// The file has trailing spaces and typographic quotes and dashes.
	writeFiles(t, dir, map[string]string{"f.txt": "intro\nsay(\u201chello\u201d)   \nrange 1\u20132\nend\n"})
	mustText(t, EditTool{}, dir, editArgs("f.txt", "say(\"hello\")\nrange 1-2", "say(\"bye\")"))
	if s := readFile(t, filepath.Join(dir, "f.txt")); s != "intro\nsay(\"bye\")\nend\n" {
		t.Fatalf("file holds %q", s)
	}
	// Fuzzy matches must be unique too.
	writeFiles(t, dir, map[string]string{"g.txt": "a \u2018x\u2019\na 'x'  \n"})
	if msg := mustFail(t, EditTool{}, dir, editArgs("g.txt", "a 'x'\n", "b")); !strings.Contains(msg, "Found 2 occurrences") {
		t.Fatalf("got %q", msg)
	}
}

func TestFuzzyNormalizeMapping(t *testing.T) {
	s := "a\u201cb  \nc\u2014d\t\n"
	norm := fuzzyNormalize(s)
	if norm != "a\"b\nc-d\n" {
		t.Fatalf("norm %q", norm)
	}
	// The quote maps back to the three-byte character, the newline to
	// itself, and a range to the original text it came from.
	if from, to := fuzzyOrigin(s, 1, 1); s[from:to] != "\u201c" {
		t.Fatalf("quote maps to %q", s[from:to])
	}
	if from, to := fuzzyOrigin(s, 3, 3); s[from:to] != "\n" {
		t.Fatalf("newline maps to %q", s[from:to])
	}
	if from, to := fuzzyOrigin(s, 4, 6); s[from:to] != "c\u2014d" {
		t.Fatalf("range maps to %q", s[from:to])
	}
}

func TestUnifiedDiff(t *testing.T) {
	old := numberedLines(1, 20) + "\n"
	new := strings.Replace(strings.Replace(old, "line 3\n", "line three\n", 1), "line 18\n", "", 1)
	diff, first := unifiedDiff("f", old, new, 2)
	want := `--- f
+++ f
@@ -1,5 +1,5 @@
 line 1
 line 2
-line 3
+line three
 line 4
 line 5
@@ -16,5 +16,4 @@
 line 16
 line 17
-line 18
 line 19
 line 20`
	if diff != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", diff, want)
	}
	if first != 3 {
		t.Fatalf("first = %d", first)
	}
	if d, f := unifiedDiff("f", "a\n", "a\n", 3); d != "" || f != 0 {
		t.Fatalf("no-change diff %q %d", d, f)
	}
	// Pure insertion at the start.
	d, f := unifiedDiff("f", "b\n", "a\nb\n", 0)
	if d != "--- f\n+++ f\n@@ -0,0 +1,1 @@\n+a" || f != 1 {
		t.Fatalf("insertion diff %q %d", d, f)
	}
}
