//go:build unix

package fsutil

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO nobody opens: any blocking open of it hangs.
func mkfifo(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// within fails the test if f does not return in time (a blocked open).
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

func TestOpenRegularRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir)
	link := filepath.Join(dir, "to-fifo")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		fifo:         "FIFO",
		link:         "FIFO", // links are followed for reading
		"/dev/null":  "character device",
		"/dev/zero":  "character device",
		"/dev/stdin": "", // whatever the test's stdin is, it is not a regular file
		dir:          "directory",
	}
	for p, kind := range cases {
		within(t, "OpenRegular("+p+")", func() {
			f, _, err := OpenRegular(p)
			if err == nil {
				f.Close()
				if p == "/dev/stdin" {
					if fi, _ := os.Stat(p); fi != nil && fi.Mode().IsRegular() {
						return // stdin redirected from a file
					}
				}
				t.Errorf("%s opened", p)
				return
			}
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kind) {
				t.Errorf("%s: %v", p, err)
			}
		})
	}
	within(t, "OpenRegularFile(fifo, O_WRONLY)", func() {
		if _, _, err := OpenRegularFile(fifo, os.O_WRONLY|os.O_APPEND, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("write open of a FIFO: %v", err)
		}
	})
	if _, _, err := OpenRegular(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	reg := filepath.Join(dir, "f")
	os.WriteFile(reg, []byte("x"), 0o600)
	f, fi, err := OpenRegular(reg)
	if err != nil || fi.Size() != 1 {
		t.Fatalf("regular: %v %v", fi, err)
	}
	f.Close()
}

func TestReadRegularCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, make([]byte, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRegular(p, 999); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
	if b, err := ReadRegular(p, 1000); err != nil || len(b) != 1000 {
		t.Fatalf("at the cap: %d %v", len(b), err)
	}
	if _, err := ReadRegular("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("/dev/zero: %v", err)
	}
}

// A path that exists and is not a regular file is never replaced: not a
// device node, not a FIFO, not a directory, not a symbolic link (without
// FollowLinks).
func TestWriteRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir)
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	devLink := filepath.Join(dir, "devnull")
	os.Symlink("/dev/null", devLink)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	for _, p := range []string{fifo, link, sub, "/dev/null", "/dev/full"} {
		within(t, "Write("+p+")", func() {
			err := WriteBytes(p, []byte("new"), Options{})
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: %v", p, err)
			}
		})
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("target = %q", b)
	}
	// Following links: the link stays, a link to a device is still refused.
	if err := WriteBytes(devLink, []byte("new"), Options{FollowLinks: true}); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("link to /dev/null: %v", err)
	}
	if err := WriteBytes(link, []byte("new"), Options{FollowLinks: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("FollowLinks replaced the link itself")
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target = %q", b)
	}
	// A dangling relative link: the file it names is created.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("created", dangling)
	if err := WriteBytes(dangling, []byte("c"), Options{FollowLinks: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "created")); string(b) != "c" {
		t.Fatalf("created = %q", b)
	}
	// A loop of links is an error, not a hang.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := WriteBytes(a, nil, Options{FollowLinks: true}); err == nil {
		t.Fatal("a loop of links was written through")
	}
}

func TestNoReplaceRace(t *testing.T) {
	// NoReplace links the temporary file into place, so a file that
	// appears while the data is written is not replaced.
	path := filepath.Join(t.TempDir(), "f")
	err := Write(path, Options{NoReplace: true}, func(w *bufio.Writer) error {
		return os.WriteFile(path, []byte("theirs"), 0o600)
	})
	if err == nil {
		t.Fatal("replaced a file that appeared meanwhile")
	}
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Fatalf("content %q", b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

func TestRequireWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any file")
	}
	path := filepath.Join(t.TempDir(), "ro")
	os.WriteFile(path, []byte("ro"), 0o444)
	if err := WriteBytes(path, []byte("x"), Options{RequireWritable: true}); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("read-only file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "ro" {
		t.Fatalf("content %q", b)
	}
}
