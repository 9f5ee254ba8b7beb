package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"shift+ctrl+p": "ctrl+shift+p", "pageUp": "pgup", "escape": "esc", "alt+Enter": "alt+enter",
		"ctrl++": "ctrl++", "f12": "f12", "super+k": "super+k", "ctrl+]": "ctrl+]",
	} {
		got, err := normalizeKey(in)
		if err != nil || got != want {
			t.Errorf("normalizeKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ctrl+", "hyper+a", "f13", "ctrl+shift", "enterr"} {
		if got, err := normalizeKey(bad); err == nil {
			t.Errorf("normalizeKey(%q) = %q, want an error", bad, got)
		}
	}
}

func TestKeymapFileNotAnObject(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keybindings.json"), []byte(`["ctrl+q"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	km := loadKeymap(dir)
	if !strings.Contains(km.warning, "not a JSON object") || km.list("app.exit") != "ctrl+d" {
		t.Fatalf("warning %q, app.exit %q", km.warning, km.list("app.exit"))
	}
}

func TestPasteMarkers(t *testing.T) {
	var p pastes
	small := p.add("one line")
	big := p.add(strings.Repeat("x", 1200))
	many := p.add(strings.Repeat("l\n", 11) + "l")
	if small != "one line" || big != "[paste #1 1200 chars]" || many != "[paste #2 +12 lines]" {
		t.Fatalf("got %q %q %q", small, big, many)
	}
	got := p.expand("a " + big + " b [paste #9 +3 lines] " + many)
	want := "a " + strings.Repeat("x", 1200) + " b [paste #9 +3 lines] " + strings.Repeat("l\n", 11) + "l"
	if got != want {
		t.Fatalf("expand: %q", got)
	}
}

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

func TestMarkerAround(t *testing.T) {
	var p pastes
	mk := p.add(strings.Repeat("x\n", 20))
	line := []rune("a " + mk + " b [paste #7 3 chars]")
	end := 2 + len([]rune(mk))
	if f, to, ok := p.markerAround(line, end, true); !ok || f != 2 || to != end {
		t.Fatalf("backward at the end: %d %d %v", f, to, ok)
	}
	if f, to, ok := p.markerAround(line, 2, false); !ok || f != 2 || to != end {
		t.Fatalf("forward at the start: %d %d %v", f, to, ok)
	}
	if _, _, ok := p.markerAround(line, end-1, true); ok {
		t.Fatal("inside the marker")
	}
	if _, _, ok := p.markerAround(line, len(line), true); ok {
		t.Fatal("a marker of no paste")
	}
}
