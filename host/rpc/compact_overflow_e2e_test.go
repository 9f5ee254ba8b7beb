package rpc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

func overflowStep() map[string]any {
	return map[string]any{"error": "prompt is too long: 140000 tokens > 128000 maximum", "status": 400}
}

func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	script := append(turnsUpTo(4), overflowStep(), map[string]any{"text": "1,6\n"}, map[string]any{"text": "recovered answer"})
	a := e2e.Start(t, e2e.Options{Script: script})
	for i := 0; i < 4; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "request 4"})
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool { return r.Type() == "agent_settled" })
	recs := a.Records(from)
	types := e2e.Types(recs)
	iStart := indexOfType(recs, "compaction_start")
	if iStart < 0 || recs[iStart]["reason"] != "overflow" {
		t.Fatalf("no overflow compaction: %v", types)
	}
	iEnd := indexOfType(recs, "compaction_end")
	end := recs[iEnd]
	if end["willRetry"] != true || end["result"] == nil || end["reason"] != "overflow" {
		t.Fatalf("end %v", end)
	}
	// Two runs: the failed one, then the retry after the compaction.
	starts, ends := 0, 0
	for i, r := range recs {
		switch r.Type() {
		case "agent_start":
			starts++
			if starts == 2 && i < iEnd {
				t.Fatal("retry before compaction_end")
			}
		case "agent_end":
			ends++
		}
	}
	if starts != 2 || ends != 2 || recs[len(recs)-1].Type() != "agent_settled" {
		t.Fatalf("runs: %v", types)
	}
	if text, _ := a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})["data"].(map[string]any)["text"].(string); text != "recovered answer" {
		t.Fatalf("last text %q", text)
	}
	// The retried request carried the compacted context, which holds the
	// prompt that overflowed (kept tail).
	reqs := a.FauxRequests()
	retry := fmt.Sprint(reqs[len(reqs)-1]["messages"])
	if !strings.Contains(retry, "(filtered 6 lines)") || !strings.Contains(retry, "request 4") {
		t.Fatalf("retry request %s", retry)
	}
}

func TestOverflowTwiceIsUnresolved(t *testing.T) {
	script := append(turnsUpTo(4), overflowStep(), map[string]any{"text": "1,6\n"}, overflowStep())
	a := e2e.Start(t, e2e.Options{Script: script})
	for i := 0; i < 4; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "request 4"})
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool { return r.Type() == "agent_settled" })
	var ends []e2e.Record
	for _, r := range a.Records(from) {
		if r.Type() == "compaction_end" {
			ends = append(ends, r)
		}
	}
	if len(ends) != 2 || ends[0]["willRetry"] != true {
		t.Fatalf("compaction_end records: %v", ends)
	}
	last := ends[1]
	if last["unresolvedOverflow"] != true || last["result"] != nil || !strings.HasPrefix(fmt.Sprint(last["errorMessage"]), "Context overflow recovery failed after one compact-and-retry attempt.") {
		t.Fatalf("second end %v", last)
	}
}

func TestOverflowPlannerFailureFallsBackToFresh(t *testing.T) {
	script := append(turnsUpTo(4), overflowStep(), map[string]any{"text": "I cannot do that"}, map[string]any{"text": "ok now"})
	a := e2e.Start(t, e2e.Options{Script: script})
	for i := 0; i < 4; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "request 4"})
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool { return r.Type() == "agent_settled" })
	end := a.WaitFrom(from, time.Second, func(r e2e.Record) bool { return r.Type() == "compaction_end" })
	res, _ := end["result"].(map[string]any)
	if res == nil || res["rung"] != "fresh" || res["compactedText"] != fmt.Sprintf("(filtered %d lines)", int(res["stats"].(map[string]any)["linesBefore"].(float64))) {
		t.Fatalf("end %v", end)
	}
}
