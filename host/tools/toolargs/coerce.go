package toolargs

import (
	"math"
	"strconv"
	"strings"
)

// The coercion turns what a model wrote into what the schema most likely
// meant, before the check, in pi-schema's three passes:
//  1. a null in an optional property whose schema rejects null is dropped,
//     as if omitted;
//  2. conversion by the schema's structure (TypeBox's Value.Convert rules:
//     const, enum, the unions, allOf, type): null becomes "null" for a
//     string, "3.5" becomes 3 for an integer, a single value becomes a
//     one-item array, a union takes the first branch whose conversion
//     passes;
//  3. primitive coercion by type, also for type lists (["integer",
//     "null"]): what pass 2 left.
//
// A value that cannot be coerced stays as it is and the check reports it.
// Every pass copies on write: the input is never modified.

// maxReentries bounds conversion through references and wrapped values
// (a recursive schema meeting a value no branch accepts).
const maxReentries = maxWalk

func (s *parser) coerce(v any) any {
	v = s.dropOptionalNulls(v, s.root, 0)
	v = s.convert(s.root, v, 0)
	return s.coerceTypes(v, s.root, 0)
}

// Pass 1.

func (s *parser) dropOptionalNulls(v any, node any, depth int) any {
	n, ok := node.(*Object)
	if !ok || depth > maxWalk {
		return v
	}
	if arr, ok := v.([]any); ok {
		return mapItems(arr, func(item any, i int) any {
			if sub := itemSchemaAt(n, i); sub != nil {
				return s.dropOptionalNulls(item, sub, depth+1)
			}
			return item
		})
	}
	obj, ok := v.(*Object)
	if !ok {
		return v
	}
	props, hasProps := n.Vals["properties"].(*Object)
	patterns, _ := n.Vals["patternProperties"].(*Object)
	additional, _ := n.Vals["additionalProperties"].(*Object)
	if patterns == nil && additional == nil && !hasProps {
		return v
	}
	if props == nil {
		props = &Object{Vals: map[string]any{}}
	}
	required := map[string]bool{}
	if req, ok := n.Vals["required"].([]any); ok {
		for _, r := range req {
			if k, ok := r.(string); ok {
				required[k] = true
			}
		}
	}
	w := &cow{orig: obj}
	cur, set := w.cur, w.set
	for _, k := range props.Keys {
		val, ok := obj.Get(k)
		if !ok {
			continue
		}
		prop := props.Vals[k]
		po, _ := prop.(*Object)
		isRef := po != nil && po.Has("$ref")
		if val == nil && !required[k] && !isRef && !s.passes(prop, nil) {
			w.remove(k)
			continue
		}
		set(k, s.dropOptionalNulls(val, prop, depth+1))
	}
	if patterns != nil || additional != nil {
		for _, k := range obj.Keys {
			matched := props.Has(k)
			if patterns != nil {
				for _, p := range patterns.Keys {
					if re := pattern(p); re != nil && re.MatchString(k) {
						matched = true
						if val, ok := cur().Get(k); ok {
							set(k, s.dropOptionalNulls(val, patterns.Vals[p], depth+1))
						}
					}
				}
			}
			if !matched && additional != nil {
				set(k, s.dropOptionalNulls(obj.Vals[k], additional, depth+1))
			}
		}
	}
	return w.result()
}

// cow is an object changed copy-on-write: the original until a member
// changes, then a copy.
type cow struct{ orig, out *Object }

func (c *cow) cur() *Object {
	if c.out != nil {
		return c.out
	}
	return c.orig
}

func (c *cow) set(k string, next any) {
	if same(next, c.cur().Vals[k]) {
		return
	}
	if c.out == nil {
		c.out = c.orig.Clone()
	}
	c.out.Set(k, next)
}

func (c *cow) remove(k string) {
	if c.out == nil {
		c.out = c.orig.Clone()
	}
	c.out.Delete(k)
}

func (c *cow) result() any { return c.cur() }

// Pass 2.

