package compaction

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/<name>, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file.\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// branch builds entries with ids e1, e2, … chained in order.
func branch(items ...any) []*session.Entry {
	var out []*session.Entry
	for i, it := range items {
		var e session.Entry
		switch v := it.(type) {
		case llm.Message:
			m := v
			e = session.Entry{Type: session.TypeMessage, Message: &m}
		case session.Entry:
			e = v
		default:
			panic(fmt.Sprintf("branch: %T", it))
		}
		e.ID = fmt.Sprintf("e%d", i+1)
		if i > 0 {
			p := out[i-1].ID
			e.ParentID = &p
		}
		if e.Timestamp == "" {
			e.Timestamp = fmt.Sprintf("2026-01-01T00:00:%02d.000Z", i%60)
		}
		ec := e
		out = append(out, &ec)
	}
	return out
}

func user(s string) llm.Message { return llm.UserText(s) }

func assistant(blocks ...llm.ContentBlock) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: llm.Content{Blocks: blocks}, StopReason: llm.StopStop}
}

func say(s string) llm.Message { return assistant(llm.Text(s)) }

func toolResult(id, text string) llm.Message {
	return llm.Message{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "bash", Content: llm.TextContent(text)}
}

func thinking(s string) llm.ContentBlock {
	return llm.ContentBlock{Type: llm.BlockThinking, Thinking: s}
}

// numbered renders a region the way the planner sees it.
func numbered(r *Region) string {
	var sb strings.Builder
	for i, l := range r.Lines {
		fmt.Fprintf(&sb, "%d→%s\n", i+1, l)
	}
	return sb.String()
}

// lines makes a region of n lines "L1".."Ln".
func lines(n int) *Region {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = fmt.Sprintf("L%d", i+1)
	}
	return NewRegion(strings.Join(ls, "\n"))
}
