package compaction

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

func params(preserve int) Parameters {
	return Normalize(Settings{CompressionRatio: 0.5, PreserveRecent: &preserve})
}

func TestNormalize(t *testing.T) {
	neg := -3
	for _, c := range []struct {
		in   Settings
		want Parameters
	}{
		{Settings{}, Parameters{CompressionRatio: 0.5, PreserveRecent: 2}},
		{Settings{CompressionRatio: 1}, Parameters{CompressionRatio: 0.5, PreserveRecent: 2}},
		{Settings{CompressionRatio: -0.2}, Parameters{CompressionRatio: 0.5, PreserveRecent: 2}},
		{Settings{CompressionRatio: 0.3, PreserveRecent: &neg, Query: "  tests  "}, Parameters{CompressionRatio: 0.3, PreserveRecent: 0, Query: "tests"}},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%+v) = %+v, want %+v", c.in, got, c.want)
		}
	}
	if TargetKeep(100, 0, 0.5) != 50 || TargetKeep(101, 0, 0.5) != 51 || TargetKeep(100, 70, 0.5) != 70 || TargetKeep(5, 0, 0.3) != 2 {
		t.Fatal("TargetKeep")
	}
}

func longBranch() []*session.Entry {
	return branch(
		session.Entry{Type: session.TypeModelChange, Provider: "faux", ModelID: "faux-1"},
		user("fix the failing test in parser_test.go"),                                                                                   // e2
		assistant(thinking("Look first."), llm.ToolCall("c1", "read", map[string]any{"path": "parser_test.go"})),                         // e3
		toolResult("c1", "line1\nline2\nline3"),                                                                                          // e4
		assistant(llm.ToolCall("c2", "bash", map[string]any{"command": "go test"})),                                                      // e5, result missing
		user("also keep the API stable"),                                                                                                 // e6
		toolResult("zz", "orphan result"),                                                                                                // e7 dropped
		say("Done: the parser handles empty input.\nTests pass."),                                                                        // e8
		session.Entry{Type: session.TypeCustomMessage, CustomType: "note", Content: llm.TextContent("hidden"), ExcludeFromContext: true}, // e9
		user("thanks"), // e10
	)
}

func TestPrepareRegionAndTail(t *testing.T) {
	b := longBranch()
	p := Prepare(b, params(2))
	golden(t, "prepare_region.golden", p.Region.Text())
	if p.FirstKeptEntryID == nil || *p.FirstKeptEntryID != "e8" {
		t.Fatalf("first kept %v", p.FirstKeptEntryID)
	}
	if p.KeptTailMessageCount != 2 {
		t.Fatalf("tail %d", p.KeptTailMessageCount)
	}
	if want := []string{"e2", "e3", "e4", "e5", "e6"}; !reflect.DeepEqual(p.RegionEntryIDs, want) {
		t.Fatalf("region ids %v", p.RegionEntryIDs)
	}
	if p.Parameters.Query != "thanks" {
		t.Fatalf("query %q", p.Parameters.Query)
	}
	msgs := []llm.Message{*b[7].Message, *b[9].Message}
	if p.KeptTailTokens != llm.EstimateTokens(&msgs[0])+llm.EstimateTokens(&msgs[1]) {
		t.Fatalf("kept tail tokens %d", p.KeptTailTokens)
	}
	if !strings.Contains(p.Region.Text(), "[Tool result]: "+noResultText) {
		t.Fatal("a call without result needs a synthesised result in the region")
	}
	if strings.Contains(p.Region.Text(), "orphan") || strings.Contains(p.Region.Text(), "hidden") {
		t.Fatal("orphan results and excluded messages are not in the region")
	}
}

func TestPreparePreserveZeroAndLarge(t *testing.T) {
	b := longBranch()
	p := Prepare(b, params(0))
	if p.FirstKeptEntryID != nil || p.KeptTailMessageCount != 0 || p.KeptTailTokens != 0 {
		t.Fatalf("preserve 0 keeps nothing: %+v", p)
	}
	if !strings.HasSuffix(p.Region.Text(), "[User]: thanks") {
		t.Fatalf("region should end with the last message: %q", p.Region.Text())
	}
	p = Prepare(b, params(100))
	if p.Region.Text() != "" || *p.FirstKeptEntryID != "e2" || !p.TooSmall() {
		t.Fatalf("preserve > messages: region %q first %v", p.Region.Text(), *p.FirstKeptEntryID)
	}
	p = Prepare(b, Normalize(Settings{Query: "the API"}))
	if p.Parameters.Query != "the API" || p.Parameters.PreserveRecent != 2 {
		t.Fatalf("explicit query: %+v", p.Parameters)
	}
}

func TestPrepareTailStartingWithSyntheticResult(t *testing.T) {
	b := branch(user("go"), assistant(llm.ToolCall("c1", "ls", nil)), user("next"))
	p := Prepare(b, params(2))
	// visible: user, assistant, synthesised result, user; tail = result + user.
	if p.KeptTailMessageCount != 2 || p.FirstKeptEntryID == nil || *p.FirstKeptEntryID != "e3" {
		t.Fatalf("first kept %v count %d", p.FirstKeptEntryID, p.KeptTailMessageCount)
	}
}

