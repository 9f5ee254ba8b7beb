package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func grepFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":       "ignored/\n*.log\n",
		"a.go":             "package a\n\nfunc Hello() {}\n",
		"b.txt":            "hello world\nHELLO again\nbye\n",
		"sub/c.go":         "package sub\n// hello from sub\n",
		"ignored/d.go":     "hello ignored\n",
		"app.log":          "hello log\n",
		".hidden/e.txt":    "hello hidden\n",
		".git/config":      "hello git\n",
		"crlf.txt":         "hello crlf\r\nnext\r\n",
		"regex.txt":        "a.b\naxb\n",
		"sub/deep/f.md":    "nothing here\n",
		"sub/deep/g.go.md": "hello markdown\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("hello\x00binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGrepBasic(t *testing.T) {
	dir := grepFixture(t)
	got := mustText(t, GrepTool{}, dir, map[string]any{"pattern": "hello"})
	want := strings.Join([]string{
		".hidden/e.txt:1: hello hidden",
		"b.txt:1: hello world",
		"crlf.txt:1: hello crlf",
		"sub/c.go:2: // hello from sub",
		"sub/deep/g.go.md:1: hello markdown",
	}, "\n")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestGrepOptions(t *testing.T) {
	dir := grepFixture(t)
	got := mustText(t, GrepTool{}, dir, map[string]any{"pattern": "hello", "ignoreCase": true, "glob": "*.go"})
	if got != "a.go:3: func Hello() {}\nsub/c.go:2: // hello from sub" {
		t.Fatalf("ignoreCase+glob: %q", got)
	}
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "hello", "glob": "sub/**/*.md"})
	if got != "sub/deep/g.go.md:1: hello markdown" {
		t.Fatalf("path glob: %q", got)
	}
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "hello", "glob": "!*.txt"})
	if got != "sub/c.go:2: // hello from sub\nsub/deep/g.go.md:1: hello markdown" {
		t.Fatalf("negated glob: %q", got)
	}
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "a.b", "literal": true})
	if got != "regex.txt:1: a.b" {
		t.Fatalf("literal: %q", got)
	}
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "a.b", "path": "regex.txt"})
	if got != "regex.txt:1: a.b\nregex.txt:2: axb" {
		t.Fatalf("regex on a file: %q", got)
	}
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "^package", "path": "sub"})
	if got != "c.go:1: package sub" {
		t.Fatalf("sub dir: %q", got)
	}
	// An explicitly named ignored file is still searched.
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "hello", "path": "app.log"})
	if got != "app.log:1: hello log" {
		t.Fatalf("explicit file: %q", got)
	}
}

func TestGrepNoMatchesAndErrors(t *testing.T) {
	dir := grepFixture(t)
	if got := mustText(t, GrepTool{}, dir, map[string]any{"pattern": "zzz-not-there"}); got != "No matches found" {
		t.Fatalf("got %q", got)
	}
	if msg := mustFail(t, GrepTool{}, dir, map[string]any{"pattern": "("}); !strings.Contains(msg, "Invalid regular expression") {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, GrepTool{}, dir, map[string]any{"pattern": "x", "path": "nope"}); msg != "Path not found: nope" {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, GrepTool{}, dir, map[string]any{"pattern": "x", "context": "many"}); !strings.Contains(msg, "context") {
		t.Fatalf("got %q", msg)
	}
}

func TestGrepContext(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": numberedLines(1, 20) + "\n"})
	got := mustText(t, GrepTool{}, dir, map[string]any{"pattern": `^line (5|7|15)$`, "context": 2})
	want := strings.Join([]string{
		"f.txt-3- line 3",
		"f.txt-4- line 4",
		"f.txt:5: line 5",
		"f.txt-6- line 6",
		"f.txt:7: line 7",
		"f.txt-8- line 8",
		"f.txt-9- line 9",
		"f.txt-13- line 13",
		"f.txt-14- line 14",
		"f.txt:15: line 15",
		"f.txt-16- line 16",
		"f.txt-17- line 17",
	}, "\n")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// Context at the file edges.
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": `^line (1|20)$`, "context": 1})
	if got != "f.txt:1: line 1\nf.txt-2- line 2\nf.txt-19- line 19\nf.txt:20: line 20" {
		t.Fatalf("edges: %q", got)
	}
}

func TestGrepLimit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": numberedLines(1, 30), "b.txt": "line x"})
	res, err := run(t, GrepTool{}, dir, map[string]any{"pattern": "line", "limit": 5})
	if err != nil {
		t.Fatal(err)
	}
	want := numberedGrep("a.txt", 1, 5) + "\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern]"
	if got := res.ResultText(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if d, ok := res.Details.(GrepDetails); !ok || d.MatchLimitReached != 5 {
		t.Fatalf("details %#v", res.Details)
	}
	// Exactly as many matches as the limit: no notice.
	got := mustText(t, GrepTool{}, dir, map[string]any{"pattern": "line x", "limit": 1})
	if got != "b.txt:1: line x" {
		t.Fatalf("got %q", got)
	}
	// Default limit is 100.
	writeFiles(t, dir, map[string]string{"a.txt": numberedLines(1, 300)})
	got = mustText(t, GrepTool{}, dir, map[string]any{"pattern": "line [0-9]"})
	if !strings.HasSuffix(got, "a.txt:100: line 100\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern]") {
		t.Fatalf("tail %q", got[len(got)-200:])
	}
}

func numberedGrep(name string, from, to int) string {
	var lines []string
	for i := from; i <= to; i++ {
		lines = append(lines, fmt.Sprintf("%s:%d: line %d", name, i, i))
	}
	return strings.Join(lines, "\n")
}

func TestGrepLongLinesAndBytesLimit(t *testing.T) {
	dir := t.TempDir()
	long := "match " + strings.Repeat("z", 1000)
	writeFiles(t, dir, map[string]string{"long.txt": long + "\n"})
	res, err := run(t, GrepTool{}, dir, map[string]any{"pattern": "match"})
	if err != nil {
		t.Fatal(err)
	}
	want := "long.txt:1: " + long[:GrepMaxLineLength] + "... [truncated]\n\n[Some lines truncated to 500 chars. Use the read tool to see full lines]"
	if got := res.ResultText(); got != want {
		t.Fatalf("got %q", got)
	}
	if d := res.Details.(GrepDetails); !d.LinesTruncated {
		t.Fatalf("details %#v", d)
	}

	// 200 matches of ~400 bytes exceed 50KB.
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("hit " + strings.Repeat("y", 400) + "\n")
	}
	writeFiles(t, dir, map[string]string{"long.txt": b.String()})
	res, err = run(t, GrepTool{}, dir, map[string]any{"pattern": "hit", "limit": 1000})
	if err != nil {
		t.Fatal(err)
	}
	text := res.ResultText()
	if !strings.HasSuffix(text, "\n\n[50.0KB limit reached]") || len(text) > DefaultMaxBytes+100 {
		t.Fatalf("len %d tail %q", len(text), text[len(text)-60:])
	}
	if d := res.Details.(GrepDetails); d.Truncation == nil || !d.Truncation.Truncated {
		t.Fatalf("details %#v", d)
	}
}
