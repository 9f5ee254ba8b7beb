package toolargs

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// maxWalk bounds how deep an explanation follows a schema through its
// references with the same value (a recursive schema).
const maxWalk = 200

// explain lists why v fails node, in pi's order and words: each failing
// keyword at the value it failed on. It is called for values that failed.
func (s *parser) explain(node any, v any, depth int) []Problem {
	var out []Problem
	s.walk(node, v, "", &out, depth, false)
	return out
}

// walk appends node's problems with v at path. With check, a node v
// passes is skipped at once (the explanation of a failed union branch or
// a property); without, every keyword is looked at.
func (s *parser) walk(node any, v any, path string, out *[]Problem, depth int, check bool) {
	if depth > maxWalk {
		return
	}
	switch t := node.(type) {
	case bool:
		if !t {
			*out = append(*out, Problem{path, "no value is allowed here"})
		}
		return
	case *Object:
		s.walkObjectNode(t, v, path, out, depth, check)
	}
}

func (s *parser) walkObjectNode(n *Object, v any, path string, out *[]Problem, depth int, check bool) {
	if check && s.passes(n, v) {
		return
	}
	push := func(msg string) { *out = append(*out, Problem{path, msg}) }
	if ref, ok := n.Vals["$ref"].(string); ok && s.draft7 {
		s.walkRef(ref, v, path, out, depth)
		return
	}
	if tv, ok := n.Vals["type"]; ok {
		types := typeList(tv)
		matched := false
		for _, ty := range types {
			if hasType(v, ty) {
				matched = true
				break
			}
		}
		if !matched {
			push(fmt.Sprintf("expected %s, got %s", strings.Join(types, " or "), typeName(v)))
			return
		}
	}
	if enum, ok := n.Vals["enum"].([]any); ok && !inEnum(enum, v) {
		push("expected one of " + listValues(enum))
	}
	if c, ok := n.Vals["const"]; ok && !equal(c, v) {
		push("expected " + Stringify(c, ""))
	}
	switch t := v.(type) {
	case string:
		s.walkString(n, t, push)
	case float64:
		walkNumber(n, t, push)
	case *Object:
		s.walkMembers(n, t, path, out, depth, push)
	case []any:
		s.walkItems(n, t, path, out, depth, push)
	}
	if all, ok := n.Vals["allOf"].([]any); ok {
		for _, sub := range all {
			s.walk(sub, v, path, out, depth+1, true)
		}
	}
	if any_, ok := n.Vals["anyOf"].([]any); ok {
		s.walkUnion(any_, v, path, out, depth, false)
	}
	if one, ok := n.Vals["oneOf"].([]any); ok {
		s.walkUnion(one, v, path, out, depth, true)
	}
	if not, ok := n.Vals["not"]; ok && s.passes(not, v) {
		push("must not match the schema in not")
	}
	if cond, ok := n.Vals["if"]; ok {
		branch, has := n.Vals["else"]
		if s.passes(cond, v) {
			branch, has = n.Vals["then"]
		}
		if has {
			s.walk(branch, v, path, out, depth+1, true)
		}
	}
	if ref, ok := n.Vals["$ref"].(string); ok {
		s.walkRef(ref, v, path, out, depth)
	}
}

func (s *parser) walkRef(ref string, v any, path string, out *[]Problem, depth int) {
	target, ok := s.resolve(ref)
	if !ok {
		*out = append(*out, Problem{path, "unresolved reference " + ref})
		return
	}
	s.walk(target, v, path, out, depth+1, true)
}

func typeList(tv any) []string {
	switch t := tv.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func hasType(v any, ty string) bool {
	switch ty {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		return isFinite(v)
	case "integer":
		return isInteger(v)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(*Object)
		return ok
	}
	return false
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if equal(e, v) {
			return true
		}
	}
	return false
}

// listedValues is how many values of an enum a message names.
const listedValues = 20

