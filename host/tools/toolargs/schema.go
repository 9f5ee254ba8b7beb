package toolargs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a tool's parameter schema, compiled once and safe for
// concurrent use.
type Schema struct {
	root   any // *Object or bool
	draft7 bool

	mu      sync.Mutex
	checks  map[*Object]*jsonschema.Resolved // nil entry: the node does not compile on its own
	formats map[*Object]bool                 // whether a node's subtree names a format pi checks
}

// Compile reads a JSON Schema. Drafts 2020-12 and 7 are read as such; a
// draft 4 or 6 "$schema" is read as draft 7.
func Compile(raw []byte) (*Schema, error) {
	root, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	switch root.(type) {
	case *Object, bool:
	default:
		return nil, fmt.Errorf("a schema is an object or a boolean, not %s", typeName(root))
	}
	s := &Schema{root: root, checks: map[*Object]*jsonschema.Resolved{}, formats: map[*Object]bool{}}
	if o, ok := root.(*Object); ok {
		if v, _ := o.Vals["$schema"].(string); strings.Contains(v, "draft-07") || strings.Contains(v, "draft-06") || strings.Contains(v, "draft-04") {
			s.draft7 = true
		}
		// A schema jsonschema-go cannot read is an error; one it cannot
		// resolve (a $ref that names nothing, say in an MCP server's
		// schema) is checked by the explanation alone, so that only
		// values at the dangling reference fail, as in pi.
		var js jsonschema.Schema
		if err := json.Unmarshal(raw, &js); err != nil {
			return nil, err
		}
		_, _ = s.resolved(o)
	}
	return s, nil
}

// resolve finds the node a local reference ("#", "#/$defs/x") names.
func (s *Schema) resolve(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	node := s.root
	ptr := strings.TrimPrefix(ref, "#")
	if ptr == "" {
		return node, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor: not supported
	}
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch t := node.(type) {
		case *Object:
			v, ok := t.Vals[seg]
			if !ok {
				return nil, false
			}
			node = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			node = t[i]
		default:
			return nil, false
		}
	}
	return node, true
}

// resolved compiles node with jsonschema-go, with the root's definitions
// beside it so that its local references resolve.
func (s *Schema) resolved(node *Object) (*jsonschema.Resolved, error) {
	s.mu.Lock()
	r, ok := s.checks[node]
	s.mu.Unlock()
	if ok {
		if r == nil {
			return nil, fmt.Errorf("the schema does not compile")
		}
		return r, nil
	}
	doc := node
	if root, isObj := s.root.(*Object); isObj && node != root {
		doc = node.Clone()
		for _, k := range []string{"$schema", "$defs", "definitions"} {
			if v, ok := root.Vals[k]; ok && !doc.Has(k) {
				doc.Set(k, v)
			}
		}
	}
	var js jsonschema.Schema
	err := json.Unmarshal([]byte(Stringify(doc, "")), &js)
	if err == nil {
		if s.draft7 {
			js.Schema = "http://json-schema.org/draft-07/schema#"
		}
		r, err = js.Resolve(nil)
	}
	if err != nil {
		r = nil
	}
	s.mu.Lock()
	s.checks[node] = r
	s.mu.Unlock()
	return r, err
}

// parser is one Parse call: the schema, and the work the call has done.
// Coercion and explanation check subschemas against parts of the value
// again and again (each union branch, each level of a recursive schema);
// the budget bounds that work by the size of what is checked, so that a
// deep or large value costs bounded time. Past the budget, subschemas
// count as passing: coercion stops changing the value, the explanation
// stops descending, and the whole value is still checked once.
type parser struct {
	*Schema
	work int
}

// workBudget is how many value nodes one Parse may check against
// subschemas.
const workBudget = 20_000

func (s *parser) exhausted() bool { return s.work > workBudget }

// passes reports whether v is valid for node: jsonschema-go decides, and
// where the node names a format pi checks, the formats too. A node that
// does not compile on its own is judged by the explanation alone.
func (s *parser) passes(node any, v any) bool {
	switch t := node.(type) {
	case bool:
		return t
	case *Object:
		if s.exhausted() {
			return true
		}
		g, n := toGoCounted(v)
		s.work += n
		r, err := s.resolved(t)
		if err != nil {
			return len(s.explain(t, v, 0)) == 0
		}
		if r.Validate(g) != nil {
			return false
		}
		if s.hasFormats(t) {
			return len(s.explain(t, v, 0)) == 0
		}
		return true
	}
	return true
}

// toGoCounted is ToGo, and how many nodes v has.
func toGoCounted(v any) (any, int) {
	switch t := v.(type) {
	case *Object:
		m := make(map[string]any, len(t.Vals))
		n := 1
		for k, x := range t.Vals {
			g, c := toGoCounted(x)
			m[k] = g
			n += c
		}
		return m, n
	case []any:
		out := make([]any, len(t))
		n := 1
		for i, x := range t {
			g, c := toGoCounted(x)
			out[i] = g
			n += c
		}
		return out, n
	default:
		return t, 1
	}
}

