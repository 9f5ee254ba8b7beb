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
	err := r.Validate(read, map[string]any{"path": 42, "limit": "ten"})
	if err == nil {
		t.Fatal("expected a validation error")
	}
	msg := err.Error()
	if !strings.Contains(msg, `Validation failed for tool "read"`) || !strings.Contains(msg, "/path") || !strings.Contains(msg, "/limit") || !strings.Contains(msg, "string") {
		t.Fatalf("unclear message: %q", msg)
	}
	if err := r.Validate(read, map[string]any{"offset": 1}); err == nil || !strings.Contains(err.Error(), "path") {
		t.Fatalf("missing path: %v", err)
	}
	// Valid arguments, also with extra fields a model might add.
	if err := r.Validate(read, map[string]any{"path": "a", "offset": 2.0, "limit": 10, "explanation": "x"}); err != nil {
		t.Fatalf("valid args rejected: %v", err)
	}
	bash, _ := r.Get("bash")
	if err := r.Validate(bash, map[string]any{"command": "ls", "timeout": 1.5}); err != nil {
		t.Fatalf("valid bash args rejected: %v", err)
	}
	if err := r.Validate(bash, map[string]any{"command": []any{"ls"}}); err == nil || !strings.Contains(err.Error(), "/command") {
		t.Fatalf("bad bash args: %v", err)
	}
	for _, tool := range Builtins() {
		if err := r.Validate(tool, map[string]any{"pattern": "x", "path": "x", "command": "x", "content": "x", "oldText": "x", "newText": "y"}); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
}
