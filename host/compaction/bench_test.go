package compaction

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// benchBranch builds a session whose region serialises to about 20,000
// lines: turns of a request, reasoning, a tool call, a 12-line tool result
// and an answer.
func benchBranch(turns int) []*session.Entry {
	var items []any
	out := strings.Repeat("src/pkg/file.go:42: some output line with a few words in it\n", 12)
	for i := 0; i < turns; i++ {
		id := fmt.Sprintf("c%d", i)
		items = append(items,
			user(fmt.Sprintf("step %d: please look at file %d\n<keepContext>\nkeep %d\n</keepContext>", i, i, i)),
			assistant(thinking("I should read it.\nThen decide."), llm.Text("Reading."),
				llm.ToolCall(id, "read", map[string]any{"path": fmt.Sprintf("src/f%d.go", i)})),
			toolResult(id, out),
			say("Here is what I found:\nfirst point\nsecond point"),
		)
	}
	return branch(items...)
}

// benchReply deletes most of every tool result, as a planner would.
func benchReply(r *Region) string {
	var sb strings.Builder
	for i := 0; i < r.Len(); i++ {
		if strings.HasPrefix(r.Lines[i], HeaderToolResult) {
			fmt.Fprintf(&sb, "%d,%d\n", i+2, i+12)
		}
	}
	return sb.String()
}

func BenchmarkPrepareAndRebuild20k(b *testing.B) {
	br := benchBranch(690)
	p := Prepare(br, params(2))
	if n := p.Region.Len(); n < 19000 || n > 21000 {
		b.Fatalf("region has %d lines", n)
	}
	reply := benchReply(p.Region)
	b.ReportMetric(float64(p.Region.Len()), "lines")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := Prepare(br, params(2))
		pl := PlannerFunc(func(ctx context.Context, req *PlanRequest) Reply { return msgReply(reply, llm.StopStop) })
		res, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{{Planner: pl}}})
		if err != nil {
			b.Fatal(err)
		}
		if res.Stats.RangeCount < 400 {
			b.Fatalf("ranges %d", res.Stats.RangeCount)
		}
	}
}

func BenchmarkReconstruct20k(b *testing.B) {
	p := Prepare(benchBranch(690), params(2))
	raw, err := ParseRecords(benchReply(p.Region))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Reconstruct(p.Region, Validate(raw, p.Region))
	}
}