func listValues(values []any) string {
	if len(values) <= listedValues {
		return Stringify(values, "")
	}
	listed := Stringify(values[:listedValues], "")
	return fmt.Sprintf("%s, ... and %d more]", listed[:len(listed)-1], len(values)-listedValues)
}

func number(n *Object, k string) (float64, bool) {
	f, ok := n.Vals[k].(float64)
	return f, ok
}

func (s *parser) walkString(n *Object, v string, push func(string)) {
	count := codePoints(v)
	if m, ok := number(n, "minLength"); ok && float64(count) < m {
		push("expected at least " + jsNumber(m) + " characters")
	}
	if m, ok := number(n, "maxLength"); ok && float64(count) > m {
		push("expected at most " + jsNumber(m) + " characters")
	}
	if p, ok := n.Vals["pattern"].(string); ok {
		if re := pattern(p); re != nil && !re.MatchString(v) {
			push("expected to match " + p)
		}
	}
	if f, ok := n.Vals["format"].(string); ok {
		if check := formatChecks[f]; check != nil && !check(v) {
			push("expected format " + f)
		}
	}
}

func walkNumber(n *Object, v float64, push func(string)) {
	if m, ok := number(n, "minimum"); ok && v < m {
		push("expected >= " + jsNumber(m))
	}
	if m, ok := number(n, "maximum"); ok && v > m {
		push("expected <= " + jsNumber(m))
	}
	if m, ok := number(n, "exclusiveMinimum"); ok && v <= m {
		push("expected > " + jsNumber(m))
	}
	if m, ok := number(n, "exclusiveMaximum"); ok && v >= m {
		push("expected < " + jsNumber(m))
	}
	if m, ok := number(n, "multipleOf"); ok && !isMultiple(v, m) {
		push("expected a multiple of " + jsNumber(m))
	}
}

// isMultiple reports whether v is a multiple of d, in decimal arithmetic
// (0.3 is not a multiple of 0.1 in binary floating point).
func isMultiple(v, d float64) bool {
	if d == 0 {
		return false
	}
	q := v / d
	if q == math.Trunc(q) && !math.IsInf(q, 0) {
		return true
	}
	if math.IsInf(q, 0) || math.IsNaN(q) {
		return math.Mod(v, d) == 0
	}
	rv, ok1 := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	rd, ok2 := new(big.Rat).SetString(strconv.FormatFloat(d, 'g', -1, 64))
	if !ok1 || !ok2 || rd.Sign() == 0 {
		return false
	}
	return new(big.Rat).Quo(rv, rd).IsInt()
}

