package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// paramSchema is a tool's parameter schema, resolved once. Validation
// reports every problem the model can fix, not only the first the
// library meets: each top-level property is checked against its own
// schema, as are required and unexpected properties; the whole schema
// catches the rest (combinators, references).
//
// The validator is github.com/google/jsonschema-go (drafts 2020-12 and
// 7; a draft 4 or 6 "$schema" is read as the current draft). It replaced
// a library that compiled every draft's meta-schema in its package
// initialisation, 7 ms of the agent's start-up.
type paramSchema struct {
	root     *jsonschema.Resolved
	props    map[string]*jsonschema.Resolved // properties whose schema resolves on its own
	known    map[string]bool
	required []string
	closed   bool // additionalProperties: false
}

func compileParams(raw json.RawMessage) (*paramSchema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	switch strings.TrimSuffix(s.Schema, "#") {
	case "http://json-schema.org/draft-04/schema", "http://json-schema.org/draft-06/schema":
		s.Schema = ""
	}
	root, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	p := &paramSchema{root: root, props: map[string]*jsonschema.Resolved{}, known: map[string]bool{}, required: s.Required}
	for name, sub := range s.Properties {
		p.known[name] = true
		if sub == nil {
			continue
		}
		cp := *sub // resolve a copy: the root keeps its own resolution
		if r, err := cp.Resolve(nil); err == nil {
			p.props[name] = r
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Not != nil && isEmptySchema(ap.Not) {
		p.closed = true
	}
	return p, nil
}

// isEmptySchema reports whether s is {} (so that {"not": {}} is false).
func isEmptySchema(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && bytes.Equal(b, []byte("true")) || string(b) == "{}"
}

// problems validates args and lists what is wrong, one line each.
func (p *paramSchema) problems(args map[string]any) ([]string, error) {
	var v any = map[string]any{}
	if args != nil {
		// Round-trip through JSON so that values have the types a decoded
		// JSON document has, however the map was built.
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
		}
	}
	rootErr := p.root.Validate(v)
	if rootErr == nil {
		return nil, nil
	}
	obj, _ := v.(map[string]any)
	var lines []string
	for _, name := range p.required {
		if _, ok := obj[name]; !ok {
			lines = append(lines, fmt.Sprintf("root: missing required property %q", name))
		}
	}
	for name, val := range obj {
		if !p.known[name] {
			if p.closed {
				lines = append(lines, fmt.Sprintf("/%s: unexpected property", name))
			}
			continue
		}
		if r := p.props[name]; r != nil {
			if err := r.Validate(val); err != nil {
				lines = append(lines, "/"+name+": "+trimRoot(err.Error()))
			}
		}
	}
	if len(lines) == 0 {
		lines = append(lines, trimRoot(rootErr.Error()))
	}
	sort.Strings(lines)
	return lines, nil
}

// trimRoot drops the library's "validating root: " prefix.
func trimRoot(msg string) string {
	return strings.TrimPrefix(msg, "validating root: ")
}
