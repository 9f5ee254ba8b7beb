package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// generate writes a session file of about size bytes: turns of a user
// prompt, an assistant tool call, a tool result (mostly 1.5–6.5 KB, every 50th
// 100 KB) and an assistant answer, with a few labels, a name and two
// abandoned branches, like a long working session without compaction.
func generate(path string, size int64, seed uint64) (entries int, err error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := session.New(path, "/home/bench/project", "")
	s.Append(session.Entry{Type: session.TypeModelChange, Provider: "anthropic", ModelID: "claude-sonnet-4-5"})
	s.Append(session.Entry{Type: session.TypeThinkingLevelChange, ThinkingLevel: "medium"})
	name := "benchmark session"
	s.Append(session.Entry{Type: session.TypeSessionInfo, Name: &name})
	usage := llm.Usage{Input: 12000, Output: 400, CacheRead: 9000, TotalTokens: 21400, Cost: llm.Cost{Input: 0.036, Output: 0.006, CacheRead: 0.0027, Total: 0.0447}}
	turn := 0
	var branchPoint string
	for {
		fi, err := os.Stat(path)
		if err == nil && fi.Size() >= size {
			break
		}
		turn++
		u := s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text(fmt.Sprintf("Step %d: %s", turn, sentence(r, 20)))}}, Timestamp: int64(1767225600000 + turn*1000)})
		callID := fmt.Sprintf("toolu_%08x", r.Uint32())
		file := fmt.Sprintf("src/pkg%d/file%d.go", r.IntN(40), r.IntN(200))
		s.AppendMessage(llm.Message{
			Role: llm.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
			Content: llm.Content{Blocks: []llm.ContentBlock{
				{Type: llm.BlockThinking, Thinking: sentence(r, 30), ThinkingSignature: "sig"},
				llm.ToolCall(callID, "read", map[string]any{"path": file}),
			}},
			Usage: usage, StopReason: llm.StopToolUse, Timestamp: int64(1767225600000 + turn*1000 + 1),
		})
		n := 1_500 + r.IntN(5_000)
		if turn%50 == 0 {
			n = 100_000
		}
		s.AppendMessage(llm.Message{
			Role: llm.RoleToolResult, ToolCallID: callID, ToolName: "read",
			Content: llm.TextContent(codeText(r, n)), Timestamp: int64(1767225600000 + turn*1000 + 2),
		})
		a := s.AppendMessage(llm.Message{
			Role: llm.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
			Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text("I read `" + file + "`. " + sentence(r, 40) + "\n\n- " + sentence(r, 8) + "\n- " + sentence(r, 8))}},
			Usage:   usage, StopReason: llm.StopStop, Timestamp: int64(1767225600000 + turn*1000 + 3),
		})
		if turn%500 == 0 {
			label := fmt.Sprintf("milestone %d", turn/500)
			s.Append(session.Entry{Type: session.TypeLabel, TargetID: u.ID, Label: &label})
		}
		// Twice, go back a few turns and continue from there (an
		// abandoned branch stays in the file).
		if turn == 1000 || turn == 5000 {
			branchPoint = a.ID
		}
		if (turn == 1010 || turn == 5010) && branchPoint != "" {
			if err := s.SetLeaf(branchPoint); err != nil {
				return 0, err
			}
		}
	}
	entries = s.Len()
	return entries, s.Close()
}

var words = strings.Fields("the a function returns value error config session entry file read write parse index tree branch leaf node test build " +
	"cache token model stream delta tool result message context compaction label name cursor offset line memory disk flush sync")

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	b.WriteByte('.')
	return b.String()
}

// codeText is n bytes of Go-like source with quotes, tabs and newlines.
func codeText(r *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 100)
	line := 1
	for b.Len() < n {
		fmt.Fprintf(&b, "%d\t", line)
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "func %s(%s string) error {\n", words[r.IntN(len(words))], words[r.IntN(len(words))])
		case 1:
			fmt.Fprintf(&b, "\treturn fmt.Errorf(\"%s: %%w\", err)\n", sentence(r, 4))
		case 2:
			fmt.Fprintf(&b, "\t// %s\n", sentence(r, 9))
		default:
			fmt.Fprintf(&b, "\tx := map[string]any{\"%s\": %d, \"%s\": \"%s\"}\n", words[r.IntN(len(words))], r.IntN(1000), words[r.IntN(len(words))], words[r.IntN(len(words))])
		}
		line++
	}
	return b.String()
}
