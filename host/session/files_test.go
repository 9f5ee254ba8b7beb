//go:build unix

package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// within fails the test if f blocks (an open of a FIFO nobody opens).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// Open, ReadHeader and CopyFile refuse whatever is not a regular file, at
// once: a FIFO nobody opens, /dev/null (which would open as an empty
// session and swallow the entries), /dev/stdin, a link to a FIFO.
func TestSpecialFilesAreNotSessions(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(fifo, link)
	for _, p := range []string{fifo, link, "/dev/null", "/dev/stdin"} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().IsRegular() {
			continue
		}
		within(t, "Open "+p, func() {
			if _, err := Open(p, "/cwd"); !errors.Is(err, fsutil.ErrNotRegular) {
				t.Errorf("Open %s: %v", p, err)
			}
		})
		within(t, "ReadHeader "+p, func() {
			if _, ok := ReadHeader(p); ok {
				t.Errorf("ReadHeader %s: ok", p)
			}
		})
		within(t, "CopyFile "+p, func() {
			if _, err := CopyFile(context.Background(), p, filepath.Join(dir, "out"), ""); !errors.Is(err, fsutil.ErrNotRegular) {
				t.Errorf("CopyFile %s: %v", p, err)
			}
		})
	}
}

// A session file swapped for a FIFO after it was opened: the next append
// fails with an error instead of blocking, and the entry is kept.
func TestSessionFileSwappedForFIFO(t *testing.T) {
	path := copyFixture(t, "pi-v3.jsonl")
	s := mustOpen(t, path)
	defer s.Close()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	within(t, "append", func() {
		_, err := s.AppendEntry(Entry{Type: TypeCustom, CustomType: "x"})
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("append into a FIFO: %v", err)
		}
	})
}

// CopyFile streams: the copy is the header (with the new cwd) and then the
// original bytes, for a file larger than any buffer.
func TestCopyFileStreams(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.jsonl")
	header := `{"type":"session","version":3,"id":"abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/old"}`
	body := strings.Repeat(`{"type":"custom","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","customType":"x"}`+"\n", 50_000)
	if err := os.WriteFile(src, []byte("\n"+header+"\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
	dst, err := CopyFile(context.Background(), src, filepath.Join(dir, "out"), "/new")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	want := strings.Replace(header, "/old", "/new", 1) + "\n" + body
	if string(got) != want {
		t.Fatalf("copy differs: %d bytes, want %d", len(got), len(want))
	}
}

// The version migration of a session file reached through a link replaces
// the file the link points to; the link stays.
func TestMigrationKeepsLink(t *testing.T) {
	real := copyFixture(t, "pi-v2.jsonl")
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, link)
	s.Close()
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if h, ok := ReadHeader(real); !ok || h.Version != Version {
		t.Fatalf("the target was not migrated: %+v", h)
	}
}

// CopyFile stops when its context ends: the error is the context's, and
// neither the copy nor its temporary file is left in the directory.
func TestCopyFileCancelled(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.jsonl")
	header := `{"type":"session","version":3,"id":"abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/old"}`
	if err := os.WriteFile(src, []byte(header+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(src, 1<<30); err != nil { // 1 GiB, sparse
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once the temporary file has 1 MiB in it.
	go func() {
		defer cancel()
		for {
			ents, _ := os.ReadDir(out)
			for _, e := range ents {
				if fi, err := e.Info(); err == nil && fi.Size() >= 1<<20 {
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := CopyFile(ctx, src, out, "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CopyFile: %v, want context.Canceled", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}
