package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParamSchemaProblems(t *testing.T) {
	cases := []struct {
		name, schema string
		args         map[string]any
		want         []string // substrings, one per reported line, in order
	}{
		{"valid", `{"type":"object","properties":{"a":{"type":"string"}}}`, map[string]any{"a": "x", "extra": 1}, nil},
		{"every property, required and closed",
			`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["path","mode"],"additionalProperties":false}`,
			map[string]any{"path": 3, "limit": 0.5, "surprise": true},
			[]string{`/limit: type: 0.5 has type "number", want "integer"`, `/path: type: 3 has type "integer", want "string"`,
				`/surprise: unexpected property`, `root: missing required property "mode"`}},
		{"integers written as floats are integers", `{"type":"object","properties":{"n":{"type":"integer"}}}`, map[string]any{"n": 2.0}, nil},
		{"a combinator at the root", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`,
			map[string]any{}, []string{"oneOf"}},
		{"a reference", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{"type":"number"}}}`,
			map[string]any{"a": "s"}, []string{`has type "string", want "number"`}},
		{"draft 4 declared", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"boolean"}}}`,
			map[string]any{"a": "yes"}, []string{`/a: type: yes has type "string", want "boolean"`}},
		{"no arguments", `{"type":"object","required":["a"]}`, nil, []string{`missing required property "a"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compileParams(json.RawMessage(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.problems(c.args)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("problems %q, want %q", got, c.want)
			}
			for i := range got {
				if !strings.Contains(got[i], c.want[i]) {
					t.Fatalf("problem %d %q lacks %q (all: %q)", i, got[i], c.want[i], got)
				}
			}
		})
	}
	for _, bad := range []string{`[1]`, `{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}`} {
		if _, err := compileParams(json.RawMessage(bad)); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}
