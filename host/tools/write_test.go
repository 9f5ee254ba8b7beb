package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCreatesDirectories(t *testing.T) {
	dir := t.TempDir()
	got := mustText(t, WriteTool{}, dir, map[string]any{"path": "a/b/c.txt", "content": "héllo\n"})
	if got != "Successfully wrote 7 bytes to a/b/c.txt" {
		t.Fatalf("got %q", got)
	}
	if s := readFile(t, filepath.Join(dir, "a", "b", "c.txt")); s != "héllo\n" {
		t.Fatalf("file holds %q", s)
	}
}

func TestWriteOverwrites(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "old content that is long"})
	mustText(t, WriteTool{}, dir, map[string]any{"path": "f.txt", "content": "new"})
	if s := readFile(t, filepath.Join(dir, "f.txt")); s != "new" {
		t.Fatalf("file holds %q", s)
	}
	// Empty content is allowed.
	if got := mustText(t, WriteTool{}, dir, map[string]any{"path": "f.txt", "content": ""}); got != "Successfully wrote 0 bytes to f.txt" {
		t.Fatalf("got %q", got)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	if msg := mustFail(t, WriteTool{}, dir, map[string]any{"path": "x"}); !strings.Contains(msg, `"content"`) {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, WriteTool{}, dir, map[string]any{"path": ".", "content": "x"}); !strings.Contains(msg, "directory") {
		t.Fatalf("got %q", msg)
	}
	writeFiles(t, dir, map[string]string{"file": "x"})
	if msg := mustFail(t, WriteTool{}, dir, map[string]any{"path": "file/below", "content": "x"}); !strings.Contains(msg, "file/below") {
		t.Fatalf("got %q", msg)
	}
}
