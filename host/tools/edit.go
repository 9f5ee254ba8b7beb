package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/llm"
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
	raw, err := os.ReadFile(abs)
	if err != nil {
		return llm.ToolResult{}, fmt.Errorf("Cannot read %s: %v", p, err)
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
	if err := os.WriteFile(abs, []byte(out), fi.Mode().Perm()); err != nil {
		return llm.ToolResult{}, fmt.Errorf("Cannot write %s: %v", p, err)
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
	norm, starts, ends := fuzzyNormalize(content)
	oldNorm, _, _ := fuzzyNormalize(oldText)
	if oldNorm != "" {
		switch n := strings.Count(norm, oldNorm); {
		case n == 1:
			i := strings.Index(norm, oldNorm)
			from, to := starts[i], ends[i+len(oldNorm)-1]
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
// typographic quotes, dashes and spaces to ASCII. For each byte i of the
// result, s[starts[i]:ends[i]] is the character it came from.
func fuzzyNormalize(s string) (norm string, starts, ends []int) {
	var b strings.Builder
	b.Grow(len(s))
	starts = make([]int, 0, len(s))
	ends = make([]int, 0, len(s))
	emit := func(text string, from, to int) {
		b.WriteString(text)
		for range len(text) {
			starts = append(starts, from)
			ends = append(ends, to)
		}
	}
	for off := 0; off <= len(s); {
		lineEnd := len(s)
		if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
			lineEnd = off + i
		}
		keep := off + len(strings.TrimRightFunc(s[off:lineEnd], unicode.IsSpace))
		for i := off; i < keep; {
			r, size := utf8.DecodeRuneInString(s[i:])
			emit(fuzzyRune(r, s[i:i+size]), i, i+size)
			i += size
		}
		if lineEnd == len(s) {
			break
		}
		emit("\n", lineEnd, lineEnd+1)
		off = lineEnd + 1
	}
	return b.String(), starts, ends
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
