package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

//go:embed read.md
var readDescription string

// ReadDetails are the details of a read result.
type ReadDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
}

// ReadTool reads text files and images.
type ReadTool struct{}

var _ Prompted = ReadTool{}

func (ReadTool) Name() string        { return "read" }
func (ReadTool) Description() string { return strings.TrimSpace(readDescription) }

func (ReadTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the file to read, relative to the working directory or absolute"},
    "offset": {"type": "integer", "description": "Line number to start reading at (1 = first line)"},
    "limit": {"type": "integer", "description": "Largest number of lines to return"}
  },
  "required": ["path"]
}`)
}

func (ReadTool) PromptSnippet() string {
	return "Show the contents of a text file, or view an image file"
}

func (ReadTool) PromptGuidelines() []string {
	return []string{
		"Look at files with read rather than with cat, head or sed in bash.",
		"For long files, read the relevant part with offset and limit instead of the whole file.",
	}
}

// imageMIMEs are the image types returned as attachments.
var imageMIMEs = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

func (ReadTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	p, err := requiredString(call.Args, "path")
	if err != nil {
		return llm.ToolResult{}, err
	}
	offset, hasOffset, err := intArg(call.Args, "offset")
	if err != nil {
		return llm.ToolResult{}, err
	}
	limit, hasLimit, err := intArg(call.Args, "limit")
	if err != nil {
		return llm.ToolResult{}, err
	}
	if hasLimit && limit < 1 {
		return llm.ToolResult{}, fmt.Errorf("limit must be at least 1, got %d", limit)
	}
	abs := ResolvePath(call.Cwd, p)
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return llm.ToolResult{}, fmt.Errorf("File not found: %s", p)
		}
		return llm.ToolResult{}, fmt.Errorf("Cannot read %s: %v", p, err)
	}
	if fi.IsDir() {
		return llm.ToolResult{}, fmt.Errorf("%s is a directory, not a file", p)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return llm.ToolResult{}, fmt.Errorf("Cannot read %s: %v", p, err)
	}
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}

	if mime := http.DetectContentType(data); imageMIMEs[mime] {
		return llm.ToolResult{Content: []llm.ContentBlock{
			llm.Text(fmt.Sprintf("Read image file [%s]", mime)),
			llm.Image(base64.StdEncoding.EncodeToString(data), mime),
		}}, nil
	}
	if isBinary(data) {
		return llm.TextResult(fmt.Sprintf("[%s looks like a binary file (%s); its contents are not shown]", p, FormatSize(len(data)))), nil
	}

	text := strings.ToValidUTF8(string(data), "\uFFFD")
	lines := strings.Split(text, "\n")
	total := len(lines)
	start := 0 // index of the first line shown
	if hasOffset && offset > 1 {
		start = offset - 1
	}
	if start >= total {
		return llm.ToolResult{}, fmt.Errorf("Offset %d is beyond end of file (%d lines total)", offset, total)
	}
	end := total
	if hasLimit && start+limit < total {
		end = start + limit
	}
	selected := strings.Join(lines[start:end], "\n")
	tr := TruncateHead(selected, DefaultMaxLines, DefaultMaxBytes)
	first := start + 1

	var out string
	var details any
	switch {
	case tr.FirstLineExceedsLimit:
		out = fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, FormatSize(len(lines[start])), FormatSize(DefaultMaxBytes), first, shellQuote(p), DefaultMaxBytes)
		details = ReadDetails{Truncation: &tr}
	case tr.Truncated:
		last := first + tr.OutputLines - 1
		limitNote := ""
		if tr.TruncatedBy == TruncatedByBytes {
			limitNote = fmt.Sprintf(" (%s limit)", FormatSize(DefaultMaxBytes))
		}
		out = tr.Content + fmt.Sprintf("\n\n[Showing lines %d-%d of %d%s. Use offset=%d to continue.]", first, last, total, limitNote, last+1)
		details = ReadDetails{Truncation: &tr}
	case end < total:
		out = tr.Content + fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", total-end, end+1)
	default:
		out = tr.Content
	}
	res := llm.TextResult(out)
	res.Details = details
	return res, nil
}

// isBinary reports whether data looks like a binary file: it has a NUL
// byte in its first 8 KB.
func isBinary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// shellQuote quotes s for a POSIX shell when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
