package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

//go:embed write.md
var writeDescription string

// WriteTool creates or overwrites files.
type WriteTool struct{}

var _ Prompted = WriteTool{}

func (WriteTool) Name() string        { return "write" }
func (WriteTool) Description() string { return strings.TrimSpace(writeDescription) }

func (WriteTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the file to write, relative to the working directory or absolute"},
    "content": {"type": "string", "description": "The complete new contents of the file"}
  },
  "required": ["path", "content"]
}`)
}

func (WriteTool) PromptSnippet() string {
	return "Create a file or replace all of its contents"
}

func (WriteTool) PromptGuidelines() []string {
	return []string{
		"Use write only for new files or complete rewrites; make smaller changes with edit.",
	}
}

func (WriteTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	p, err := requiredString(call.Args, "path")
	if err != nil {
		return llm.ToolResult{}, err
	}
	content, err := requiredString(call.Args, "content")
	if err != nil {
		return llm.ToolResult{}, err
	}
	abs := ResolvePath(call.Cwd, p)
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return llm.ToolResult{}, fmt.Errorf("%s is a directory, not a file", p)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return llm.ToolResult{}, fmt.Errorf("Cannot create the directory for %s: %v", p, err)
	}
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		return llm.ToolResult{}, fmt.Errorf("Cannot write %s: %v", p, err)
	}
	return llm.TextResult(fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), p)), nil
}
