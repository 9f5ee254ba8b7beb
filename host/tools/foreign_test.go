package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/llm"
)

func TestBoundResult(t *testing.T) {
	small := llm.ToolResult{Content: []llm.ContentBlock{llm.Text("ok")}, Details: map[string]any{"n": 1.0}}
	if got := BoundResult(small, "x"); len(got.Content) != 1 || got.Content[0].Text != "ok" || got.Details == nil {
		t.Fatalf("a small result changed: %+v", got)
	}
	// Text over the cap, split over blocks, cut inside a character.
	big := strings.Repeat("é", MaxForeignText/2) + "tail"
	got := BoundResult(llm.ToolResult{Content: []llm.ContentBlock{llm.Text("head"), llm.Text(big)}}, `extension "e"`)
	text := got.ResultText()
	if !utf8.ValidString(text) || len(text) > MaxForeignText+300 || !strings.Contains(text, `[output truncated: extension "e" returned 1.0MB of text; the limit for one result is 1.0MB]`) || !strings.HasPrefix(text, "head") {
		t.Fatalf("%d bytes, ends %q", len(text), text[len(text)-200:])
	}
	// Images past the total are dropped, details too.
	img := llm.ContentBlock{Type: llm.BlockImage, Data: strings.Repeat("A", 10<<20), MimeType: "image/png"}
	got = BoundResult(llm.ToolResult{Content: []llm.ContentBlock{img, img}, Details: map[string]any{"k": strings.Repeat("d", 20<<20)}}, "mcp server s")
	if len(got.Content) != 2 || got.Content[0].Type != llm.BlockImage || got.Details != nil ||
		!strings.Contains(got.ResultText(), "[1 image(s) dropped") || !strings.Contains(got.ResultText(), "[details dropped") {
		t.Fatalf("%d blocks, details %v, text %q", len(got.Content), got.Details != nil, got.ResultText())
	}
}

func TestRunForeignDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	_, err := RunForeign(context.Background(), Call{}, "nap", `extension "e"`, 50*time.Millisecond,
		func(ctx context.Context, _ func(llm.ToolResult)) (llm.ToolResult, error) {
			<-release // ignores its context
			return llm.TextResult("late"), nil
		})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 50ms") || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	// A caller's cancellation is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RunForeign(ctx, Call{}, "nap", "e", time.Hour, func(ctx context.Context, _ func(llm.ToolResult)) (llm.ToolResult, error) {
		<-ctx.Done()
		return llm.ToolResult{}, ctx.Err()
	})
	if !errors.Is(err, context.Canceled) && (err == nil || strings.Contains(err.Error(), "did not finish")) {
		t.Fatalf("cancelled call: %v", err)
	}
	// Errors and partial results are bounded too.
	var partial llm.ToolResult
	_, err = RunForeign(context.Background(), Call{OnUpdate: func(r llm.ToolResult) { partial = r }}, "big", "e", 0,
		func(ctx context.Context, update func(llm.ToolResult)) (llm.ToolResult, error) {
			update(llm.TextResult(strings.Repeat("p", 3<<20)))
			return llm.ToolResult{}, errors.New(strings.Repeat("e", 3<<20))
		})
	if len(err.Error()) > MaxForeignText+300 || len(partial.ResultText()) > MaxForeignText+300 {
		t.Fatalf("error of %d bytes, partial result of %d", len(err.Error()), len(partial.ResultText()))
	}
}
