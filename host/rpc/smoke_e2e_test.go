package rpc_test

import (
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestSmokeTextReply(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "Hello world", "chunks": 2}}})
	recs := a.PromptAndWait("hi")
	got := e2e.Types(recs)
	want := []string{"response", "agent_start", "turn_start", "message_start", "message_end", "message_start",
		"message_update", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"}
	if len(got) != len(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: got %v\nwant %v", i, got, want)
		}
	}
}
