package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

//go:embed find.md
var findDescription string

const defaultFindLimit = 1000

// FindDetails are the details of a find result.
type FindDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
	// ResultLimitReached is the result limit when more results exist.
	ResultLimitReached int `json:"resultLimitReached,omitempty"`
}

// FindTool finds files by glob pattern.
type FindTool struct{}

var _ Prompted = FindTool{}

func (FindTool) Name() string        { return "find" }
func (FindTool) Description() string { return strings.TrimSpace(findDescription) }

func (FindTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob to match, e.g. '*.go', '**/*_test.go' or 'src/**/index.ts'"},
    "path": {"type": "string", "description": "Directory to search (default: the working directory)"},
    "limit": {"type": "integer", "description": "Largest number of results to return (default 1000)"}
  },
  "required": ["pattern"]
}`)
}

func (FindTool) PromptSnippet() string {
	return "Find files by name or path glob, honouring .gitignore"
}

func (FindTool) PromptGuidelines() []string {
	return []string{
		"Locate files with find instead of running find or ls -R through bash.",
	}
}

func (FindTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
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
	limit, hasLimit, err := intArg(call.Args, "limit")
	if err != nil {
		return llm.ToolResult{}, err
	}
	if !hasLimit {
		limit = defaultFindLimit
	}
	limit = max(limit, 1)

	dirsOnly := strings.HasSuffix(pattern, "/") && strings.TrimRight(pattern, "/") != ""
	g, err := compileGlob(strings.TrimRight(pattern, "/"), true)
	if err != nil {
		return llm.ToolResult{}, fmt.Errorf("Invalid glob pattern %q: %w", pattern, err)
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
	if !fi.IsDir() {
		return llm.ToolResult{}, fmt.Errorf("Not a directory: %s", p)
	}

	var results []string
	limitHit := false
	err = walkTree(ctx, root, func(e walkEntry) error {
		if dirsOnly && !e.IsDir || !g.match(e.Rel) {
			return nil
		}
		if len(results) >= limit {
			limitHit = true
			return errStopWalk
		}
		name := e.Rel
		if e.IsDir {
			name += "/"
		}
		results = append(results, name)
		return nil
	})
	if err != nil {
		return llm.ToolResult{}, err
	}
	if len(results) == 0 {
		return llm.TextResult("No files found matching pattern"), nil
	}
	sort.Strings(results)

	tr := TruncateHead(strings.Join(results, "\n"), math.MaxInt32, DefaultMaxBytes)
	var details FindDetails
	var notices []string
	if limitHit {
		notices = append(notices, fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		details.ResultLimitReached = limit
	}
	if tr.Truncated {
		notices = append(notices, FormatSize(DefaultMaxBytes)+" limit reached")
		details.Truncation = &tr
	}
	res := llm.TextResult(tr.Content + noticeBlock(notices))
	if len(notices) > 0 {
		res.Details = details
	}
	return res, nil
}
