package tools

import (
	"slices"
	"testing"
)

func TestMatchToolPattern(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"bash", "bash", true},
		{"bash", "bash2", false},
		{"*", "anything", true},
		{"*", "", true},
		{"mcp__*", "mcp__fs__read", true},
		{"mcp__*", "read", false},
		{"*__read", "mcp__fs__read", true},
		{"mcp__*__read", "mcp__fs__read", true},
		{"mcp__*__read", "mcp__read", false},
		{"a*a", "a", false},
		{"a*a", "aa", true},
		{"*it*", "edit", true},
		{"*it*", "write", true},
		{"*it*", "read", false},
		{"r?ad", "read", false}, // ? is itself
	} {
		if got := MatchToolPattern(c.pattern, c.name); got != c.want {
			t.Errorf("MatchToolPattern(%q, %q) = %v", c.pattern, c.name, got)
		}
	}
}

// Excluded tools stay inactive whatever activates them, before or after.
func TestRegistryExcluded(t *testing.T) {
	r := NewRegistryWithBuiltins([]string{"read", "bash", "edit"})
	r.SetExcluded([]string{"ba*"})
	r.SetActive([]string{"read", "bash", "write"})
	if got := r.ActiveNames(); !slices.Equal(got, []string{"read", "write"}) {
		t.Fatalf("active %v", got)
	}
	if r.IsActive("bash") {
		t.Fatal("bash is active")
	}
	r.SetExcluded(nil)
	if !r.IsActive("bash") {
		t.Fatal("bash stays off once the exclusion is gone")
	}
}
