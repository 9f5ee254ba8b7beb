package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestBuiltins(t *testing.T) {
	var names []string
	for _, tool := range Builtins() {
		names = append(names, tool.Name())
		if d := tool.Description(); len(d) < 40 || d != strings.TrimSpace(d) {
			t.Errorf("%s: description %q", tool.Name(), d)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			AddProps   *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.Parameters(), &schema); err != nil {
			t.Errorf("%s: parameters: %v", tool.Name(), err)
			continue
		}
		if schema.Type != "object" || len(schema.Properties) == 0 || schema.AddProps != nil {
			t.Errorf("%s: schema %+v", tool.Name(), schema)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name(), r)
			}
		}
		p, ok := tool.(Prompted)
		if !ok {
			t.Errorf("%s: not Prompted", tool.Name())
			continue
		}
		if s := p.PromptSnippet(); s == "" || strings.Contains(s, "\n") {
			t.Errorf("%s: snippet %q", tool.Name(), s)
		}
		if len(p.PromptGuidelines()) == 0 {
			t.Errorf("%s: no guidelines", tool.Name())
		}
	}
	want := []string{"read", "bash", "edit", "write", "grep", "find", "ls"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("got %v", names)
	}
	if !reflect.DeepEqual(DefaultActive, []string{"read", "bash", "edit", "write"}) {
		t.Fatalf("DefaultActive %v", DefaultActive)
	}
}

func TestNewRegistryWithBuiltins(t *testing.T) {
	r := NewRegistryWithBuiltins(DefaultActive)
	if len(r.All()) != 7 {
		t.Fatalf("%d tools", len(r.All()))
	}
	if got := r.ActiveNames(); !reflect.DeepEqual(got, DefaultActive) {
		t.Fatalf("active %v", got)
	}
	r = NewRegistryWithBuiltins([]string{"ls", "grep", "unknown"})
	if got := r.ActiveNames(); !reflect.DeepEqual(got, []string{"grep", "ls"}) {
		t.Fatalf("active %v", got)
	}
	if got := NewRegistryWithBuiltins(nil).ActiveNames(); len(got) != 0 {
		t.Fatalf("active %v", got)
	}
	specs := NewRegistryWithBuiltins(DefaultActive).Specs()
	if len(specs) != 4 || specs[0].Name != "read" || len(specs[0].Parameters) == 0 {
		t.Fatalf("specs %+v", specs)
	}
}

func TestRegistryValidateBuiltins(t *testing.T) {
	r := NewRegistryWithBuiltins(DefaultActive)
	read, _ := r.Get("read")
	// pi's wording, the model's key order in the echo (raw text given),
	// and a number for a string coerced as pi does (path 42 is "42").
	_, err := r.Validate(read, map[string]any{"path": 42.0, "limit": "ten"}, `{"path":42,"limit":"ten"}`)
	want := "Validation failed for tool \"read\":\n  - limit: expected integer, got string\n\nReceived arguments:\n{\n  \"path\": 42,\n  \"limit\": \"ten\"\n}"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if _, err := r.Validate(read, map[string]any{"offset": 1}, ""); err == nil || !strings.Contains(err.Error(), "  - path: missing") {
		t.Fatalf("missing path: %v", err)
	}
	// Coerced arguments come back: "2" for an integer is 2.
	args, err := r.Validate(read, map[string]any{"path": "a", "offset": "2", "limit": 10, "explanation": "x"}, "")
	if err != nil || args["offset"] != 2.0 || args["explanation"] != "x" {
		t.Fatalf("valid args: %v %v", args, err)
	}
	bash, _ := r.Get("bash")
	if _, err := r.Validate(bash, map[string]any{"command": "ls", "timeout": 1.5}, ""); err != nil {
		t.Fatalf("valid bash args rejected: %v", err)
	}
	if _, err := r.Validate(bash, map[string]any{"command": []any{"ls"}}, ""); err == nil || !strings.Contains(err.Error(), "  - command: expected string, got array") {
		t.Fatalf("bad bash args: %v", err)
	}
	for _, tool := range Builtins() {
		if _, err := r.Validate(tool, map[string]any{"pattern": "x", "path": "x", "command": "x", "content": "x", "oldText": "x", "newText": "y"}, ""); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
}