func (s *parser) convert(node any, v any, depth int) any {
	n, ok := node.(*Object)
	if !ok || depth > maxWalk {
		return v
	}
	if ref, ok := n.Vals["$ref"].(string); ok {
		target, ok := s.resolve(ref)
		if !ok || depth > maxReentries {
			return v
		}
		if _, isObj := target.(*Object); !isObj {
			return v
		}
		return s.convert(target, v, depth+1)
	}
	if c, ok := n.Vals["const"]; ok {
		return convertLiteral(c, v)
	}
	if enum, ok := n.Vals["enum"].([]any); ok {
		return s.convertEnum(n, enum, v)
	}
	if branches, ok := n.Vals["anyOf"].([]any); ok {
		return s.convertUnion(n, branches, v, depth)
	}
	if branches, ok := n.Vals["oneOf"].([]any); ok {
		return s.convertUnion(n, branches, v, depth)
	}
	if all, ok := n.Vals["allOf"].([]any); ok {
		next := v
		for _, m := range all {
			next = s.convert(m, next, depth+1)
		}
		return s.convertMembers(n, next, depth)
	}
	ty, hasType := n.Vals["type"].(string)
	if !hasType {
		if _, isList := n.Vals["type"].([]any); isList {
			return v
		}
		switch {
		case n.Has("properties") || n.Has("patternProperties"):
			return s.convertObject(n, v, depth)
		case n.Has("items") || n.Has("prefixItems"):
			return s.convertArray(n, v, depth)
		}
		return v
	}
	switch ty {
	case "string":
		if r, ok := tryString(v); ok {
			return r
		}
	case "number":
		if r, ok := tryNumber(v); ok {
			return r
		}
	case "integer":
		if r, ok := tryNumber(v); ok {
			return math.Trunc(r)
		}
	case "boolean":
		if r, ok := tryBoolean(v); ok {
			return r
		}
	case "null":
		if tryNull(v) {
			return nil
		}
	case "array":
		return s.convertArray(n, v, depth)
	case "object":
		return s.convertObject(n, v, depth)
	}
	return v
}

func (s *parser) convertEnum(n *Object, enum []any, v any) any {
	for _, m := range enum {
		if same(m, v) {
			return v
		}
	}
	for _, m := range enum {
		if c := convertLiteral(m, v); !same(c, v) && s.passes(n, c) {
			return c
		}
	}
	return v
}

func (s *parser) convertUnion(n *Object, branches []any, v any, depth int) any {
	for _, b := range branches {
		if s.passes(b, v) {
			return s.convertMembers(n, v, depth)
		}
	}
	for _, b := range branches {
		c := s.convertMembers(n, s.convert(b, v, depth+1), depth)
		if s.passes(n, c) {
			return c
		}
	}
	return s.convertMembers(n, v, depth)
}

func (s *parser) convertMembers(n *Object, v any, depth int) any {
	if n.Has("properties") || n.Has("patternProperties") || n.Has("additionalProperties") {
		return s.convertObject(n, v, depth)
	}
	return v
}

func (s *parser) convertArray(n *Object, v any, depth int) any {
	var prefix []any
	tuple := false
	if items, ok := n.Vals["items"].([]any); ok {
		prefix, tuple = items, true
	} else if p, ok := n.Vals["prefixItems"].([]any); ok {
		prefix, tuple = p, true
	}
	if tuple {
		arr, ok := v.([]any)
		if !ok {
			return v // a tuple never wraps a single value
		}
		var rest any
		if _, isList := n.Vals["items"].([]any); !isList {
			rest = n.Vals["items"]
		}
		return mapItems(arr, func(item any, i int) any {
			sub := rest
			if i < len(prefix) {
				sub = prefix[i]
			}
			if sub == nil {
				return item
			}
			return s.convert(sub, item, depth+1)
		})
	}
	item := n.Vals["items"]
	if arr, ok := v.([]any); ok {
		if item == nil {
			return v
		}
		return mapItems(arr, func(x any, _ int) any { return s.convert(item, x, depth+1) })
	}
	// A single value becomes a one-item array, converted by the item schema.
	if _, isObj := item.(*Object); isObj && depth < maxReentries {
		return []any{s.convert(item, v, depth+1)}
	}
	return []any{v}
}

