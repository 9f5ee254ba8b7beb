package tui_test

import (
	"encoding/json"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/vt"

	"github.com/atomic-go/atomic/internal/e2e"
)

// /settings changes a setting at once and saves it in settings.json.
func TestSettingsPanel(t *testing.T) {
	t.Parallel()
	s := startScreen(t, e2e.Options{})
	s.waitFor("Type a message")
	s.typeText("/settings" + keyEnter)
	got := s.waitFor("Settings", "→ Auto-compact             true", "Steering mode            one-at-a-time", "Theme                    system")
	s.golden("settings", got)
	s.typeText(keyDown + keyEnter) // steering mode: all
	s.waitFor("→ Steering mode            all")
	s.typeText(keyDown + keyDown + " ") // hide thinking: true
	s.waitFor("→ Hide thinking            true")
	s.typeText(keyEsc)
	s.waitGone("Auto-compact")
	b, err := os.ReadFile(filepath.Join(s.env.AgentDir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if saved["steeringMode"] != "all" || saved["hideThinkingBlock"] != true {
		t.Fatalf("settings.json: %s", b)
	}
	s.typeText("/settings" + keyEnter) // the session has the new mode
	s.waitFor("Steering mode            all")
	// Theme: system → dark → light, applied at once.
	s.typeText(strings.Repeat(keyDown, 4) + keyEnter + keyEnter)
	s.waitFor("→ Theme                    light")
	s.typeText(keyEsc)
	s.waitUntil("the light theme", func(string) bool { return sameColor(s.ruleColor(), lipgloss.Color("248")) })
}

// ruleColor is the foreground of the rule above the editor (nil while
// there is none).
func (s *screen) ruleColor() color.Color {
	s.t.Helper()
	got := s.waitFor("────")
	lines := strings.Split(got, "\n")
	y := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "────") {
			y = i // the last rule above the editor is found last but one
			if i+2 < len(lines) {
				break
			}
		}
	}
	if y < 0 {
		return nil // a dialog is open: no rule yet
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.emu.CellAt(0, y); c != nil {
		return c.Style.Fg
	}
	return nil
}

func sameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2
}

// The theme follows the terminal's background; a custom theme in pi's
// format is used by name; NO_COLOR draws without colours.
func TestThemes(t *testing.T) {
	t.Parallel()
	t.Run("dark background", func(t *testing.T) {
		t.Parallel()
		s := startScreen(t, e2e.Options{})
		s.waitFor("Type a message")
		if c := s.ruleColor(); !sameColor(c, lipgloss.Color("8")) {
			t.Fatalf("rule colour %v, want the dark theme's", c)
		}
	})
	t.Run("light background", func(t *testing.T) {
		t.Parallel()
		s := startScreenWith(t, e2e.Options{}, func(emu *vt.Emulator) {
			emu.SetDefaultBackgroundColor(color.White)
			emu.SetDefaultForegroundColor(color.Black)
		})
		s.waitFor("Type a message")
		s.waitUntil("the light theme", func(string) bool { return sameColor(s.ruleColor(), lipgloss.Color("248")) })
	})
	t.Run("custom theme", func(t *testing.T) {
		t.Parallel()
		theme := `{"$schema": "https://pi.dev/schemas/theme.schema.json", "name": "mine", "appearance": "dark",
  "vars": {"red": "okhsl(29.23 100% 56.8%)", "frame": "red"},
  "colors": {"border": "frame", "accent": "#00ff00", "muted": 244}}`
		s := startScreen(t, e2e.Options{
			Env:        map[string]string{"COLORTERM": "truecolor"},
			AgentFiles: map[string]string{"themes/mine.json": theme, "themes/bad.json": `{"name": "bad", "colors": {"border": "nope"}}`, "settings.json": `{"theme": "mine"}`},
		})
		s.waitUntil("the bad theme's warning", func(screen string) bool {
			return strings.Contains(strings.ReplaceAll(screen, "\n", " "), `bad.json: colors.border: no variable "nope"`)
		})
		if l := s.log(); strings.Contains(l, "theme") {
			t.Errorf("the log warns about the theme setting:\n%s", l)
		}
		if c := s.ruleColor(); !sameColor(c, color.RGBA{R: 255, A: 255}) {
			t.Fatalf("rule colour %v, want the theme's red", c)
		}
	})
	t.Run("project theme", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		file := filepath.Join(dir, ".atomic", "themes", "proj.json")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(`{"name": "proj", "colors": {"border": "#0000ff"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		s := startScreen(t, e2e.Options{
			Dir: dir, Args: []string{"-a"}, // the project trusted for this run
			Env:        map[string]string{"COLORTERM": "truecolor"},
			AgentFiles: map[string]string{"settings.json": `{"theme": "proj"}`},
		})
		s.waitFor("Type a message")
		s.waitUntil("the project's theme", func(string) bool { return sameColor(s.ruleColor(), color.RGBA{B: 255, A: 255}) })
		if got := s.text(); strings.Contains(got, "not found") {
			t.Fatalf("a warning about the project's theme:\n%s", got)
		}
	})
	t.Run("unknown theme", func(t *testing.T) {
		t.Parallel()
		s := startScreen(t, e2e.Options{AgentFiles: map[string]string{"settings.json": `{"theme": "nowhere"}`}})
		s.waitUntil("the warning", func(screen string) bool {
			return strings.Contains(strings.ReplaceAll(screen, "\n", " "), `theme "nowhere" not found`)
		})
	})
	t.Run("NO_COLOR", func(t *testing.T) {
		t.Parallel()
		s := startScreen(t, e2e.Options{Env: map[string]string{"NO_COLOR": "1"}})
		s.waitFor("Type a message")
		if c := s.ruleColor(); c != nil {
			t.Fatalf("rule colour %v with NO_COLOR", c)
		}
	})
}
