package llmtest

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// BenchmarkStream2000 streams a 2,000-delta answer of 16,000 characters
// from a local server through provider p and the message builder (no event
// output). render shapes the answer for p's API (Anthropic, OpenAIChat, …);
// model points the request at the server's URL.
func BenchmarkStream2000(b *testing.B, p llm.Provider, render func(Turn) Response, model func(url string) llm.Model) {
	srv := NewServer()
	defer srv.Close()
	resp := render(Turn{Text: strings.Repeat("x", 16000), Chunks: 2000, Usage: Usage{Input: 1200, Output: 2000}})
	srv.Respond = func(Request) Response { return resp }
	req := &llm.Request{Model: model(srv.URL), Messages: []llm.Message{llm.UserText("go")}}
	b.ReportAllocs()
	for b.Loop() {
		bl := llm.NewBuilder(req.Model, nil)
		if err := p.Stream(context.Background(), req, bl); err != nil {
			b.Fatal(err)
		}
		if m := bl.Finish(context.Background(), nil); len(m.Text()) != 16000 {
			b.Fatalf("text %d", len(m.Text()))
		}
	}
}
