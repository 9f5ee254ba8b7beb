package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fsutil"
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

// MaxImageBytes is the largest image file read attaches.
const MaxImageBytes = 10 << 20

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
	var r *bufio.Reader
	var size int64
	f, fi, err := fsutil.OpenRegular(abs)
	switch {
	case err == nil:
		defer f.Close()
		r, size = bufio.NewReaderSize(f, 64<<10), fi.Size()
	case call.Files == nil || !errors.Is(err, fs.ErrNotExist):
		// (with a client's files a path missing here may be an unsaved
		// buffer there)
		return llm.ToolResult{}, toolFileError(err, p, "read")
	}
	var head []byte
	if r != nil {
		head, _ = r.Peek(8192)
	}
	textual := r == nil || (!imageMIMEs[http.DetectContentType(head)] && !isBinary(head))
	if call.Files != nil && textual {
		// Text comes from the client (its buffer may be newer than the
		// disk); images and binary files on disk are read from disk.
		text, err := readClientText(ctx, call.Files, abs, p, "read")
		if err != nil {
			return llm.ToolResult{}, err
		}
		r, size = bufio.NewReaderSize(strings.NewReader(text), 64<<10), int64(len(text))
		head, _ = r.Peek(8192)
	}
	if mime := ImageMIME(head); mime != "" {
		if size > MaxImageBytes {
			return llm.TextResult(fmt.Sprintf("[%s is a %s image of %s, larger than the %s the read tool attaches; its contents are not shown]",
				p, mime, FormatSize(int(size)), FormatSize(MaxImageBytes))), nil
		}
		data, err := io.ReadAll(io.LimitReader(r, MaxImageBytes+1))
		if err != nil {
			return llm.ToolResult{}, fmt.Errorf("Cannot read %s: %w", p, err)
		}
		if len(data) > MaxImageBytes {
			return llm.ToolResult{}, fmt.Errorf("Cannot read %s: it grew past %s while being read", p, FormatSize(MaxImageBytes))
		}
		return llm.ToolResult{Content: []llm.ContentBlock{
			llm.Text(fmt.Sprintf("Read image file [%s]", mime)),
			llm.Image(base64.StdEncoding.EncodeToString(data), mime),
		}}, nil
	}
	if isBinary(head) {
		return llm.TextResult(fmt.Sprintf("[%s looks like a binary file (%s); its contents are not shown]", p, FormatSize(int(size)))), nil
	}

	// Stream: skip to the offset, keep what may be shown (at most one line
	// past the line limit, and each line only up to one byte past the byte
	// limit), and count the rest.
	sc := newLineScanner(ctx, r)
	start := int64(0) // index of the first line shown
	if hasOffset && offset > 1 {
		start = int64(offset) - 1
	}
	if err := sc.skip(start); err != nil {
		return llm.ToolResult{}, readError(err, p)
	}
	if sc.done && sc.read <= start {
		return llm.ToolResult{}, fmt.Errorf("Offset %d is beyond end of file (%d lines total)", offset, sc.read)
	}
	want := int64(DefaultMaxLines) + 1
	if hasLimit {
		want = min(want, int64(limit))
	}
	var kept []string
	var firstSize, keptBytes, selBytes int64
	for int64(len(kept)) < want && keptBytes <= DefaultMaxBytes+1 {
		text, size, ok, err := sc.next(DefaultMaxBytes + 1)
		if err != nil {
			return llm.ToolResult{}, readError(err, p)
		}
		if !ok {
			break
		}
		if len(kept) == 0 {
			firstSize = size
		}
		kept = append(kept, strings.ToValidUTF8(string(text), "\uFFFD"))
		keptBytes += int64(len(text)) + 1
		selBytes += size + 1
	}
	// The selection is [start, end): the kept lines, then up to limit.
	shownTo := start + int64(len(kept))
	need := int64(-1)
	if hasLimit {
		need = max(start+int64(limit)-shownTo, 0)
	}
	rest, restBytes, err := sc.countRest(need)
	if err != nil {
		return llm.ToolResult{}, readError(err, p)
	}
	total := shownTo + rest
	end := total
	if hasLimit && start+int64(limit) < total {
		end = start + int64(limit)
	}
	tr := TruncateHead(strings.Join(kept, "\n"), DefaultMaxLines, DefaultMaxBytes)
	tr.TotalLines = int(end - start)
	tr.TotalBytes = int(selBytes + restBytes - 1)
	first := start + 1
	var out string
	var details any
	switch {
	case tr.FirstLineExceedsLimit:
		out = fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, FormatSize(int(firstSize)), FormatSize(DefaultMaxBytes), first, shellQuote(p), DefaultMaxBytes)
		details = ReadDetails{Truncation: &tr}
	case tr.Truncated:
		last := first + int64(tr.OutputLines) - 1
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

// readError words an error met while streaming a file.
func readError(err error, p string) error {
	if errors.Is(err, ErrAborted) {
		return err
	}
	return fmt.Errorf("Cannot read %s: %w", p, err)
}

// isBinary reports whether data looks like a binary file: it has a NUL
// byte in its first 8 KB.
// ImageMIME is the MIME type of an image the agent attaches (PNG, JPEG,
// GIF, WebP) that starts with head, "" for anything else.
func ImageMIME(head []byte) string {
	if mime := http.DetectContentType(head); imageMIMEs[mime] {
		return mime
	}
	return ""
}

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
