package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLsOrdering(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.txt":     "",
		"A.txt":     "",
		"c/inner":   "",
		".env":      "",
		"Zeta/x":    "",
		"alpha.txt": "",
	})
	if err := os.Symlink(filepath.Join(dir, "c"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got := mustText(t, LsTool{}, dir, nil)
	want := ".env\nA.txt\nalpha.txt\nb.txt\nc/\nlink/\nZeta/"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := mustText(t, LsTool{}, dir, map[string]any{"path": "c"}); got != "inner" {
		t.Fatalf("got %q", got)
	}
}

func TestLsEmptyAndErrors(t *testing.T) {
	dir := t.TempDir()
	if got := mustText(t, LsTool{}, dir, map[string]any{}); got != "(empty directory)" {
		t.Fatalf("got %q", got)
	}
	if msg := mustFail(t, LsTool{}, dir, map[string]any{"path": "nope"}); msg != "Path not found: nope" {
		t.Fatalf("got %q", msg)
	}
	writeFiles(t, dir, map[string]string{"f": ""})
	if msg := mustFail(t, LsTool{}, dir, map[string]any{"path": "f"}); msg != "Not a directory: f" {
		t.Fatalf("got %q", msg)
	}
}

func TestLsLimit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": "", "b": "", "c": "", "d": ""})
	res, err := run(t, LsTool{}, dir, map[string]any{"limit": 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ResultText(); got != "a\nb\nc\n\n[3 entries limit reached. Use limit=6 for more]" {
		t.Fatalf("got %q", got)
	}
	if d, ok := res.Details.(LsDetails); !ok || d.EntryLimitReached != 3 {
		t.Fatalf("details %#v", res.Details)
	}
	if got := mustText(t, LsTool{}, dir, map[string]any{"limit": 4}); strings.Contains(got, "limit") {
		t.Fatalf("got %q", got)
	}
}
