package e2e

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// SpecialFiles puts, in dir, things named *<suffix> that are no regular
// files: a FIFO (opening it for reading would block until a
// writer comes), a socket, a symlink to /dev/zero (endless), a directory
// and a dangling symlink.
func SpecialFiles(t testing.TB, dir, suffix string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"+suffix), 0o644); err != nil {
		t.Fatal(err)
	}
	// A socket's path must be short: bound in a short directory, then
	// moved.
	short, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	l, err := net.Listen("unix", filepath.Join(short, "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Rename(filepath.Join(short, "s"), filepath.Join(dir, "sock"+suffix)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero"+suffix)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"+suffix), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling"+suffix)); err != nil {
		t.Fatal(err)
	}
}
