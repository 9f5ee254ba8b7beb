package jsonedit

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestSet(t *testing.T) {
	tests := []struct {
		name, doc string
		path      []string
		v         string
		want      string
		replaced  bool
	}{
		{"empty file", "", []string{"mcpServers", "a"}, `{"command":"x"}`,
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}\n", false},
		{"empty object", "{}\n", []string{"k"}, `1`, "{\n  \"k\": 1\n}\n", false},
		{"add beside, four spaces, other bytes kept", "{\n    \"other\": [1,2,  3],\n    \"mcpServers\": {\n        \"a\": {\"command\": \"x\"}\n    }\n}\n",
			[]string{"mcpServers", "b"}, `{"url":"http://h"}`,
			"{\n    \"other\": [1,2,  3],\n    \"mcpServers\": {\n        \"a\": {\"command\": \"x\"},\n        \"b\": {\n            \"url\": \"http://h\"\n        }\n    }\n}\n", false},
		{"replace", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"b\": 2\n  }\n}", []string{"mcpServers", "a"}, `{"command":"y"}`,
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"y\"\n    },\n    \"b\": 2\n  }\n}", true},
		{"missing parent", "{\n\t\"theme\": \"dark\"\n}\n", []string{"mcpServers", "a"}, `{"command":"x"}`,
			"{\n\t\"theme\": \"dark\",\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"command\": \"x\"\n\t\t}\n\t}\n}\n", false},
		{"one line", `{"a": 1}`, []string{"b"}, `{"x": [1, 2]}`, `{"a": 1, "b": {"x":[1,2]}}`, false},
		{"null parent", "{\n  \"mcpServers\": null\n}", []string{"mcpServers", "a"}, `1`, "{\n  \"mcpServers\": {\n    \"a\": 1\n  }\n}", false},
	}
	for _, tt := range tests {
		got, replaced, err := Set([]byte(tt.doc), tt.path, []byte(tt.v))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want || replaced != tt.replaced {
			t.Errorf("%s: got (replaced %v)\n%s\nwant (replaced %v)\n%s", tt.name, replaced, got, tt.replaced, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: not valid JSON:\n%s", tt.name, got)
		}
	}
	for _, bad := range []string{`[1]`, `{"a": `, `{"mcpServers": 3}`, `{"a":1} x`} {
		if _, _, err := Set([]byte(bad), []string{"mcpServers", "a"}, []byte(`1`)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name, doc string
		path      []string
		want      string
		removed   bool
	}{
		{"first of two", "{\n  \"s\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n", []string{"s", "a"}, "{\n  \"s\": {\n    \"b\": 2\n  }\n}\n", true},
		{"last of two", "{\n  \"s\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n", []string{"s", "b"}, "{\n  \"s\": {\n    \"a\": 1\n  }\n}\n", true},
		{"middle", `{"a": 1, "b": [2], "c": 3}`, []string{"b"}, `{"a": 1, "c": 3}`, true},
		{"only", "{\n  \"s\": {\n    \"a\": 1\n  }\n}", []string{"s", "a"}, "{\n  \"s\": {}\n}", true},
		{"missing", `{"s": {"a": 1}}`, []string{"s", "x"}, `{"s": {"a": 1}}`, false},
		{"missing parent", `{"t": 1}`, []string{"s", "x"}, `{"t": 1}`, false},
	}
	for _, tt := range tests {
		got, removed, err := Delete([]byte(tt.doc), tt.path)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want || removed != tt.removed {
			t.Errorf("%s: got (removed %v)\n%s\nwant\n%s", tt.name, removed, got, tt.want)
		}
	}
}

func FuzzSetDelete(f *testing.F) {
	f.Add([]byte("{\n  \"mcpServers\": {\"a\": 1}\n}"), "a")
	f.Add([]byte(`{"x": [1, {"y": null}], "mcpServers": null}`), "b")
	f.Fuzz(func(t *testing.T, doc []byte, key string) {
		if !utf8.ValidString(key) {
			return // written as U+FFFD, as encoding/json writes it
		}
		out, _, err := Set(doc, []string{"mcpServers", key}, []byte(`{"command":"x"}`))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Set made invalid JSON from %q: %q", doc, out)
		}
		var m struct {
			Servers map[string]any `json:"mcpServers"`
		}
		if json.Unmarshal(out, &m) != nil || m.Servers[key] == nil {
			t.Fatalf("Set lost the value: %q", out)
		}
		back, removed, err := Delete(out, []string{"mcpServers", key})
		if err != nil || !removed || !json.Valid(back) {
			t.Fatalf("Delete of %q: %v %v %q", out, removed, err, back)
		}
	})
}
