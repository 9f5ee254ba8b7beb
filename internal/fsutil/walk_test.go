package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWalkSymlinkLoops(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a", "b", "f.md"), []byte("x"), 0o644)
	for _, n := range []string{"l1", "l2", "l3"} {
		if err := os.Symlink(root, filepath.Join(root, "a", n)); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	probs := Walk(root, WalkOptions{FollowSymlinks: true}, func(p string, _ fs.DirEntry) { files = append(files, p) })
	if len(files) != 1 || len(probs) != 3 {
		t.Fatalf("files %v, problems %v", files, probs)
	}
	for _, p := range probs {
		if p.Limit {
			t.Errorf("a loop is not a limit: %v", p)
		}
	}
}

func TestWalkBounds(t *testing.T) {
	root := t.TempDir()
	deep := root
	for i := 0; i < 5; i++ {
		deep = filepath.Join(deep, "d")
	}
	os.MkdirAll(deep, 0o755)
	for i := 0; i < 10; i++ {
		os.WriteFile(filepath.Join(root, string(rune('a'+i))), nil, 0o644)
	}
	probs := Walk(root, WalkOptions{MaxDepth: 2}, func(string, fs.DirEntry) {})
	if len(probs) != 1 || !probs[0].Limit {
		t.Errorf("depth: %v", probs)
	}
	n := 0
	probs = Walk(root, WalkOptions{MaxEntries: 4}, func(string, fs.DirEntry) { n++ })
	if n > 4 || len(probs) != 1 || !probs[0].Limit {
		t.Errorf("entries: %d, %v", n, probs)
	}
}
