package config

import (
	"slices"
	"strings"
)

// Tool lists (the defaultTools setting and --tools), as pi 1.6 reads
// them: plain names select tools, "+name" adds one to the selection and
// "-name" removes one.

// IsToolModifier reports whether entry of a tool list is "+name" (add the
// tool) or "-name" (remove it), as in pi's defaultTools and --tools.
func IsToolModifier(entry string) bool {
	return strings.HasPrefix(entry, "+") || strings.HasPrefix(entry, "-")
}

// ToolListError says what is wrong with a tool list (--tools): it is
// either plain names or only +name/-name entries ("" when it is valid).
func ToolListError(entries []string) string {
	mods := 0
	for _, e := range entries {
		if IsToolModifier(e) {
			mods++
		}
	}
	if mods > 0 && mods < len(entries) {
		return "tool names cannot be mixed with +name or -name entries"
	}
	return ""
}

// ApplyToolModifiers applies the +name and -name entries of entries to
// base in order; other entries are ignored.
func ApplyToolModifiers(base, entries []string) []string {
	out := slices.Clone(base)
	for _, e := range entries {
		if !IsToolModifier(e) || len(e) < 2 {
			continue
		}
		name := e[1:]
		i := slices.Index(out, name)
		switch {
		case e[0] == '+' && i < 0:
			out = append(out, name)
		case e[0] == '-' && i >= 0:
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// MergeToolLists layers a settings file's defaultTools over the lists
// below it: a list of only +name/-name entries is appended (it changes
// the selection below); a list with a plain name replaces it.
func MergeToolLists(base, over []string) []string {
	if over == nil {
		return base
	}
	for _, e := range over {
		if !IsToolModifier(e) {
			return over
		}
	}
	if base == nil {
		return over
	}
	// Only modifiers (or none, as pi has it: an empty list leaves the
	// selection below as it is).
	return append(slices.Clone(base), over...)
}

// ResolveToolList resolves a merged defaultTools list: its plain names
// replace defaults (an empty list: no built-in tool), then +name adds and
// -name removes a tool, in list order.
func ResolveToolList(entries, defaults []string) []string {
	var plain []string
	for _, e := range entries {
		if !IsToolModifier(e) {
			plain = append(plain, e)
		}
	}
	base := plain
	if len(plain) == 0 && len(entries) > 0 {
		base = defaults
	}
	return ApplyToolModifiers(base, entries)
}
