package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fsutil"
)

//go:embed grep.md
var grepDescription string

const defaultGrepLimit = 100

// maxGrepContext caps the context parameter: more context lines than
// this could never fit in the output.
const maxGrepContext = 1000

// GrepDetails are the details of a grep result.
type GrepDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
	// MatchLimitReached is the match limit when more matches exist.
	MatchLimitReached int  `json:"matchLimitReached,omitempty"`
	LinesTruncated    bool `json:"linesTruncated,omitempty"`
}

// GrepTool searches file contents.
type GrepTool struct{}

var _ Prompted = GrepTool{}

func (GrepTool) Name() string        { return "grep" }
func (GrepTool) Description() string { return strings.TrimSpace(grepDescription) }

func (GrepTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (RE2 syntax) to look for, or plain text when literal is true"},
    "path": {"type": "string", "description": "Directory or file to search (default: the working directory)"},
    "glob": {"type": "string", "description": "Only search files matching this glob, e.g. '*.go' or 'src/**/*.ts'"},
    "ignoreCase": {"type": "boolean", "description": "Match without regard to case"},
    "literal": {"type": "boolean", "description": "Treat pattern as plain text instead of a regular expression"},
    "context": {"type": "integer", "description": "Lines of context to show before and after each match (default 0)"},
    "limit": {"type": "integer", "description": "Largest number of matches to return (default 100)"}
  },
  "required": ["pattern"]
}`)
}

func (GrepTool) PromptSnippet() string {
	return "Search file contents by regular expression, honouring .gitignore"
}

func (GrepTool) PromptGuidelines() []string {
	return []string{
		"Prefer grep over running grep or rg through bash: it skips ignored and binary files and caps its output.",
	}
}

// grepSearch holds the state of one grep call.
type grepSearch struct {
	ctx       context.Context
	re        *regexp.Regexp
	context   int
	limit     int
	matches   int
	lines     []string
	outBytes  int
	limitHit  bool
	cutLines  bool
	outputCap int
}

type numberedLine struct {
	n    int
	text string
}

func (GrepTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}
	pattern, err := requiredString(call.Args, "pattern")
	if err != nil {
		return llm.ToolResult{}, err
	}
	p, _, err := stringArg(call.Args, "path")
	if err != nil {
		return llm.ToolResult{}, err
	}
	globPat, _, err := stringArg(call.Args, "glob")
	if err != nil {
		return llm.ToolResult{}, err
	}
	ignoreCase, err := boolArg(call.Args, "ignoreCase")
	if err != nil {
		return llm.ToolResult{}, err
	}
	literal, err := boolArg(call.Args, "literal")
	if err != nil {
		return llm.ToolResult{}, err
	}
	contextLines, _, err := intArg(call.Args, "context")
	if err != nil {
		return llm.ToolResult{}, err
	}
	limit, hasLimit, err := intArg(call.Args, "limit")
	if err != nil {
		return llm.ToolResult{}, err
	}
	if !hasLimit {
		limit = defaultGrepLimit
	}
	limit = max(limit, 1)
	contextLines = min(max(contextLines, 0), maxGrepContext)

	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return llm.ToolResult{}, fmt.Errorf("Invalid regular expression %q: %w", pattern, err)
	}
	var include, exclude *glob
	if globPat != "" {
		g := globPat
		neg := strings.HasPrefix(g, "!")
		if neg {
			g = g[1:]
		}
		compiled, err := compileGlob(g, false)
		if err != nil {
			return llm.ToolResult{}, fmt.Errorf("Invalid glob %q: %w", globPat, err)
		}
		if neg {
			exclude = compiled
		} else {
			include = compiled
		}
	}

	if p == "" {
		p = "."
	}
	root := ResolvePath(call.Cwd, p)
	fi, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return llm.ToolResult{}, fmt.Errorf("Path not found: %s", p)
		}
		return llm.ToolResult{}, fmt.Errorf("Cannot search %s: %w", p, err)
	}

	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return llm.ToolResult{}, fmt.Errorf("Cannot search %s: it is %s, not a regular file or a directory", p, fsutil.Kind(fi.Mode()))
	}
	s := &grepSearch{ctx: ctx, re: re, context: contextLines, limit: limit, outputCap: 2 * DefaultMaxBytes}
	if fi.IsDir() {
		err = walkTree(ctx, root, func(e walkEntry) error {
			if e.IsDir || !e.Entry.Type().IsRegular() {
				return nil
			}
			if include != nil && !include.match(e.Rel) || exclude != nil && exclude.match(e.Rel) {
				return nil
			}
			return s.searchFile(e.Abs, e.Rel)
		})
	} else {
		err = s.searchFile(root, filepath.Base(root))
	}
	if err != nil && !errors.Is(err, errStopWalk) {
		return llm.ToolResult{}, err
	}
	if err := aborted(ctx); err != nil {
		return llm.ToolResult{}, err
	}

	if s.matches == 0 {
		return llm.TextResult("No matches found"), nil
	}
	tr := TruncateHead(strings.Join(s.lines, "\n"), math.MaxInt32, DefaultMaxBytes)
	var details GrepDetails
	var notices []string
	if s.limitHit {
		notices = append(notices, fmt.Sprintf("%d matches limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		details.MatchLimitReached = limit
	}
	if tr.Truncated || s.outBytes > s.outputCap {
		notices = append(notices, FormatSize(DefaultMaxBytes)+" limit reached")
		tr.Truncated = true
		details.Truncation = &tr
	}
	if s.cutLines {
		notices = append(notices, "Some lines truncated to "+strconv.Itoa(GrepMaxLineLength)+" chars. Use the read tool to see full lines")
		details.LinesTruncated = true
	}
	res := llm.TextResult(tr.Content + noticeBlock(notices))
	if len(notices) > 0 {
		res.Details = details
	}
	return res, nil
}

// emit adds one output line; it returns errStopWalk once the output is far
// beyond what will be shown.
func (s *grepSearch) emit(name string, n int, sep byte, text string) error {
	text, cut := cutLine(strings.ToValidUTF8(text, "\uFFFD"), GrepMaxLineLength)
	if cut {
		s.cutLines = true
	}
	line := name + string(sep) + strconv.Itoa(n) + string(sep) + " " + text
	s.lines = append(s.lines, line)
	s.outBytes += len(line) + 1
	if s.outBytes > s.outputCap {
		return errStopWalk
	}
	return nil
}

// GrepScanBytes is how much of one line grep looks at: the rest of a
// longer line is skipped (not held in memory) and not searched.
const GrepScanBytes = 1 << 20

// searchFile greps one file, skipping it when it looks binary or is not a
// regular file.
func (s *grepSearch) searchFile(abs, name string) error {
	f, _, err := fsutil.OpenRegular(abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*1024)
	head, _ := r.Peek(8192)
	if bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	sc := newLineScanner(s.ctx, r)
	var before []numberedLine
	lastShown, afterLeft := 0, 0
	for n := 1; ; n++ {
		raw, size, ok, err := sc.next(GrepScanBytes)
		if errors.Is(err, ErrAborted) {
			return err
		}
		if err != nil || !ok || size == 0 && sc.done {
			return nil // end of file (a final newline ends the last line), or unreadable: skip the rest
		}
		text := strings.TrimSuffix(string(raw), "\r")
		if s.re.MatchString(text) {
			if s.matches >= s.limit {
				s.limitHit = true
				return errStopWalk
			}
			s.matches++
			for _, b := range before {
				if b.n > lastShown {
					if err := s.emit(name, b.n, '-', b.text); err != nil {
						return err
					}
				}
			}
			if err := s.emit(name, n, ':', text); err != nil {
				return err
			}
			lastShown, afterLeft = n, s.context
		} else if afterLeft > 0 {
			if err := s.emit(name, n, '-', text); err != nil {
				return err
			}
			lastShown = n
			afterLeft--
		}
		if s.context > 0 {
			if len(before) == s.context {
				before = append(before[:0], before[1:]...)
			}
			// Only what emit may show is kept of a context line.
			before = append(before, numberedLine{n, text[:min(len(text), 4*GrepMaxLineLength+4)]})
		}
	}
}
