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
