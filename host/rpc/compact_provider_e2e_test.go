package rpc_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

// chatText is the concatenated text of an OpenAI chat request's messages.
func chatText(t *testing.T, body []byte) (string, map[string]any) {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(req["messages"]), req
}

// TestOverflowRecoveryAgainstLocalServer runs the real OpenAI SDK against
// a local server that rejects one request as too long for the model's
// context: the session is compacted through the same provider (the planner
// call is the next request) and the turn is retried once.
func TestOverflowRecoveryAgainstLocalServer(t *testing.T) {
	srv := llmtest.Start(t)
	for i := 0; i < 4; i++ {
		srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i), Usage: llmtest.Usage{Input: 1000 + i, Output: 20}}))
	}
	srv.Enqueue(
		llmtest.Status(400, llmtest.ErrorBody("invalid_request_error", "This model's maximum context length is 32000 tokens. However, your messages resulted in 40000 tokens.")),
		llmtest.OpenAIChat(llmtest.Turn{Text: "1,6\n", Usage: llmtest.Usage{Input: 500, Output: 5}}),
		llmtest.OpenAIChat(llmtest.Turn{Text: "recovered after compaction", Usage: llmtest.Usage{Input: 600, Output: 5}}),
	)
	a := startLocal(t, srv, `{"retry":{"baseDelayMs":10}}`)
	for i := 0; i < 4; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "request 4"})
	a.WaitFrom(from, 15*time.Second, func(r e2e.Record) bool {
		return r.Type() == "message_end" && strings.Contains(fmt.Sprint(r["message"]), "recovered after compaction")
	})
	a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "agent_settled" })
	recs := a.Records(from)
	starts := recordsOfType(recs, "compaction_start")
	ends := recordsOfType(recs, "compaction_end")
	if len(starts) != 1 || starts[0]["reason"] != "overflow" || len(ends) != 1 {
		t.Fatalf("compaction events: %v", e2e.Types(recs))
	}
	if ends[0]["willRetry"] != true || asObj(ends[0]["result"])["rung"] != "planned" {
		t.Fatalf("compaction_end %v", ends[0])
	}
	if len(recordsOfType(recs, "auto_retry_start")) != 0 {
		t.Fatal("a context overflow is not retried as a transient error")
	}
	var failed bool
	for _, r := range recordsOfType(recs, "message_end") {
		m := asObj(r["message"])
		if m["stopReason"] == "error" && strings.Contains(fmt.Sprint(m["errorMessage"]), "maximum context length") {
			failed = true
		}
	}
	if !failed {
		t.Fatal("the overflowing reply should be reported before the retry")
	}

	reqs := srv.Requests()
	if len(reqs) != 7 || srv.Pending() != 0 {
		t.Fatalf("%d requests, %d responses left", len(reqs), srv.Pending())
	}
	planText, plan := chatText(t, reqs[5].Body)
	if !strings.Contains(planText, "1→[User]: request 0") || plan["tools"] != nil {
		t.Fatalf("planner request: %s", reqs[5].Body)
	}
	retryText, _ := chatText(t, reqs[6].Body)
	if !strings.Contains(retryText, "(filtered 6 lines)") || !strings.Contains(retryText, "request 4") || strings.Contains(retryText, "1→") {
		t.Fatalf("retried request: %s", reqs[6].Body)
	}
	assertNoKey(t, a)
}
