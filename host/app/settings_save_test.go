package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestSaveSettingKeepsTheRest(t *testing.T) {
	rt := newRuntime(t)
	file := filepath.Join(rt.Cwd(), "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"theme": "dark", "compaction": {"reserveTokens": 1000}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rt.SaveSetting("compaction.enabled", false); err != nil {
		t.Fatal(err)
	}
	if err := rt.SaveSetting("steeringMode", "all"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	c, _ := got["compaction"].(map[string]any)
	if got["theme"] != "dark" || got["steeringMode"] != "all" || c["enabled"] != false || c["reserveTokens"] != 1000.0 {
		t.Fatalf("settings.json is %s", b)
	}
	for _, bad := range []string{"", ".x", "x.", "a..b"} {
		if err := rt.SaveSetting(bad, 1); err == nil {
			t.Errorf("SaveSetting(%q) saved", bad)
		}
	}
}