func pointer(path, key string) string {
	return path + "/" + strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func (s *parser) walkMembers(n *Object, v *Object, path string, out *[]Problem, depth int, push func(string)) {
	props, _ := n.Vals["properties"].(*Object)
	if props == nil {
		props = &Object{Vals: map[string]any{}}
	}
	if req, ok := n.Vals["required"].([]any); ok {
		for _, r := range req {
			k, ok := r.(string)
			if ok && !v.Has(k) {
				*out = append(*out, Problem{pointer(path, k), "missing"})
			}
		}
	}
	for _, k := range props.Keys {
		if val, ok := v.Get(k); ok {
			s.walk(props.Vals[k], val, pointer(path, k), out, depth+1, true)
		}
	}
	patterns, _ := n.Vals["patternProperties"].(*Object)
	additional, hasAdditional := n.Vals["additionalProperties"]
	names, hasNames := n.Vals["propertyNames"]
	for _, k := range v.Keys {
		matched := props.Has(k)
		if patterns != nil {
			for _, p := range patterns.Keys {
				if re := pattern(p); re != nil && re.MatchString(k) {
					matched = true
					s.walk(patterns.Vals[p], v.Vals[k], pointer(path, k), out, depth+1, true)
				}
			}
		}
		if !matched && hasAdditional {
			if b, ok := additional.(bool); ok && !b {
				*out = append(*out, Problem{pointer(path, k), "unknown field"})
			} else {
				s.walk(additional, v.Vals[k], pointer(path, k), out, depth+1, true)
			}
		}
		if hasNames && !s.passes(names, k) {
			*out = append(*out, Problem{pointer(path, k), "invalid property name"})
		}
	}
	count := float64(len(v.Keys))
	if m, ok := number(n, "minProperties"); ok && count < m {
		push("expected at least " + jsNumber(m) + " properties")
	}
	if m, ok := number(n, "maxProperties"); ok && count > m {
		push("expected at most " + jsNumber(m) + " properties")
	}
	deps := &Object{Vals: map[string]any{}}
	if dr, ok := n.Vals["dependentRequired"].(*Object); ok && !s.draft7 {
		for _, k := range dr.Keys {
			deps.Set(k, dr.Vals[k])
		}
	}
	if d, ok := n.Vals["dependencies"].(*Object); ok {
		for _, k := range d.Keys {
			deps.Set(k, d.Vals[k])
		}
	}
	for _, k := range deps.Keys {
		if !v.Has(k) {
			continue
		}
		if list, ok := deps.Vals[k].([]any); ok {
			for _, r := range list {
				if name, ok := r.(string); ok && !v.Has(name) {
					*out = append(*out, Problem{pointer(path, name), "required when " + k + " is present"})
				}
			}
		} else {
			s.walk(deps.Vals[k], v, path, out, depth+1, true)
		}
	}
	if ds, ok := n.Vals["dependentSchemas"].(*Object); ok && !s.draft7 {
		for _, k := range ds.Keys {
			if v.Has(k) {
				s.walk(ds.Vals[k], v, path, out, depth+1, true)
			}
		}
	}
}

func (s *parser) walkItems(n *Object, v []any, path string, out *[]Problem, depth int, push func(string)) {
	var prefix []any
	var rest any
	if items, ok := n.Vals["items"].([]any); ok {
		prefix, rest = items, n.Vals["additionalItems"]
	} else {
		if p, ok := n.Vals["prefixItems"].([]any); ok && !s.draft7 {
			prefix = p
		}
		rest = n.Vals["items"]
	}
	for i, item := range v {
		sub := rest
		if i < len(prefix) {
			sub = prefix[i]
		}
		if sub != nil {
			s.walk(sub, item, path+"/"+strconv.Itoa(i), out, depth+1, true)
		}
	}
	count := float64(len(v))
	if m, ok := number(n, "minItems"); ok && count < m {
		push("expected at least " + jsNumber(m) + " items")
	}
	if m, ok := number(n, "maxItems"); ok && count > m {
		push("expected at most " + jsNumber(m) + " items")
	}
	if u, _ := n.Vals["uniqueItems"].(bool); u && !unique(v) {
		push("expected unique items")
	}
	if contains, ok := n.Vals["contains"]; ok {
		minC, maxC := 1.0, math.Inf(1)
		if !s.draft7 {
			if m, ok := number(n, "minContains"); ok {
				minC = m
			}
			if m, ok := number(n, "maxContains"); ok {
				maxC = m
			}
		}
		matches := 0.0
		for _, item := range v {
			if s.passes(contains, item) {
				matches++
			}
		}
		if matches < minC || matches > maxC {
			push(containsMessage(minC, maxC))
		}
	}
}

func unique(v []any) bool {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if equal(v[i], v[j]) {
				return false
			}
		}
	}
	return true
}

func containsMessage(minC, maxC float64) string {
	plural := func(n float64) string {
		if n == 1 {
			return "item"
		}
		return "items"
	}
	switch {
	case math.IsInf(maxC, 1):
		return "expected at least " + jsNumber(minC) + " matching " + plural(minC)
	case minC == 0:
		return "expected at most " + jsNumber(maxC) + " matching " + plural(maxC)
	}
	return "expected between " + jsNumber(minC) + " and " + jsNumber(maxC) + " matching items"
}

