package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatchFiles(t *testing.T) {
	paths := []string{"README.md", "src/", "src/main.go", "src/util.go", "docs/", "docs/main.md", "deep/a/b/main.go"}
	got := matchFiles(paths, "main")
	if len(got) == 0 || got[0] != "docs/main.md" && got[0] != "src/main.go" || got[len(got)-1] != "deep/a/b/main.go" {
		t.Fatalf("main: %v", got)
	}
	if got := matchFiles(paths, "src/"); strings.Join(got, " ") != "src/main.go src/util.go" {
		t.Fatalf("src/: %v", got)
	}
	if got := matchFiles(paths, "smg"); len(got) != 1 || got[0] != "src/main.go" {
		t.Fatalf("smg (letters in order): %v", got)
	}
}

func TestWalkFilesOutsideGit(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/b/c.txt", "top.md", ".hidden/x", "node_modules/m/index.js"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(listFiles(t.Context(), dir), " ")
	if got != "a/ a/b/ a/b/c.txt top.md" {
		t.Fatalf("listFiles: %s", got)
	}
}
