package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fsutil"
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
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	if err := writeForTool(ctx, call.Files, abs, p, content); err != nil {
		return llm.ToolResult{}, err
	}
	return llm.TextResult(fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), p)), nil
}

// writeForTool creates or replaces the file at abs (p as the model named
// it) with content, for write and edit, under the rule of fsutil.Write:
// missing directories are created, a regular file is replaced atomically
// and keeps its mode, a new one gets mode 0644, a file the process may not
// write is refused as an in-place write would be, and anything that is not
// a regular file is refused. Symbolic links are followed, as pi does: the
// link stays and the file it points to is written (a link to a device or a
// FIFO is refused like the device itself). With files (a client's) the
// same check of the path comes first, then the client writes.
func writeForTool(ctx context.Context, files Files, abs, p, content string) error {
	if files != nil {
		if _, _, err := fsutil.WriteTarget(abs, true); err != nil {
			return writeError(err, abs, p)
		}
		if err := files.WriteTextFile(ctx, abs, content); err != nil {
			if ctx.Err() != nil {
				return ErrAborted
			}
			return fmt.Errorf("Cannot write %s: %v", p, err)
		}
		return nil
	}
	err := fsutil.WriteBytes(abs, []byte(content), fsutil.Options{Perm: 0o644, DirPerm: 0o755, FollowLinks: true, RequireWritable: true})
	if err != nil {
		return writeError(err, abs, p)
	}
	return nil
}

// writeError words a refused or failed write for the model.
func writeError(err error, abs, p string) error {
	var nr *fsutil.NotRegularError
	switch {
	case errors.As(err, &nr) && nr.Kind == "a directory" && nr.Path == abs:
		return fmt.Errorf("%s is a directory, not a file", p)
	case errors.As(err, &nr):
		return fmt.Errorf("Cannot write %s: %s is %s, not a regular file; it is left as it is", p, nr.Path, nr.Kind)
	}
	return fmt.Errorf("Cannot write %s: %w", p, err)
}
