package tools

import (
	"container/heap"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// maxShownNames is the most names a listing can show within
// DefaultMaxBytes (every name takes at least one byte and a newline), so
// keeping that many of the first names in order loses nothing that the
// output could hold, whatever the limit asked for.
const maxShownNames = DefaultMaxBytes/2 + 1

// lsBatch is how many names are read from the directory at a time.
const lsBatch = 1024

// LsDetails are the details of an ls result.
type LsDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
	// EntryLimitReached is the entry limit when more entries exist.
	EntryLimitReached int `json:"entryLimitReached,omitempty"`
	// TotalEntries is how many entries the directory has, when the
	// listing was cut at the entry limit.
	TotalEntries int `json:"totalEntries,omitempty"`
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
	names, total, err := smallestNames(ctx, dir, min(limit, maxShownNames))
	if err != nil {
		if ctx.Err() != nil {
			return llm.ToolResult{}, ctx.Err()
		}
		return llm.ToolResult{}, fmt.Errorf("Cannot list %s: %v", p, err)
	}

	var out []string
	for _, name := range names {
		if err := aborted(ctx); err != nil {
			return llm.ToolResult{}, err
		}
		// Stat follows symbolic links, so a link to a directory is shown
		// as a directory.
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	limitHit := total > limit
	if len(out) == 0 {
		return llm.TextResult("(empty directory)"), nil
	}

	tr := TruncateHead(strings.Join(out, "\n"), math.MaxInt32, DefaultMaxBytes)
	var details LsDetails
	var notices []string
	if limitHit {
		notices = append(notices, fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, limit*2))
		details.EntryLimitReached = limit
		details.TotalEntries = total
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

// lsName is a directory entry's name with its sort key.
type lsName struct{ key, name string }

func (a lsName) less(b lsName) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.name < b.name
}

// nameHeap is a max-heap of names: its root is the last of the names kept.
type nameHeap []lsName

func (h nameHeap) Len() int           { return len(h) }
func (h nameHeap) Less(i, j int) bool { return h[j].less(h[i]) }
func (h nameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nameHeap) Push(x any)        { *h = append(*h, x.(lsName)) }
func (h *nameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// smallestNames reads dir in batches and returns the first keep names in
// listing order (case-insensitive, then bytewise), without those that
// could not fit in DefaultMaxBytes of output after the others, and how
// many entries dir has. Memory is bounded by keep and DefaultMaxBytes,
// not by the size of the directory.
func smallestNames(ctx context.Context, dir string, keep int) ([]string, int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	h := make(nameHeap, 0, min(keep, lsBatch))
	total, size := 0, 0 // size: the bytes of the names kept, a newline each
	// drop removes the last name kept while the others already fill the
	// output (it could never be shown).
	drop := func() {
		for len(h) > 1 && size-len(h[0].name)-1 > DefaultMaxBytes+1 {
			size -= len(h[0].name) + 1
			heap.Pop(&h)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		batch, err := f.Readdirnames(lsBatch)
		for _, name := range batch {
			total++
			n := lsName{key: strings.ToLower(name), name: name}
			if len(h) < keep {
				heap.Push(&h, n)
				size += len(name) + 1
			} else if n.less(h[0]) {
				size += len(name) - len(h[0].name)
				h[0] = n
				heap.Fix(&h, 0)
			} else {
				continue
			}
			drop()
		}
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
	}
	sort.Slice(h, func(i, j int) bool { return h[i].less(h[j]) })
	names := make([]string, len(h))
	for i, n := range h {
		names[i] = n.name
	}
	return names, total, nil
}
