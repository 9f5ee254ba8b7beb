package packages

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func same(s string) func(string) bool {
	return func(e string) bool { return e == s || strings.HasPrefix(e, s+"@") }
}

func TestAddEntryKeepsEverythingElse(t *testing.T) {
	tests := []struct{ name, in, src, want string }{
		{"new key, tabs", "{\n\t\"theme\":   \"dark\", \"x\": [1,2]\n}\n", "npm:a",
			"{\n\t\"theme\":   \"dark\", \"x\": [1,2],\n\t\"packages\": [\n\t\t\"npm:a\"\n\t]\n}\n"},
		{"append, keeps layout", "{\n  \"packages\": [\n      \"npm:a\",\n      {\"source\": \"npm:b\", \"skills\": []}\n  ],\n  \"z\": 1\n}", "npm:c",
			"{\n  \"packages\": [\n      \"npm:a\",\n      {\"source\": \"npm:b\", \"skills\": []},\n      \"npm:c\"\n  ],\n  \"z\": 1\n}"},
		{"one line", `{"a":1,"packages":["npm:a"]}`, "npm:b", `{"a":1,"packages":["npm:a", "npm:b"]}`},
		{"empty list", "{\n  \"packages\": []\n}", "npm:a", "{\n  \"packages\": [\n    \"npm:a\"\n  ]\n}"},
		{"replace version in object form", "{\"packages\": [{\"source\": \"npm:b@1.0.0\", \"prompts\": [\"x\"]}]}", "npm:b@2.0.0",
			"{\"packages\": [{\"source\": \"npm:b@2.0.0\", \"prompts\": [\"x\"]}]}"},
		{"empty object", "{}", "npm:a", "{\n  \"packages\": [\n    \"npm:a\"\n  ]\n}"},
		{"empty file", "", "npm:a", "{\n  \"packages\": [\n    \"npm:a\"\n  ]\n}\n"},
		{"unicode and escapes kept", "{\"n\": \"\\u00e9t\\u00e9 ✓\"}", "./pkg é", "{\"n\": \"\\u00e9t\\u00e9 ✓\", \"packages\": [\"./pkg é\"]}"},
	}
	for _, tt := range tests {
		name := tt.src
		if i := strings.IndexByte(name, '@'); i > 4 {
			name = name[:i]
		}
		got, _, err := addEntry([]byte(tt.in), tt.src, same(name))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
	if _, _, err := addEntry([]byte(`{"packages": ["npm:a"]}`), "npm:a", same("npm:a")); err != errUnchanged {
		t.Errorf("re-adding: %v", err)
	}
	for _, bad := range []string{`{"a": }`, `[1]`, `{"packages": {}}`, `{"a":1} x`} {
		if _, _, err := addEntry([]byte(bad), "npm:a", same("npm:a")); err == nil {
			t.Errorf("%q: edited", bad)
		}
	}
}

func TestRemoveEntries(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\n  \"packages\": [\n    \"npm:a\",\n    \"npm:b\"\n  ]\n}", "{\n  \"packages\": [\n    \"npm:b\"\n  ]\n}"},
		{"{\n  \"packages\": [\n    \"npm:b\",\n    {\"source\": \"npm:a@1\"}\n  ]\n}", "{\n  \"packages\": [\n    \"npm:b\"\n  ]\n}"},
		{`{"packages": ["npm:a"], "k": true}`, `{"packages": [], "k": true}`},
		{`{"packages": ["npm:a", "npm:c", "npm:a@2"]}`, `{"packages": ["npm:c"]}`},
	}
	for _, tt := range tests {
		got, n, err := removeEntries([]byte(tt.in), same("npm:a"))
		if err != nil || n == 0 || string(got) != tt.want {
			t.Errorf("%q: got %q (%d, %v), want %q", tt.in, got, n, err, tt.want)
		}
	}
}

// Settings edited by several writers at once lose nothing (the lock).
func TestAddToSettingsConcurrent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(file, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			src := "npm:p" + string(rune('a'+i))
			if _, err := AddToSettings(file, src, same(src)); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	entries, probs := ReadEntries(file, ScopeUser)
	if len(entries) != 16 || len(probs) != 0 {
		t.Fatalf("%d entries, %v", len(entries), probs)
	}
	b, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(b), "{\n  \"theme\": \"dark\",\n  \"packages\": [\n    \"npm:p") {
		t.Errorf("file: %s", b)
	}
}
