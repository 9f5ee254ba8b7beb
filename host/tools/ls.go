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
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

//go:embed ls.md
var lsDescription string

const defaultLsLimit = 500

// LsDetails are the details of an ls result.
type LsDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
	// EntryLimitReached is the entry limit when more entries exist.
	EntryLimitReached int `json:"entryLimitReached,omitempty"`
}

// LsTool lists a directory.
type LsTool struct{}

var _ Prompted = LsTool{}

func (LsTool) Name() string        { return "ls" }
func (LsTool) Description() string { return strings.TrimSpace(lsDescription) }

func (LsTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list (default: the working directory)"},
    "limit": {"type": "integer", "description": "Largest number of entries to return (default 500)"}
  }
}`)
}

func (LsTool) PromptSnippet() string {
	return "List the entries of a directory"
}

func (LsTool) PromptGuidelines() []string {
	return []string{
		"Use ls to look at a directory instead of running ls through bash.",
	}
}

func (LsTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
	if err := aborted(ctx); err != nil {
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
		limit = defaultLsLimit
	}
	limit = max(limit, 1)
	if p == "" {
		p = "."
	}
	dir := ResolvePath(call.Cwd, p)
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return llm.ToolResult{}, fmt.Errorf("Path not found: %s", p)
		}
		return llm.ToolResult{}, fmt.Errorf("Cannot list %s: %v", p, err)
	}
	if !fi.IsDir() {
		return llm.ToolResult{}, fmt.Errorf("Not a directory: %s", p)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return llm.ToolResult{}, fmt.Errorf("Cannot list %s: %v", p, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})

	var out []string
	limitHit := false
	for _, name := range names {
		if err := aborted(ctx); err != nil {
			return llm.ToolResult{}, err
		}
		if len(out) >= limit {
			limitHit = true
			break
		}
		// Stat follows symbolic links, so a link to a directory is shown
		// as a directory.
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return llm.TextResult("(empty directory)"), nil
	}

	tr := TruncateHead(strings.Join(out, "\n"), math.MaxInt32, DefaultMaxBytes)
	var details LsDetails
	var notices []string
	if limitHit {
		notices = append(notices, fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, limit*2))
		details.EntryLimitReached = limit
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
