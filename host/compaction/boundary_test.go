package compaction

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

func TestBuildContextWithBoundary(t *testing.T) {
	first := "e3"
	img := llm.Message{Role: llm.RoleUser, Content: llm.Content{Blocks: []llm.ContentBlock{llm.Text("see"), llm.Image("QQ", "image/png")}}}
	res := &Result{CompactedText: "[User]: old\n(filtered 3 lines)", PromptVersion: PromptVersion, Rung: RungPlanned}
	b := branch(
		user("old"),                              // e1
		say("old answer"),                        // e2
		img,                                      // e3 kept tail
		assistant(llm.ToolCall("c1", "ls", nil)), // e4 kept tail, call without result
		session.Entry{Type: session.TypeCompaction, Summary: res.CompactedText, FirstKeptEntryID: &first, Details: res.Details()}, // e5
		user("after"), // e6
		say("reply"),  // e7
	)
	c := BuildContext(b)
	if len(c.Messages) != 3 {
		t.Fatalf("messages %d", len(c.Messages))
	}
	bm := c.Messages[0]
	if bm.Role != llm.RoleCustom || bm.CustomType != BoundaryCustomType || !bm.Display || StrategyOf(bm.Details) != Strategy {
		t.Fatalf("boundary %+v", bm)
	}
	want := boundaryPreamble + "[User]: old\n(filtered 3 lines)\n\n[User]: see\n[image]\n\n[Assistant tool calls]: ls()\n\n[Tool result]: " + noResultText
	if len(bm.Content.Blocks) != 2 || bm.Content.Blocks[0].Text != want || bm.Content.Blocks[1].Data != "QQ" {
		t.Fatalf("boundary content\n%q\nwant\n%q", bm.Content.Blocks[0].Text, want)
	}
	if c.Messages[1].Text() != "after" || c.Messages[2].Text() != "reply" {
		t.Fatal("entries after the boundary follow it")
	}
	// It reaches the provider as one user message.
	pm := llm.ToProviderMessages(c.Messages)
	if len(pm) != 3 || pm[0].Role != llm.RoleUser {
		t.Fatalf("provider messages %+v", pm)
	}

	// The entry survives a JSON round trip (reopening) and still counts.
	data, err := json.Marshal(b[4])
	if err != nil {
		t.Fatal(err)
	}
	var back session.Entry
	if err := json.Unmarshal(data, &back); err != nil || !IsBoundary(&back) {
		t.Fatalf("round trip: %v %s", err, data)
	}
	b[4] = &back
	if c2 := BuildContext(b); c2.Messages[0].Content.Blocks[0].Text != want {
		t.Fatal("reloaded boundary differs")
	}

	// Without a kept tail: summary only.
	b[4].FirstKeptEntryID = nil
	if c3 := BuildContext(b); c3.Messages[0].Content.Blocks[0].Text != boundaryPreamble+res.CompactedText || len(c3.Messages[0].Content.Blocks) != 1 {
		t.Fatalf("no tail: %q", c3.Messages[0].Content.Blocks[0].Text)
	}
}

func TestBuildContextIgnoresOtherCompactions(t *testing.T) {
	b := branch(user("a"), session.Entry{Type: session.TypeCompaction, Summary: "old style"}, user("b"))
	c := BuildContext(b)
	if len(c.Messages) != 2 || strings.Contains(c.Messages[0].Text(), "old style") {
		t.Fatalf("an old summary compaction is inert: %+v", c.Messages)
	}
}

func TestStrategyOf(t *testing.T) {
	for _, d := range []any{&Details{Strategy: Strategy}, Details{Strategy: Strategy}, map[string]any{"strategy": Strategy}, json.RawMessage(`{"strategy":"verbatim-lines"}`)} {
		if StrategyOf(d) != Strategy {
			t.Errorf("%T", d)
		}
	}
	if StrategyOf(nil) != "" || StrategyOf("x") != "" {
		t.Error("non-details")
	}
}

func TestEndToEndPrepareRunBuild(t *testing.T) {
	var items []any
	for i := 0; i < 12; i++ {
		items = append(items, user("request "+strings.Repeat("r", i)), say("answer line one\nanswer line two"))
	}
	b := branch(items...)
	p := Prepare(b, params(2))
	pl := PlannerFunc(func(ctx context.Context, req *PlanRequest) Reply { return msgReply("1,20", llm.StopStop) })
	res, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{{Planner: pl}}})
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, &session.Entry{Type: session.TypeCompaction, ID: "cx", Summary: res.CompactedText, FirstKeptEntryID: res.FirstKeptEntryID, Details: res.Details()})
	c := BuildContext(b)
	if len(c.Messages) != 1 || !strings.HasPrefix(c.Messages[0].Text(), boundaryPreamble+"(filtered 20 lines)\n") ||
		!strings.HasSuffix(c.Messages[0].Text(), "[User]: request rrrrrrrrrrr\n\n[Assistant]: answer line one\nanswer line two") {
		t.Fatalf("context %q", c.Messages[0].Text())
	}
	// A second compaction re-ranks the first one's text and tail.
	p2 := Prepare(b, params(0))
	if !strings.HasPrefix(p2.Region.Text(), "(filtered 20 lines)\n") || p2.Region.PriorMarker(1) != 20 || p2.FirstKeptEntryID != nil {
		t.Fatalf("second region %q", p2.Region.Text())
	}
}

func TestBoundaryKeepsLeadingToolResultOfTail(t *testing.T) {
	first := "e3"
	b := branch(
		user("go"),                               // e1
		assistant(llm.ToolCall("c1", "ls", nil)), // e2 (compacted)
		toolResult("c1", "a.txt"),                // e3 first kept
		say("one file"),                          // e4
		session.Entry{Type: session.TypeCompaction, Summary: "S", FirstKeptEntryID: &first, Details: map[string]any{"strategy": Strategy}},
	)
	p := Prepare(b[:4], params(2))
	if p.FirstKeptEntryID == nil || *p.FirstKeptEntryID != "e3" {
		t.Fatal("tail should start at the tool result")
	}
	got := BuildContext(b).Messages[0].Content.Blocks[0].Text
	if want := boundaryPreamble + "S\n\n[Tool result]: a.txt\n\n[Assistant]: one file"; got != want {
		t.Fatalf("got %q", got)
	}
}