func TestPrepareAfterPreviousCompaction(t *testing.T) {
	first := "e3"
	details := map[string]any{"strategy": Strategy}
	b := branch(
		user("old request"),      // e1
		say("old answer"),        // e2
		user("kept from before"), // e3 first kept of the previous compaction
		say("kept answer"),       // e4
		session.Entry{Type: session.TypeCompaction, Summary: "[User]: old request\n(filtered 5 lines)", FirstKeptEntryID: &first, Details: details}, // e5
		user("new request"), // e6
		say("new answer"),   // e7
		user("latest"),      // e8
	)
	p := Prepare(b, params(1))
	want := "[User]: old request\n(filtered 5 lines)\n[User]: kept from before\n\n[Assistant]: kept answer\n\n[User]: new request\n\n[Assistant]: new answer"
	if p.Region.Text() != want {
		t.Fatalf("region\n%s\nwant\n%s", p.Region.Text(), want)
	}
	if p.Region.PriorMarker(2) != 5 || *p.FirstKeptEntryID != "e8" {
		t.Fatal("markers or first kept")
	}
	if !reflect.DeepEqual(p.RegionEntryIDs, []string{"e3", "e4", "e6", "e7"}) {
		t.Fatalf("ids %v", p.RegionEntryIDs)
	}
	// A previous boundary without a tail: the region starts after it.
	b[4].FirstKeptEntryID = nil
	p = Prepare(b, params(1))
	if !strings.HasPrefix(p.Region.Text(), "[User]: old request\n(filtered 5 lines)\n[User]: new request") {
		t.Fatalf("region %q", p.Region.Text())
	}
	// Summary-style compactions of other strategies are inert.
	b[4].Details = nil
	p = Prepare(b, params(1))
	if !strings.HasPrefix(p.Region.Text(), "[User]: old request\n\n[Assistant]: old answer") {
		t.Fatalf("inert compaction: %q", p.Region.Text())
	}
}

func TestPrepareTokensBefore(t *testing.T) {
	a := say("answer")
	a.Usage = llm.Usage{Input: 900, Output: 100}
	b := branch(user("q"), a, user(strings.Repeat("x", 40)))
	p := Prepare(b, params(0))
	if p.TokensBefore != 1000+10 {
		t.Fatalf("tokens before %d", p.TokensBefore)
	}
}

func TestPromptGolden(t *testing.T) {
	text := "[User]: fix it\n<keepContext>\nmust stay\n</keepContext>\n\n[Assistant]: ok"
	for i := 0; i < 4; i++ {
		text += fmt.Sprintf("\n[Tool result]: output %d", i)
	}
	req := NewPlanRequest(NewRegion(text), 0, 0.5, "fix it")
	if req.Lines != 10 || req.TargetKeep != 5 || req.TargetDelete != 5 {
		t.Fatalf("targets %+v", req)
	}
	golden(t, "prompt_system.golden", req.SystemPrompt)
	golden(t, "prompt_user.golden", req.Prompt)
	if !strings.Contains(req.Prompt, "Protected line ranges: 2-4\n") || !strings.Contains(req.Prompt, "\n1→[User]: fix it\n") ||
		!strings.Contains(req.Prompt, "Unprotected lines you may keep: 2\n") || !strings.Contains(req.Prompt, "fix it") {
		t.Fatal("prompt misses a fact")
	}
	if none := NewPlanRequest(lines(3), 0, 0.5, ""); !strings.Contains(none.Prompt, "Protected line ranges: none\n") || none.Query != AutoQuery {
		t.Fatal("no protected lines or default query")
	}
}

func TestContextTokensMatchesBuiltContext(t *testing.T) {
	a := say("answer")
	a.Usage = llm.Usage{Input: 300, Output: 20}
	errMsg := say("partial")
	errMsg.StopReason = llm.StopError
	errMsg.Usage = llm.Usage{Input: 999999}
	first := "e3"
	b := branch(user("q"), a, user("kept"), say("kept answer"),
		session.Entry{Type: session.TypeCompaction, Summary: "text\n(filtered 3 lines)", FirstKeptEntryID: &first, Details: map[string]any{"strategy": Strategy}},
		user("after"), errMsg, user("more"))
	if got, want := contextTokens(b), llm.EstimateContextTokens(BuildContext(b).Messages); got != want || got == 0 {
		t.Fatalf("contextTokens %d, built %d", got, want)
	}
	b = append(b, &session.Entry{Type: session.TypeMessage, ID: "z", Message: &a})
	if got, want := contextTokens(b), llm.EstimateContextTokens(BuildContext(b).Messages); got != want || got != 320 {
		t.Fatalf("contextTokens %d, built %d", got, want)
	}
	b = b[:4]
	if got, want := contextTokens(b), llm.EstimateContextTokens(BuildContext(b).Messages); got != want {
		t.Fatalf("no boundary: %d vs %d", got, want)
	}
}
