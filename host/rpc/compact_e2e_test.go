package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// longAnswers are faux turns whose answers span several lines each, so a
// few prompts make a region worth compacting.
func longAnswers(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		out = append(out, map[string]any{"text": fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i)})
	}
	return out
}

// settle runs a prompt and waits until its run has settled.
func settle(t *testing.T, a *e2e.Agent, msg string) []e2e.Record {
	t.Helper()
	from := a.Len()
	recs := a.PromptAndWait(msg)
	a.WaitType(from, "agent_settled")
	return recs
}

func dataOf(t *testing.T, r e2e.Record) map[string]any {
	t.Helper()
	d, ok := r["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data in %v", r)
	}
	return d
}

func TestCompactManual(t *testing.T) {
	script := append(longAnswers(5), map[string]any{"text": "1,4\n9,12\n"}, map[string]any{"text": "after compaction"})
	a := e2e.Start(t, e2e.Options{Script: script})
	for i := 0; i < 5; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	resp := a.MustSucceed(map[string]any{"type": "compact"})
	res := dataOf(t, resp)
	if res["rung"] != "planned" || res["promptVersion"] != float64(3) {
		t.Fatalf("result %v", res)
	}
	// Region: 4 turns of [User], blank, 3 answer lines, blank = 24 lines minus the last blank.
	text, _ := res["compactedText"].(string)
	if !strings.HasPrefix(text, "(filtered 4 lines)\nanswer 0 line 3\n\n[User]: request 1\n\n(filtered 4 lines)\n[User]: request 2\n") {
		t.Fatalf("compactedText %q", text)
	}
	stats := res["stats"].(map[string]any)
	if stats["linesBefore"] != float64(23) || stats["linesDeleted"] != float64(8) || stats["linesKept"] != float64(15) || stats["rangeCount"] != float64(2) {
		t.Fatalf("stats %v", stats)
	}
	params := res["parameters"].(map[string]any)
	if params["compression_ratio"] != 0.5 || params["preserve_recent"] != float64(2) || params["query"] != "request 4" {
		t.Fatalf("parameters %v", params)
	}
	if _, ok := res["firstKeptEntryId"].(string); !ok {
		t.Fatalf("firstKeptEntryId %v", res["firstKeptEntryId"])
	}
	start := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "compaction_start" })
	if start["reason"] != "manual" {
		t.Fatalf("start %v", start)
	}
	end := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "compaction_end" })
	if end["reason"] != "manual" || end["aborted"] != false || end["willRetry"] != false {
		t.Fatalf("end %v", end)
	}
	if er, _ := end["result"].(map[string]any); er["compactedText"] != text {
		t.Fatal("compaction_end carries the result")
	}

	// The planner saw the numbered region and our instructions.
	reqs := a.FauxRequests()
	plan := reqs[len(reqs)-1]
	msgs := plan["messages"].([]any)
	body, _ := json.Marshal(msgs)
	if len(msgs) != 1 || !strings.Contains(string(body), `1→[User]: request 0`) || !strings.Contains(string(body), "23→answer 3 line 3") {
		t.Fatalf("planner request %s", body)
	}
	if sp, _ := plan["systemPrompt"].(string); !strings.Contains(sp, "START,END") {
		t.Fatalf("planner system prompt %q", sp)
	}

	// The context is now the boundary message and the kept tail.
	got := dataOf(t, a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any)
	if len(got) != 1 {
		t.Fatalf("messages after compaction: %d", len(got))
	}
	b := got[0].(map[string]any)
	if b["role"] != "custom" || b["customType"] != "compaction" {
		t.Fatalf("boundary %v", b)
	}
	bt := b["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(bt, text+"\n\n[User]: request 4\n\n[Assistant]: answer 4 line 1") {
		t.Fatalf("boundary text %q", bt)
	}

	// Right after a compaction the context size is unknown until a reply
	// reports usage again.
	cu := dataOf(t, a.MustSucceed(map[string]any{"type": "get_session_stats"}))["contextUsage"].(map[string]any)
	if v, ok := cu["tokens"]; !ok || v != nil {
		t.Fatalf("contextUsage after compaction: %v", cu)
	}

	// The next turn's request starts with the boundary as a user message.
	a.PromptAndWait("next")
	cu = dataOf(t, a.MustSucceed(map[string]any{"type": "get_session_stats"}))["contextUsage"].(map[string]any)
	if cu["tokens"] == nil {
		t.Fatalf("contextUsage after a reply: %v", cu)
	}
	reqs = a.FauxRequests()
	last := reqs[len(reqs)-1]["messages"].([]any)
	first := last[0].(map[string]any)
	if len(last) != 2 || first["role"] != "user" || !strings.Contains(fmt.Sprint(first["content"]), "(filtered 4 lines)") {
		t.Fatalf("request after compaction: %v", last)
	}
}