// walkUnion explains a failed anyOf or oneOf: a tagged union blames the
// branch its tag selects; an object the branch that declares most of its
// properties; otherwise the branch whose first problem is deepest.
func (s *parser) walkUnion(branches []any, v any, path string, out *[]Problem, depth int, exactlyOne bool) {
	matches := 0
	for _, b := range branches {
		if s.passes(b, v) {
			matches++
		}
	}
	if matches == 1 || (!exactlyOne && matches > 0) {
		return
	}
	if matches > 1 {
		*out = append(*out, Problem{path, "matches more than one alternative"})
		return
	}
	if obj, ok := v.(*Object); ok {
		if key, values, ok := s.tagOf(branches); ok {
			tag, _ := obj.Get(key)
			for i, val := range values {
				if obj.Has(key) && equal(val, tag) {
					s.walk(branches[i], v, path, out, depth+1, true)
					return
				}
			}
			*out = append(*out, Problem{pointer(path, key), "expected one of " + listValues(values)})
			return
		}
	}
	var best []Problem
	bestDeclared := -1
	for _, b := range branches {
		var errs []Problem
		s.walk(b, v, path, &errs, depth+1, true)
		if len(errs) == 0 {
			continue
		}
		declared := 0
		if obj, ok := v.(*Object); ok {
			declared = s.declaredKeys(b, obj)
		}
		if best == nil || declared > bestDeclared || (declared == bestDeclared && len(errs[0].Path) > len(best[0].Path)) {
			best, bestDeclared = errs, declared
		}
	}
	if best == nil {
		best = []Problem{{path, "matches no alternative"}}
	}
	*out = append(*out, best...)
}

// branchNode follows a branch's $ref.
func (s *parser) branchNode(b any) any {
	if o, ok := b.(*Object); ok {
		if ref, ok := o.Vals["$ref"].(string); ok {
			if target, ok := s.resolve(ref); ok {
				return target
			}
		}
	}
	return b
}

func (s *parser) declaredKeys(b any, v *Object) int {
	n, _ := s.branchNode(b).(*Object)
	if n == nil {
		return 0
	}
	props, _ := n.Vals["properties"].(*Object)
	if props == nil {
		return 0
	}
	count := 0
	for _, k := range v.Keys {
		if props.Has(k) {
			count++
		}
	}
	return count
}

// tagOf finds a property of the first branch that every branch fixes to a
// different primitive const: the union's tag.
func (s *parser) tagOf(branches []any) (string, []any, bool) {
	nodes := make([]*Object, len(branches))
	for i, b := range branches {
		nodes[i], _ = s.branchNode(b).(*Object)
	}
	if len(nodes) == 0 || nodes[0] == nil {
		return "", nil, false
	}
	firstProps, _ := nodes[0].Vals["properties"].(*Object)
	if firstProps == nil {
		return "", nil, false
	}
	for _, key := range firstProps.Keys {
		values := make([]any, 0, len(nodes))
		ok := true
		for _, n := range nodes {
			var props *Object
			if n != nil {
				props, _ = n.Vals["properties"].(*Object)
			}
			var tag *Object
			if props != nil {
				tag, _ = props.Vals[key].(*Object)
			}
			if tag == nil || !tag.Has("const") {
				ok = false
				break
			}
			c := tag.Vals["const"]
			switch c.(type) {
			case *Object, []any:
				ok = false
			}
			for _, seen := range values {
				if equal(seen, c) {
					ok = false
				}
			}
			if !ok {
				break
			}
			values = append(values, c)
		}
		if ok {
			return key, values, true
		}
	}
	return "", nil, false
}

var (
	patternMu    sync.Mutex
	patternCache = map[string]*regexp.Regexp{}
)

// pattern compiles a schema's regular expression (RE2: a JavaScript
// pattern RE2 cannot read is not checked).
func pattern(p string) *regexp.Regexp {
	patternMu.Lock()
	defer patternMu.Unlock()
	if re, ok := patternCache[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	if len(patternCache) < 1000 {
		patternCache[p] = re
	}
	return re
}
