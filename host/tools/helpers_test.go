package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// run executes a tool with args in cwd.
func run(t *testing.T, tool Tool, cwd string, args map[string]any) (llm.ToolResult, error) {
	t.Helper()
	return tool.Execute(context.Background(), Call{ID: "t1", Args: args, Cwd: cwd})
}

// mustText executes a tool that must succeed and returns its text.
func mustText(t *testing.T, tool Tool, cwd string, args map[string]any) string {
	t.Helper()
	res, err := run(t, tool, cwd, args)
	if err != nil {
		t.Fatalf("%s %v: unexpected error: %v", tool.Name(), args, err)
	}
	return res.ResultText()
}

// mustFail executes a tool that must fail and returns the error text.
func mustFail(t *testing.T, tool Tool, cwd string, args map[string]any) string {
	t.Helper()
	res, err := run(t, tool, cwd, args)
	if err == nil {
		t.Fatalf("%s %v: expected an error, got %q", tool.Name(), args, res.ResultText())
	}
	return err.Error()
}

// writeFiles creates files (path -> content) below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func numberedLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}
