package rpc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// bigTurn is a faux answer that reports a context of input tokens.
func bigTurn(text string, input int) map[string]any {
	return map[string]any{"text": text, "usage": map[string]any{"input": input, "output": 10}}
}

// turnsUpTo answers n prompts with multi-line text and small usage.
func turnsUpTo(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		out = append(out, bigTurn(fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i), 1000+i))
	}
	return out
}

func indexOfType(recs []e2e.Record, typ string) int {
	for i, r := range recs {
		if r.Type() == typ {
			return i
		}
	}
	return -1
}

func TestThresholdCompactionInLongSession(t *testing.T) {
	// faux-2 has a 32,000-token window; with the default reserve of 16,384
	// a reported context above 15,616 tokens triggers compaction.
	script := append(turnsUpTo(5), bigTurn("the big one", 20000), map[string]any{"text": "1,6\n"}, bigTurn("fresh", 3000))
	a := e2e.Start(t, e2e.Options{Args: []string{"--model", "faux/faux-2"}, Script: script})
	for i := 0; i < 5; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	if indexOfType(a.Records(0), "compaction_start") >= 0 {
		t.Fatal("no compaction below the threshold")
	}
	from := a.Len()
	settle(t, a, "request 5")
	recs := a.Records(from)
	iEnd, iStart, iCEnd, iSettled := indexOfType(recs, "agent_end"), indexOfType(recs, "compaction_start"), indexOfType(recs, "compaction_end"), indexOfType(recs, "agent_settled")
	if !(iEnd >= 0 && iEnd < iStart && iStart < iCEnd && iCEnd < iSettled) {
		t.Fatalf("order: %v", e2e.Types(recs))
	}
	if recs[iStart]["reason"] != "threshold" {
		t.Fatalf("start %v", recs[iStart])
	}
	end := recs[iCEnd]
	res, _ := end["result"].(map[string]any)
	if end["reason"] != "threshold" || end["willRetry"] != false || res == nil || res["rung"] != "planned" {
		t.Fatalf("end %v", end)
	}
	if !strings.HasPrefix(res["compactedText"].(string), "(filtered 6 lines)\n[User]: request 1") {
		t.Fatalf("text %q", res["compactedText"])
	}
	st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	if st["isCompacting"] != false || st["messageCount"] != float64(1) {
		t.Fatalf("state %v", st)
	}
	// The next run starts from the compacted context and does not compact again.
	from = a.Len()
	settle(t, a, "request 6")
	if indexOfType(a.Records(from), "compaction_start") >= 0 {
		t.Fatal("compacted again")
	}
}

func TestThresholdCompactionDisabled(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Args: []string{"--model", "faux/faux-2"}, Script: append(turnsUpTo(4), bigTurn("big", 20000), bigTurn("next", 20000))})
	a.MustSucceed(map[string]any{"type": "set_auto_compaction", "enabled": false})
	for i := 0; i < 6; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	time.Sleep(200 * time.Millisecond)
	if indexOfType(a.Records(0), "compaction_start") >= 0 {
		t.Fatal("compaction ran while disabled")
	}
	if st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"})); st["autoCompactionEnabled"] != false {
		t.Fatalf("state %v", st)
	}
}

func TestPromptDuringCompactionIsQueued(t *testing.T) {
	slowPlan := map[string]any{"text": "1,6\n", "chunks": 4, "delayMs": 400}
	script := append(turnsUpTo(4), bigTurn("big", 20000), slowPlan, bigTurn("queued answer", 2000))
	a := e2e.Start(t, e2e.Options{Args: []string{"--model", "faux/faux-2"}, Script: script})
	for i := 0; i < 4; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "request 4"})
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool { return r.Type() == "compaction_start" })
	st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	if st["isCompacting"] != true {
		t.Fatalf("state during compaction %v", st)
	}
	resp := a.Request(map[string]any{"type": "prompt", "message": "while compacting"})
	if resp["success"] != true {
		t.Fatalf("prompt during compaction: %v", resp)
	}
	// The prompt runs once the compaction is over.
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		return r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), "queued answer")
	})
	recs := a.Records(from)
	iCEnd := indexOfType(recs, "compaction_end")
	for i, r := range recs {
		if r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), "while compacting") && i < iCEnd {
			t.Fatalf("the prompt ran during the compaction: %v", e2e.Types(recs))
		}
	}
}

func TestAbortStopsCompaction(t *testing.T) {
	for _, cmd := range []string{"abort", "abort_compaction"} {
		t.Run(cmd, func(t *testing.T) {
			slowPlan := map[string]any{"text": "1,4\n", "chunks": 10, "delayMs": 500}
			a := e2e.Start(t, e2e.Options{Script: append(longAnswers(5), slowPlan)})
			for i := 0; i < 5; i++ {
				settle(t, a, fmt.Sprintf("request %d", i))
			}
			from := a.Len()
			id := a.NewID()
			a.Send(map[string]any{"id": id, "type": "compact"})
			a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "compaction_start" })
			a.MustSucceed(map[string]any{"type": cmd})
			resp := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "response" && r["id"] == id })
			if resp["success"] != false || resp["error"] != "Compaction cancelled" {
				t.Fatalf("compact response %v", resp)
			}
			end := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "compaction_end" })
			if end["aborted"] != true || end["result"] != nil {
				t.Fatalf("end %v", end)
			}
			// Nothing was committed: the context is unchanged.
			msgs := dataOf(t, a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any)
			if len(msgs) != 10 {
				t.Fatalf("messages %d", len(msgs))
			}
		})
	}
}
