package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fsutil"
)

//go:embed edit.md
var editDescription string

// EditDetails are the details of an edit result.
type EditDetails struct {
	// Diff is a unified diff of the change (with LF line endings).
	Diff string `json:"diff"`
	// FirstChangedLine is the 1-based line number of the first changed
	// line in the new file.
	FirstChangedLine int `json:"firstChangedLine,omitempty"`
}

// EditTool replaces a unique piece of text in a file.
type EditTool struct{}

var _ Prompted = EditTool{}

func (EditTool) Name() string        { return "edit" }
func (EditTool) Description() string { return strings.TrimSpace(editDescription) }

func (EditTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the file to change, relative to the working directory or absolute"},
    "oldText": {"type": "string", "description": "Text to replace; must match exactly one place in the file, whitespace included"},
    "newText": {"type": "string", "description": "Text to put in its place"}
  },
  "required": ["path", "oldText", "newText"]
}`)
}

func (EditTool) PromptSnippet() string {
	return "Change a file by replacing one exact, unique piece of text"
}

func (EditTool) PromptGuidelines() []string {
	return []string{
		"Read a file before editing it, and copy oldText from what you read, whitespace included.",
		"Keep oldText short but unique: include just enough surrounding lines to identify one place.",
	}
}

const utf8BOM = "\uFEFF"

// MaxEditBytes is the largest file edit changes. edit holds the file, its
// new text and their normalised forms in memory at once; a larger file is
// refused (checked from its size before anything is read), and the model
// is told to use bash for it.
const MaxEditBytes = 8 << 20

// readForEdit reads a whole regular file of at most MaxEditBytes (from
// files when set).
func readForEdit(ctx context.Context, files Files, abs, p string) ([]byte, error) {
	if files != nil {
		text, err := readClientText(ctx, files, abs, p, "edit")
		return []byte(text), err
	}
	raw, err := fsutil.ReadRegular(abs, MaxEditBytes)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return nil, fmt.Errorf("Cannot edit %s: it is larger than the %s edit works on; change it with bash (sed, a script) instead", p, FormatSize(MaxEditBytes))
	}
	if err != nil {
		return nil, toolFileError(err, p, "read")
	}
	return raw, nil
}

func (EditTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	p, err := requiredString(call.Args, "path")
	if err != nil {
		return llm.ToolResult{}, err
	}
	oldText, err := requiredString(call.Args, "oldText")
	if err != nil {
		return llm.ToolResult{}, err
	}
	newText, err := requiredString(call.Args, "newText")
	if err != nil {
		return llm.ToolResult{}, err
	}
	abs := ResolvePath(call.Cwd, p)
	raw, err := readForEdit(ctx, call.Files, abs, p)
	if err != nil {
		return llm.ToolResult{}, err
	}
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}

	text := string(raw)
	bom := strings.HasPrefix(text, utf8BOM)
	text = strings.TrimPrefix(text, utf8BOM)
	crlf := false
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		crlf = true
	}
	content := strings.ReplaceAll(text, "\r\n", "\n")
	oldText = strings.ReplaceAll(strings.TrimPrefix(oldText, utf8BOM), "\r\n", "\n")
	newText = strings.ReplaceAll(newText, "\r\n", "\n")

	if oldText == "" {
		return llm.ToolResult{}, fmt.Errorf("oldText must not be empty: give the exact text in %s that should be replaced", p)
	}
	if oldText == newText {
		return llm.ToolResult{}, fmt.Errorf("No changes made to %s: oldText and newText are identical", p)
	}

	updated, err := replaceUnique(content, oldText, newText, p)
	if err != nil {
		return llm.ToolResult{}, err
	}
	if updated == content {
		return llm.ToolResult{}, fmt.Errorf("No changes made to %s: the replacement left the file unchanged", p)
	}

	out := updated
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = utf8BOM + out
	}
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	if err := writeForTool(ctx, call.Files, abs, p, out); err != nil {
		return llm.ToolResult{}, err
	}
	diff, first := unifiedDiff(p, content, updated, 4)
	res := llm.TextResult(fmt.Sprintf("Successfully replaced text in %s.", p))
	res.Details = EditDetails{Diff: diff, FirstChangedLine: first}
	return res, nil
}

// replaceUnique replaces the single occurrence of oldText in content. When
// there is no exact occurrence it retries on a normalised form of both
// (trailing whitespace per line ignored; typographic quotes, dashes and
// spaces treated as their ASCII counterparts) and replaces the matching
// original text.
func replaceUnique(content, oldText, newText, name string) (string, error) {
	switch n := strings.Count(content, oldText); {
	case n == 1:
		i := strings.Index(content, oldText)
		return content[:i] + newText + content[i+len(oldText):], nil
	case n > 1:
		return "", ambiguousError(n, name)
	}
	norm := fuzzyNormalize(content)
	oldNorm := fuzzyNormalize(oldText)
	if oldNorm != "" {
		switch n := strings.Count(norm, oldNorm); {
		case n == 1:
			i := strings.Index(norm, oldNorm)
			from, to := fuzzyOrigin(content, i, i+len(oldNorm)-1)
			return content[:from] + newText + content[to:], nil
		case n > 1:
			return "", ambiguousError(n, name)
		}
	}
	return "", fmt.Errorf("Could not find the text to replace in %s. oldText must match the file exactly, including all whitespace, indentation and line breaks; read the file again and copy the text precisely", name)
}

func ambiguousError(n int, name string) error {
	return fmt.Errorf("Found %d occurrences of the text in %s. oldText must be unique: add more surrounding context so that it matches exactly one place", n, name)
}

// fuzzyNormalize drops trailing whitespace from every line and maps
// typographic quotes, dashes and spaces to ASCII.
func fuzzyNormalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	fuzzyWalk(s, func(text string, _, _ int) bool {
		b.WriteString(text)
		return true
	})
	return b.String()
}

// fuzzyOrigin returns where the bytes first and last of
// fuzzyNormalize(s) came from: s[from:to] is the original text of the
// normalised range [first, last]. It walks s again rather than keeping a
// map of every byte, so that matching needs no memory beyond the
// normalised text.
func fuzzyOrigin(s string, first, last int) (from, to int) {
	pos := 0
	fuzzyWalk(s, func(text string, f, t int) bool {
		if pos <= first && first < pos+len(text) {
			from = f
		}
		if pos <= last && last < pos+len(text) {
			to = t
			return false
		}
		pos += len(text)
		return true
	})
	return from, to
}

// fuzzyWalk calls emit with each piece of the normalised form of s and the
// range of s it came from, until emit returns false.
func fuzzyWalk(s string, emit func(text string, from, to int) bool) {
	for off := 0; off <= len(s); {
		lineEnd := len(s)
		if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
			lineEnd = off + i
		}
		keep := off + len(strings.TrimRightFunc(s[off:lineEnd], unicode.IsSpace))
		for i := off; i < keep; {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !emit(fuzzyRune(r, s[i:i+size]), i, i+size) {
				return
			}
			i += size
		}
		if lineEnd == len(s) {
			return
		}
		if !emit("\n", lineEnd, lineEnd+1) {
			return
		}
		off = lineEnd + 1
	}
}

func fuzzyRune(r rune, orig string) string {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'"
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-"
	case '\u00A0', '\u202F', '\u205F', '\u3000':
		return " "
	}
	if r >= '\u2000' && r <= '\u200A' {
		return " "
	}
	return orig
}