func (s *parser) convertObject(n *Object, v any, depth int) any {
	obj, ok := v.(*Object)
	if !ok {
		return v
	}
	props, _ := n.Vals["properties"].(*Object)
	patterns, _ := n.Vals["patternProperties"].(*Object)
	additional, _ := n.Vals["additionalProperties"].(*Object)
	var out *Object
	for _, k := range obj.Keys {
		val := obj.Vals[k]
		next := val
		matched := props != nil && props.Has(k)
		if matched {
			next = s.convert(props.Vals[k], next, depth+1)
		}
		if patterns != nil {
			for _, p := range patterns.Keys {
				if re := pattern(p); re != nil && re.MatchString(k) {
					matched = true
					next = s.convert(patterns.Vals[p], next, depth+1)
				}
			}
		}
		if !matched && additional != nil {
			next = s.convert(additional, next, depth+1)
		}
		if !same(next, val) {
			if out == nil {
				out = obj.Clone()
			}
			out.Set(k, next)
		}
	}
	if out != nil {
		return out
	}
	return v
}

// convertLiteral takes a const or enum value from a value of another type
// that converts to exactly it.
func convertLiteral(lit, v any) any {
	if same(lit, v) {
		return v
	}
	switch l := lit.(type) {
	case string:
		if r, ok := tryString(v); ok && r == l {
			return r
		}
	case float64:
		if r, ok := tryNumber(v); ok && r == l {
			return r
		}
	case bool:
		if r, ok := tryBoolean(v); ok && r == l {
			return r
		}
	}
	return v
}

func tryString(v any) (string, bool) {
	switch t := v.(type) {
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		if isFinite(t) {
			return jsNumber(t), true
		}
	case nil:
		return "null", true
	case string:
		return t, true
	}
	return "", false
}

var (
	bigIntN       = lazyRegexp(`^-?(0|[1-9]\d*)n$`)
	bigIntDecimal = lazyRegexp(`^-?(0|[1-9]\d*)\.\d+$`)
	bigIntPlain   = lazyRegexp(`^-?(0|[1-9]\d*)$`)
)

const maxSafeInteger = 1<<53 - 1

func tryNumber(v any) (float64, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case float64:
		if isFinite(t) {
			return t, true
		}
		return 0, false
	case nil:
		return 0, true
	case string:
		if f := jsToNumber(t); isFinite(f) {
			return f, true
		}
		switch strings.ToLower(t) {
		case "false":
			return 0, true
		case "true":
			return 1, true
		}
		// A bigint literal (12n), or a decimal whose integer part is one.
		digits := ""
		switch {
		case bigIntN.MatchString(t):
			digits = t[:len(t)-1]
		case bigIntDecimal.MatchString(t):
			digits, _, _ = strings.Cut(t, ".")
		case bigIntPlain.MatchString(t):
			digits = t
		default:
			return 0, false
		}
		i, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || i > maxSafeInteger || i < -maxSafeInteger {
			return 0, false
		}
		return float64(i), true
	}
	return 0, false
}

func tryBoolean(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case float64:
		switch t {
		case 0:
			return false, true
		case 1:
			return true, true
		}
	case nil:
		return false, true
	case string:
		switch {
		case strings.ToLower(t) == "false" || t == "0":
			return false, true
		case strings.ToLower(t) == "true" || t == "1":
			return true, true
		}
	}
	return false, false
}

func tryNull(v any) bool {
	switch t := v.(type) {
	case bool:
		return !t
	case float64:
		return t == 0
	case nil:
		return true
	case string:
		l := strings.ToLower(t)
		return l == "undefined" || l == "null" || t == "" || t == "0"
	}
	return false
}

// Pass 3.

