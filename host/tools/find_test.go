package tools

import (
	"strings"
	"testing"
)

func findFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":          "dist/\n*.tmp\n",
		"main.go":             "",
		"main_test.go":        "",
		"README.md":           "",
		"cmd/app/app.go":      "",
		"cmd/app/app_test.go": "",
		"internal/x/x.go":     "",
		"dist/bundle.go":      "",
		"scratch.tmp":         "",
		".config/conf.go":     "",
		".git/hooks/h.go":     "",
		"web/src/index.ts":    "",
		"web/src/view.tsx":    "",
	})
	return dir
}

func TestFindBasename(t *testing.T) {
	dir := findFixture(t)
	got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "*.go"})
	want := ".config/conf.go\ncmd/app/app.go\ncmd/app/app_test.go\ninternal/x/x.go\nmain.go\nmain_test.go"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFindDoubleStar(t *testing.T) {
	dir := findFixture(t)
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "**/*_test.go"}); got != "cmd/app/app_test.go\nmain_test.go" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "cmd/**/*.go"}); got != "cmd/app/app.go\ncmd/app/app_test.go" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "web/**/*.{ts,tsx}"}); got != "web/src/index.ts\nweb/src/view.tsx" {
		t.Fatalf("got %q", got)
	}
	// Directories are listed with a slash.
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "app"}); got != "cmd/app/" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "*/"}); !strings.Contains(got, "cmd/\n") || strings.Contains(got, ".go") {
		t.Fatalf("dirs only: %q", got)
	}
	// Smart case.
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "readme*"}); got != "README.md" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "Readme*"}); got != "No files found matching pattern" {
		t.Fatalf("got %q", got)
	}
}

func TestFindPathAndGitignore(t *testing.T) {
	dir := findFixture(t)
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "*.go", "path": "cmd"}); got != "app/app.go\napp/app_test.go" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "*.tmp"}); got != "No files found matching pattern" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, FindTool{}, dir, map[string]any{"pattern": "bundle.go"}); got != "No files found matching pattern" {
		t.Fatalf("got %q", got)
	}
}

func TestFindLimitAndErrors(t *testing.T) {
	dir := findFixture(t)
	res, err := run(t, FindTool{}, dir, map[string]any{"pattern": "*.go", "limit": 2})
	if err != nil {
		t.Fatal(err)
	}
	text := res.ResultText()
	if !strings.HasSuffix(text, "\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]") || strings.Count(text, ".go") != 2 {
		t.Fatalf("got %q", text)
	}
	if d, ok := res.Details.(FindDetails); !ok || d.ResultLimitReached != 2 {
		t.Fatalf("details %#v", res.Details)
	}
	if msg := mustFail(t, FindTool{}, dir, map[string]any{"pattern": "*", "path": "missing"}); msg != "Path not found: missing" {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, FindTool{}, dir, map[string]any{"pattern": "*", "path": "main.go"}); msg != "Not a directory: main.go" {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, FindTool{}, dir, map[string]any{}); !strings.Contains(msg, `"pattern"`) {
		t.Fatalf("got %q", msg)
	}
}