// hasFormats reports whether node or a schema it reaches names a format
// that pi checks (jsonschema-go treats formats as annotations).
func (s *Schema) hasFormats(node *Object) bool {
	s.mu.Lock()
	v, ok := s.formats[node]
	s.mu.Unlock()
	if ok {
		return v
	}
	seen := map[*Object]bool{}
	var walk func(n any) bool
	walk = func(n any) bool {
		switch t := n.(type) {
		case *Object:
			if seen[t] {
				return false
			}
			seen[t] = true
			if f, ok := t.Vals["format"].(string); ok && formatChecks[f] != nil {
				return true
			}
			if ref, ok := t.Vals["$ref"].(string); ok {
				if target, ok := s.resolve(ref); ok && walk(target) {
					return true
				}
			}
			for _, k := range t.Keys {
				if k != "enum" && k != "const" && k != "default" && k != "examples" && walk(t.Vals[k]) {
					return true
				}
			}
		case []any:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		}
		return false
	}
	v = walk(node)
	s.mu.Lock()
	s.formats[node] = v
	s.mu.Unlock()
	return v
}

// Problem is one reason arguments are invalid: Path is a JSON Pointer
// ("" for the whole value), Message pi's wording.
type Problem struct {
	Path    string
	Message string
}

// DottedPath is the path as the model sees it: /edits/0/oldText is
// edits.0.oldText, the whole value "root".
func (p Problem) DottedPath() string {
	if p.Path == "" {
		return "root"
	}
	segs := strings.Split(p.Path[1:], "/")
	for i, seg := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
	}
	return strings.Join(segs, ".")
}

// Parse coerces v (this package's form: Decode or FromGo) and checks it.
// It returns the coerced value, and the problems when it is invalid.
//
// Arguments nested deeper than MaxDepth levels are refused without a look
// at the schema (pi has no such limit): checking them costs time that
// grows faster than their size, and no tool's arguments need them.
func (s *Schema) Parse(v any) (any, []Problem) {
	if depthOf(v, 0) > MaxDepth {
		return v, []Problem{{Path: "", Message: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}}
	}
	p := &parser{Schema: s}
	coerced := p.coerce(v)
	valid, msg := s.check(coerced)
	var problems []Problem
	if valid {
		// jsonschema-go accepts it; pi also checks formats.
		if !s.hasFormatsAt(s.root) {
			return coerced, nil
		}
		problems = p.explain(s.root, coerced, 0)
	} else {
		problems = p.explain(s.root, coerced, 0)
		if len(problems) == 0 {
			problems = []Problem{{Path: "", Message: msg}}
		}
	}
	if len(problems) == 0 {
		return coerced, nil
	}
	return coerced, problems
}

// MaxDepth is how deeply arguments may nest.
const MaxDepth = 64

// depthOf is how deeply v nests, counted up to MaxDepth+1.
func depthOf(v any, d int) int {
	if d > MaxDepth {
		return d
	}
	max := d
	switch t := v.(type) {
	case *Object:
		for _, x := range t.Vals {
			if n := depthOf(x, d+1); n > max {
				max = n
			}
		}
	case []any:
		for _, x := range t {
			if n := depthOf(x, d+1); n > max {
				max = n
			}
		}
	}
	return max
}

// check validates the whole value once, whatever the budget.
func (s *Schema) check(v any) (bool, string) {
	o, ok := s.root.(*Object)
	if !ok {
		return s.root == true, "no value is allowed here"
	}
	r, err := s.resolved(o)
	if err != nil {
		// Not resolvable as a whole (a dangling reference): the
		// explanation decides.
		p := &parser{Schema: s}
		if len(p.explain(o, v, 0)) == 0 {
			return true, ""
		}
		return false, "invalid"
	}
	if err := r.Validate(ToGo(v)); err != nil {
		return false, strings.TrimPrefix(err.Error(), "validating root: ")
	}
	return true, ""
}

func (s *Schema) hasFormatsAt(node any) bool {
	o, ok := node.(*Object)
	return ok && s.hasFormats(o)
}

// FormatError is pi's message for arguments that failed: one line per
// problem, then the arguments as received (not coerced).
func FormatError(tool string, problems []Problem, received any) string {
	var b strings.Builder
	b.WriteString(`Validation failed for tool "` + tool + `":`)
	for _, p := range problems {
		b.WriteString("\n  - " + p.DottedPath() + ": " + p.Message)
	}
	b.WriteString("\n\nReceived arguments:\n")
	b.WriteString(Stringify(received, "  "))
	return b.String()
}
