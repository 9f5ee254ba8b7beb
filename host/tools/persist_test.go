//go:build unix

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestOutputStoreCreateLayoutAndModes(t *testing.T) {
	base := t.TempDir()
	s := &OutputStore{Base: base}
	f, err := s.Create("019fdf86-cf98-7327-8a73-21365028f6ae", BashOutputPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	userDir := filepath.Join(base, fmt.Sprintf("atomic-%d", os.Getuid()))
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(userDir) + `/019fdf86-cf98-7327-8a73-21365028f6ae/atomic-bash-[0-9a-f]{16}\.log$`)
	if !re.MatchString(f.Name()) {
		t.Fatalf("path %q does not follow the layout", f.Name())
	}
	if m := mode(t, userDir); !m.IsDir() || m.Perm() != 0o700 {
		t.Errorf("user dir mode %v", m)
	}
	if m := mode(t, filepath.Dir(f.Name())); !m.IsDir() || m.Perm() != 0o700 {
		t.Errorf("session dir mode %v", m)
	}
	if m := mode(t, f.Name()); !m.IsRegular() || m.Perm() != 0o600 {
		t.Errorf("file mode %v", m)
	}
	// A second file in the same session gets another name.
	g, err := s.Create("019fdf86-cf98-7327-8a73-21365028f6ae", BashOutputPrefix)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	if g.Name() == f.Name() {
		t.Fatal("same name twice")
	}
}

func TestOutputStoreRefusesSymlinkedUserDir(t *testing.T) {
	base := t.TempDir()
	target := t.TempDir()
	s := &OutputStore{Base: base}
	if err := os.Symlink(target, s.UserDir()); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Create("sess", BashOutputPrefix); err == nil {
		f.Close()
		t.Fatalf("created %s through a symlink", f.Name())
	}
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Fatalf("something was written behind the symlink: %v", ents)
	}
}

func TestOutputStoreRefusesSymlinkedSessionDir(t *testing.T) {
	base := t.TempDir()
	target := t.TempDir()
	s := &OutputStore{Base: base}
	if err := os.Mkdir(s.UserDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(s.UserDir(), "sess")); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Create("sess", BashOutputPrefix); err == nil {
		f.Close()
		t.Fatalf("created %s through a symlink", f.Name())
	}
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Fatalf("something was written behind the symlink: %v", ents)
	}
}

func TestOutputStoreTightensLooseMode(t *testing.T) {
	base := t.TempDir()
	s := &OutputStore{Base: base}
	if err := os.Mkdir(s.UserDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.UserDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	f, err := s.Create("sess", BashOutputPrefix)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if m := mode(t, s.UserDir()); m.Perm() != 0o700 {
		t.Fatalf("mode %v, want 0700", m)
	}
}

func TestOutputStoreRefusesForeignOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	base := t.TempDir()
	s := &OutputStore{Base: base}
	if err := os.Mkdir(s.UserDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(s.UserDir(), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Create("sess", BashOutputPrefix); err == nil {
		f.Close()
		t.Fatal("used a directory owned by another user")
	} else if !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Fatalf("unexpected error: %v", err)
	}
}

func TestOutputStoreSanitisesSessionID(t *testing.T) {
	base := t.TempDir()
	s := &OutputStore{Base: base}
	for _, id := range []string{"../../escape", "..", "", "a/b"} {
		f, err := s.Create(id, BashOutputPrefix)
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		f.Close()
		dir := filepath.Dir(f.Name())
		if filepath.Dir(dir) != s.UserDir() || strings.HasPrefix(filepath.Base(dir), ".") {
			t.Fatalf("%q: file %s is not one level below %s", id, f.Name(), s.UserDir())
		}
	}
}

func writeAged(t *testing.T, path string, size int, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestOutputStorePrune(t *testing.T) {
	base := t.TempDir()
	s := &OutputStore{Base: base, MaxTotalBytes: 250}
	u := s.UserDir()
	if err := os.Mkdir(u, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(u, "s1", "atomic-bash-old.log")
	writeAged(t, old, 10, 8*24*time.Hour)
	other := filepath.Join(u, "s1", "notes.txt") // not ours: kept however old
	writeAged(t, other, 10, 30*24*time.Hour)
	big1 := filepath.Join(u, "s2", "atomic-bash-a.log")
	writeAged(t, big1, 100, 5*time.Hour)
	big2 := filepath.Join(u, "s2", "atomic-bash-b.log")
	writeAged(t, big2, 100, 4*time.Hour)
	recent := filepath.Join(u, "s3", "atomic-bash-c.log")
	writeAged(t, recent, 100, time.Minute)
	emptyDir := filepath.Join(u, "s4")
	if err := os.Mkdir(emptyDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A symlinked session directory is not followed.
	outside := t.TempDir()
	victim := filepath.Join(outside, "atomic-bash-victim.log")
	writeAged(t, victim, 10, 30*24*time.Hour)
	if err := os.Symlink(outside, filepath.Join(u, "s5")); err != nil {
		t.Fatal(err)
	}

	if err := s.Prune(); err != nil {
		t.Fatal(err)
	}
	if exists(old) {
		t.Error("file older than the age limit was kept")
	}
	if !exists(other) {
		t.Error("a file that is not persisted output was removed")
	}
	// 300 bytes of recent files, cap 250: the oldest goes, the rest fits.
	if exists(big1) || !exists(big2) || !exists(recent) {
		t.Errorf("size rule: big1 %v big2 %v recent %v (want false true true)", exists(big1), exists(big2), exists(recent))
	}
	if exists(emptyDir) {
		t.Error("empty session directory was kept")
	}
	if !exists(victim) {
		t.Error("prune followed a symlink")
	}

	// The size rule never removes files younger than MinAge.
	s2 := &OutputStore{Base: base, MaxTotalBytes: 1}
	if err := s2.Prune(); err != nil {
		t.Fatal(err)
	}
	if !exists(recent) {
		t.Error("recent file removed by the size rule")
	}
}

func TestOutputStorePruneWithoutTree(t *testing.T) {
	s := &OutputStore{Base: t.TempDir()}
	if err := s.Prune(); err != nil {
		t.Fatal(err)
	}
	if exists(s.UserDir()) {
		t.Fatal("prune created the tree")
	}
}
