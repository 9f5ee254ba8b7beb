package llm

import (
	"context"
	"testing"
)

func TestBuilderAccumulatesText(t *testing.T) {
	var ends []AssistantEvent
	b := NewBuilder(Model{ID: "m", Cost: ModelCost{Input: 1, Output: 2}}, func(ev AssistantEvent, _ Usage) {
		if ev.Type == EvTextEnd || ev.Type == EvThinkingEnd {
			ends = append(ends, ev)
		}
	})
	th := b.StartThinking()
	b.Delta(th, "hmm ")
	b.Delta(th, "ok")
	tx := b.StartText()
	b.Delta(tx, "Hel")
	if snap := b.Snapshot(); snap.Content.Blocks[1].Text != "Hel" || snap.Content.Blocks[0].Thinking != "hmm ok" {
		t.Errorf("snapshot mid-stream: %+v", snap.Content.Blocks)
	}
	b.Delta(tx, "lo")
	b.End(th)
	b.End(tx)
	b.Delta(tx, "!") // a late delta still lands in the block
	b.SetUsage(Usage{Input: 10, Output: 5})
	msg := b.Finish(context.Background(), nil)
	if msg.Content.Blocks[0].Thinking != "hmm ok" || msg.Content.Blocks[1].Text != "Hello!" {
		t.Errorf("blocks %+v", msg.Content.Blocks)
	}
	if len(ends) != 2 || ends[0].Content != "hmm ok" || ends[1].Content != "Hello" {
		t.Errorf("end events %+v", ends)
	}
	if msg.StopReason != StopStop || msg.Usage.TotalTokens != 15 || msg.Usage.Cost.Total != 20e-6 {
		t.Errorf("stop %q usage %+v", msg.StopReason, msg.Usage)
	}
}