func TestCompactTooSmallAndBadReplies(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: append(longAnswers(1), map[string]any{"text": "Sure, delete 1-4"})})
	a.PromptAndWait("hello")
	resp := a.Request(map[string]any{"type": "compact"})
	if resp["success"] != false || resp["error"] != "Nothing to compact (session too small)" {
		t.Fatalf("too small: %v", resp)
	}
	end := a.WaitType(0, "compaction_end")
	if end["errorMessage"] != "Nothing to compact (session too small)" || end["result"] != nil {
		t.Fatalf("end %v", end)
	}
}

func TestCompactRetriesTransientPlannerErrors(t *testing.T) {
	script := append(longAnswers(5), map[string]any{"error": "overloaded", "status": 529}, map[string]any{"text": "1,4\n"})
	a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"settings.json": `{"retry":{"baseDelayMs":10,"maxDelayMs":50}}`}, Script: script})
	for i := 0; i < 5; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	res := dataOf(t, a.MustSucceed(map[string]any{"type": "compact"}))
	if res["rung"] != "planned" {
		t.Fatalf("result %v", res)
	}
	var got []string
	for _, r := range a.Records(from) {
		switch r.Type() {
		case "summarization_retry_scheduled":
			if r["attempt"] != float64(1) || r["maxAttempts"] != float64(3) || r["delayMs"] != float64(10) || r["errorMessage"] != "529 overloaded" {
				t.Fatalf("scheduled %v", r)
			}
		case "summarization_retry_attempt_start":
			if r["source"] != "compaction" || r["reason"] != "manual" {
				t.Fatalf("attempt start %v", r)
			}
		case "compaction_start", "compaction_end", "summarization_retry_finished":
		default:
			continue
		}
		got = append(got, r.Type())
	}
	want := "compaction_start summarization_retry_scheduled summarization_retry_attempt_start summarization_retry_finished compaction_end"
	if strings.Join(got, " ") != want {
		t.Fatalf("events %v", got)
	}
}

func TestCompactBadPlannerReplies(t *testing.T) {
	bad := []struct{ reply, err string }{
		{"Sure! Delete these:\n1,4", "Compaction range planning returned malformed output"},
		{"```\n1,4\n```", "Compaction range planning returned malformed output"},
		{"-3,4", "Compaction range planning returned malformed output"},
		{"1, 4", "Compaction range planning returned malformed output"},
		{"500,900\n0,0", "Compaction range planning produced no usable deleted ranges"},
		{"", "Compaction range planning produced no usable deleted ranges"},
	}
	script := longAnswers(5)
	for _, b := range bad {
		script = append(script, map[string]any{"text": b.reply})
	}
	script = append(script, map[string]any{"text": "1,999999"})
	a := e2e.Start(t, e2e.Options{Script: script})
	for i := 0; i < 5; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	file, _ := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))["sessionFile"].(string)
	before, _ := os.ReadFile(file)
	for _, b := range bad {
		resp := a.Request(map[string]any{"type": "compact"})
		if resp["success"] != false || resp["error"] != b.err {
			t.Fatalf("reply %q: %v", b.reply, resp)
		}
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(after, before) {
		t.Fatal("a failed compaction changed the session file")
	}
	if baks, _ := filepath.Glob(file + ".*.bak"); len(baks) != 0 {
		t.Fatalf("a failed compaction left backups: %v", baks)
	}
	// A reply deleting everything is valid: the whole region becomes one
	// marker and the kept tail follows it.
	res := dataOf(t, a.MustSucceed(map[string]any{"type": "compact"}))
	if res["compactedText"] != "(filtered 23 lines)" || res["stats"].(map[string]any)["linesKept"] != float64(0) {
		t.Fatalf("result %v", res)
	}
	msgs := dataOf(t, a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any)
	text := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.HasSuffix(text, "(filtered 23 lines)\n\n[User]: request 4\n\n[Assistant]: answer 4 line 1\nanswer 4 line 2\nanswer 4 line 3") {
		t.Fatalf("boundary %q", text)
	}
}
