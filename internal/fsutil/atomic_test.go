package fsutil

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteCreatesReplacesAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.json")
	if err := WriteBytes(path, []byte("one"), Options{DirPerm: 0o700, Sync: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("two"), Options{Perm: 0o644}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(got) != "two" || st.Mode().Perm() != 0o640 { // a replaced file keeps its mode
		t.Fatalf("content %q mode %v", got, st.Mode().Perm())
	}
	if sub, _ := os.Stat(filepath.Dir(path)); sub.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", sub.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteFailureKeepsOldContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteBytes(path, []byte("old"), Options{}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, Options{}, func(w *bufio.Writer) error {
		_, _ = w.WriteString("half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("content %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestNoReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteBytes(path, []byte("a"), Options{NoReplace: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("b"), Options{NoReplace: true}); err == nil {
		t.Fatal("second write replaced the file")
	}
	if got, _ := os.ReadFile(path); string(got) != "a" {
		t.Fatalf("content %q", got)
	}
}
