package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Loaded.Merged is pi's getSettings(): the files as written, the
// project's over the user's object by object, the overrides last; an
// untrusted project's file is left out.
func TestMergedSettings(t *testing.T) {
	agent, project := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agent, "settings.json"), `{"theme": "dark", "retry": {"enabled": true, "maxRetries": 3}, "myExt": {"a": 1, "b": [1]}}`)
	write(filepath.Join(project, "settings.json"), `{"retry": {"maxRetries": 5}, "myExt": {"b": [2]}}`)
	paths := Paths{AgentDir: agent, ProjectDir: project}
	l, err := Load(paths, true, map[string]any{"retry.baseDelayMs": 7})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(l.Merged)
	want := `{"myExt":{"a":1,"b":[2]},"retry":{"baseDelayMs":7,"enabled":true,"maxRetries":5},"theme":"dark"}`
	if string(got) != want {
		t.Errorf("merged %s, want %s", got, want)
	}
	l, err = Load(paths, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(l.Merged)
	if want := `{"myExt":{"a":1,"b":[1]},"retry":{"enabled":true,"maxRetries":3},"theme":"dark"}`; string(got) != want {
		t.Errorf("untrusted: %s, want %s", got, want)
	}
}

// httpProxy is read from the agent directory's file only; a project's is
// named in a warning and ignored.
func TestHTTPProxyFromTheAgentDirectoryOnly(t *testing.T) {
	agent, project := t.TempDir(), t.TempDir()
	paths := Paths{AgentDir: agent, ProjectDir: project}
	if err := os.WriteFile(filepath.Join(project, "settings.json"), []byte(`{"httpProxy": "http://project-proxy:1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(paths, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Settings.HTTPProxy != "" || len(l.Diagnostics) != 1 || l.Diagnostics[0].Path != paths.ProjectSettingsFile() {
		t.Fatalf("project httpProxy: %q %+v", l.Settings.HTTPProxy, l.Diagnostics)
	}
	if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"httpProxy": " http://user-proxy:2 "}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err = Load(paths, true, nil); err != nil || l.Settings.HTTPProxy != "http://user-proxy:2" {
		t.Fatalf("user httpProxy: %q %v", l.Settings.HTTPProxy, err)
	}
}

func TestIdleTimeoutSetting(t *testing.T) {
	for _, c := range []struct {
		v    any
		want time.Duration
		set  bool
		bad  bool
	}{
		{nil, 0, false, false},
		{float64(300000), 5 * time.Minute, true, false},
		{float64(0), 0, true, false},
		{"disabled", 0, true, false},
		{"1500", 1500 * time.Millisecond, true, false},
		{float64(-1), 0, false, true},
		{"soon", 0, false, true},
		{true, 0, false, true},
	} {
		d, set, err := Settings{HTTPIdleTimeoutMs: c.v}.IdleTimeout()
		if d != c.want || set != c.set || (err != nil) != c.bad {
			t.Errorf("%v: %v %v %v", c.v, d, set, err)
		}
	}
}