func (s *parser) coerceTypes(v any, node any, depth int) any {
	n, ok := node.(*Object)
	if !ok || depth > maxWalk {
		return v
	}
	next := v
	if all, ok := n.Vals["allOf"].([]any); ok {
		for _, m := range all {
			next = s.coerceTypes(next, m, depth+1)
		}
	}
	if branches, ok := n.Vals["anyOf"].([]any); ok {
		next = s.coerceUnion(next, branches, depth)
	}
	if branches, ok := n.Vals["oneOf"].([]any); ok {
		next = s.coerceUnion(next, branches, depth)
	}
	types := typeList(n.Vals["type"])
	matchesMember := false
	if len(types) > 1 {
		for _, ty := range types {
			if hasType(next, ty) {
				matchesMember = true
				break
			}
		}
	}
	if len(types) > 0 && !matchesMember {
		for _, ty := range types {
			if c := coercePrimitive(next, ty); !same(c, next) {
				next = c
				break
			}
		}
	}
	for _, ty := range types {
		switch ty {
		case "object":
			if obj, ok := next.(*Object); ok {
				next = s.coerceProperties(obj, n, depth)
			}
		case "array":
			if arr, ok := next.([]any); ok {
				next = mapItems(arr, func(item any, i int) any {
					if sub, ok := itemSchemaAt(n, i).(*Object); ok {
						return s.coerceTypes(item, sub, depth+1)
					}
					return item
				})
			}
		}
	}
	return next
}

func (s *parser) coerceUnion(v any, branches []any, depth int) any {
	for _, b := range branches {
		if s.passes(b, v) {
			return v
		}
	}
	for _, b := range branches {
		if c := s.coerceTypes(v, b, depth+1); s.passes(b, c) {
			return c
		}
	}
	return v
}

func (s *parser) coerceProperties(obj *Object, n *Object, depth int) any {
	props, _ := n.Vals["properties"].(*Object)
	patterns, _ := n.Vals["patternProperties"].(*Object)
	additional, _ := n.Vals["additionalProperties"].(*Object)
	w := &cow{orig: obj}
	cur, set := w.cur, w.set
	if props != nil {
		for _, k := range props.Keys {
			if val, ok := obj.Get(k); ok {
				set(k, s.coerceTypes(val, props.Vals[k], depth+1))
			}
		}
	}
	for _, k := range obj.Keys {
		matched := props != nil && props.Has(k)
		if patterns != nil {
			for _, p := range patterns.Keys {
				if re := pattern(p); re != nil && re.MatchString(k) {
					matched = true
					set(k, s.coerceTypes(cur().Vals[k], patterns.Vals[p], depth+1))
				}
			}
		}
		if !matched && additional != nil {
			set(k, s.coerceTypes(obj.Vals[k], additional, depth+1))
		}
	}
	return w.result()
}

func coercePrimitive(v any, ty string) any {
	switch ty {
	case "number", "integer":
		switch t := v.(type) {
		case nil:
			return 0.0
		case string:
			if strings.TrimFunc(t, isJSSpace) != "" {
				f := jsToNumber(t)
				if ty == "number" && isFinite(f) || ty == "integer" && isInteger(f) {
					return f
				}
			}
		case bool:
			if t {
				return 1.0
			}
			return 0.0
		}
	case "boolean":
		switch v {
		case nil, "false", 0.0:
			return false
		case "true", 1.0:
			return true
		}
	case "string":
		switch t := v.(type) {
		case nil:
			return ""
		case float64:
			return jsNumber(t)
		case bool:
			return strconv.FormatBool(t)
		}
	case "null":
		switch v {
		case "", 0.0, false:
			return nil
		}
	}
	return v
}

// itemSchemaAt is the schema of an array's item i.
func itemSchemaAt(n *Object, i int) any {
	if items, ok := n.Vals["items"].([]any); ok {
		if i < len(items) {
			return items[i]
		}
		return nil
	}
	if p, ok := n.Vals["prefixItems"].([]any); ok && i < len(p) {
		return p[i]
	}
	return n.Vals["items"]
}

// mapItems maps items by f, copying only when an item changes.
func mapItems(items []any, f func(any, int) any) []any {
	var out []any
	for i, x := range items {
		next := f(x, i)
		if same(next, x) {
			continue
		}
		if out == nil {
			out = append([]any(nil), items...)
		}
		out[i] = next
	}
	if out != nil {
		return out
	}
	return items
}
