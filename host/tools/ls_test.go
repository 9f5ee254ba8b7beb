package tools

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLsOrdering(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.txt":     "",
		"A.txt":     "",
		"c/inner":   "",
		".env":      "",
		"Zeta/x":    "",
		"alpha.txt": "",
	})
	if err := os.Symlink(filepath.Join(dir, "c"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got := mustText(t, LsTool{}, dir, nil)
	want := ".env\nA.txt\nalpha.txt\nb.txt\nc/\nlink/\nZeta/"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := mustText(t, LsTool{}, dir, map[string]any{"path": "c"}); got != "inner" {
		t.Fatalf("got %q", got)
	}
}

func TestLsEmptyAndErrors(t *testing.T) {
	dir := t.TempDir()
	if got := mustText(t, LsTool{}, dir, map[string]any{}); got != "(empty directory)" {
		t.Fatalf("got %q", got)
	}
	if msg := mustFail(t, LsTool{}, dir, map[string]any{"path": "nope"}); msg != "Path not found: nope" {
		t.Fatalf("got %q", msg)
	}
	writeFiles(t, dir, map[string]string{"f": ""})
	if msg := mustFail(t, LsTool{}, dir, map[string]any{"path": "f"}); msg != "Not a directory: f" {
		t.Fatalf("got %q", msg)
	}
}

func TestLsLimit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": "", "b": "", "c": "", "d": ""})
	res, err := run(t, LsTool{}, dir, map[string]any{"limit": 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ResultText(); got != "a\nb\nc\n\n[3 entries limit reached. Use limit=6 for more]" {
		t.Fatalf("got %q", got)
	}
	if d, ok := res.Details.(LsDetails); !ok || d.EntryLimitReached != 3 {
		t.Fatalf("details %#v", res.Details)
	}
	if got := mustText(t, LsTool{}, dir, map[string]any{"limit": 4}); strings.Contains(got, "limit") {
		t.Fatalf("got %q", got)
	}
}

// TestLsKeepsWhatAFullSortShows: the bounded listing (a heap of the first
// names, cut to what the output can hold) shows exactly what sorting the
// whole directory would, for limits below, at and above the byte cap.
func TestLsKeepsWhatAFullSortShows(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	letters := "abcXYZ_-0123"
	var names []string
	seen := map[string]bool{}
	for len(names) < 6000 {
		b := make([]byte, 1+rng.IntN(40))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		name := string(b)
		if seen[name] {
			continue
		}
		seen[name] = true
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, limit := range []int{1, 7, 500, 2500, 6000, 100000} {
		shown := names[:min(limit, len(names))]
		want := TruncateHead(strings.Join(shown, "\n"), math.MaxInt32, DefaultMaxBytes).Content
		res, err := run(t, LsTool{}, dir, map[string]any{"limit": limit})
		if err != nil {
			t.Fatal(err)
		}
		got, _, _ := strings.Cut(res.ResultText(), "\n\n[")
		if got != want {
			t.Fatalf("limit %d: %d bytes shown, want %d", limit, len(got), len(want))
		}
		d, _ := res.Details.(LsDetails)
		if limit < len(names) && (d.EntryLimitReached != limit || d.TotalEntries != len(names)) {
			t.Fatalf("limit %d: details %#v", limit, d)
		}
	}
}
