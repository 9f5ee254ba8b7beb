package rpc_test

import (
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// turnUserTexts lists, per turn of a run, the texts of the user messages that
// were delivered at the start of that turn.
func turnUserTexts(recs []e2e.Record) [][]string {
	var turns [][]string
	for _, r := range recs {
		switch r.Type() {
		case "turn_start":
			turns = append(turns, []string{})
		case "message_end":
			m := obj(r, "message")
			if str(m, "role") == "user" && len(turns) > 0 {
				turns[len(turns)-1] = append(turns[len(turns)-1], messageText(m))
			}
		}
	}
	return turns
}

// runRecords returns the records from index from up to and including the
// first agent_end.
func runRecords(a *e2e.Agent, from int) []e2e.Record {
	a.WaitType(from, "agent_end")
	recs := a.Records(from)
	return recs[:indexOf(recs, 0, isType("agent_end"))+1]
}

func TestSteerDuringStreamIsDeliveredAfterTheTurn(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		slowStep("word ", 20, 25),
		{"text": "Steered."},
	}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "start"})
	waitDelta(a, from)

	qFrom := a.Len()
	resp := a.Request(map[string]any{"id": "s1", "type": "prompt", "message": "change course", "streamingBehavior": "steer"})
	if resp["success"] != true {
		t.Fatalf("queued prompt failed: %v", resp)
	}
	// queue_update precedes the response of the queued prompt.
	recs := a.Records(qFrom)
	q := indexOf(recs, 0, isType("queue_update"))
	r := indexOf(recs, 0, isResponseTo("s1"))
	if q < 0 || q > r {
		t.Fatalf("queue_update must precede the response: %v", e2e.Types(recs))
	}
	requireEqual(t, "queue_update", []any{recs[q]["steering"], recs[q]["followUp"]}, []any{[]any{"change course"}, []any{}})

	run := runRecords(a, from)
	requireEqual(t, "user messages per turn", turnUserTexts(run), [][]string{{"start"}, {"change course"}})
	msgs := arr(run[len(run)-1], "messages")
	requireEqual(t, "agent_end roles", roles(msgs), []string{"user", "assistant", "user", "assistant"})
	if messageText(msgs[3].(map[string]any)) != "Steered." {
		t.Fatalf("second reply = %v", msgs[3])
	}
	// Delivery emptied the queue.
	updates := ofType(a.Records(qFrom), "queue_update")
	lastQ := updates[len(updates)-1]
	requireEqual(t, "queue after delivery", []any{lastQ["steering"], lastQ["followUp"]}, []any{[]any{}, []any{}})
	// The model received the steering message as the last user message.
	reqs := a.FauxRequests()
	sent := reqs[1]["messages"].([]any)
	if got := messageText(sent[len(sent)-1].(map[string]any)); got != "change course" {
		t.Fatalf("last message sent to the model = %q", got)
	}
}

func TestFollowUpsWaitForTheEnd(t *testing.T) {
	for _, mode := range []string{"one-at-a-time", "all"} {
		t.Run(mode, func(t *testing.T) {
			a := e2e.Start(t, e2e.Options{Script: []map[string]any{
				slowStep("x", 20, 25),
				{"text": "first follow-up answer"},
				{"text": "second follow-up answer"},
			}})
			a.MustSucceed(map[string]any{"type": "set_follow_up_mode", "mode": mode})
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "main"})
			waitDelta(a, from)
			a.MustSucceed(map[string]any{"type": "follow_up", "message": "F1"})
			a.MustSucceed(map[string]any{"type": "prompt", "message": "F2", "streamingBehavior": "followUp"})
			st := a.MustSucceed(map[string]any{"type": "get_state"})
			if got := obj(st, "data")["pendingMessageCount"]; got != 2.0 {
				t.Fatalf("pendingMessageCount = %v, want 2", got)
			}
			run := runRecords(a, from)
			want := [][]string{{"main"}, {"F1"}, {"F2"}}
			roleWant := []string{"user", "assistant", "user", "assistant", "user", "assistant"}
			if mode == "all" {
				want = [][]string{{"main"}, {"F1", "F2"}}
				roleWant = []string{"user", "assistant", "user", "user", "assistant"}
			}
			requireEqual(t, "user messages per turn", turnUserTexts(run), want)
			requireEqual(t, "agent_end roles", roles(arr(run[len(run)-1], "messages")), roleWant)
			if n := len(ofType(run, "agent_start")); n != 1 {
				t.Fatalf("agent_start count = %d, want 1", n)
			}
			st = a.MustSucceed(map[string]any{"type": "get_state"})
			if got := obj(st, "data")["pendingMessageCount"]; got != 0.0 {
				t.Fatalf("pendingMessageCount after the run = %v", got)
			}
		})
	}
}

func TestSteeringModes(t *testing.T) {
	for _, mode := range []string{"one-at-a-time", "all"} {
		t.Run(mode, func(t *testing.T) {
			a := e2e.Start(t, e2e.Options{Script: []map[string]any{
				slowStep("x", 20, 25),
				{"text": "after first steer"},
				{"text": "after second steer"},
			}})
			a.MustSucceed(map[string]any{"type": "set_steering_mode", "mode": mode})
			st := a.MustSucceed(map[string]any{"type": "get_state"})
			if got := obj(st, "data")["steeringMode"]; got != mode {
				t.Fatalf("steeringMode = %v", got)
			}
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "main"})
			waitDelta(a, from)
			a.MustSucceed(map[string]any{"type": "steer", "message": "S1"})
			a.MustSucceed(map[string]any{"type": "steer", "message": "S2"})
			run := runRecords(a, from)
			want := [][]string{{"main"}, {"S1"}, {"S2"}}
			if mode == "all" {
				want = [][]string{{"main"}, {"S1", "S2"}}
			}
			requireEqual(t, "user messages per turn", turnUserTexts(run), want)
		})
	}
}

func TestSteerAndFollowUpTogether(t *testing.T) {
	// Steering comes before follow-ups, whatever the order they were sent in.
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("x", 20, 25)}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "main"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"type": "follow_up", "message": "later"})
	a.MustSucceed(map[string]any{"type": "steer", "message": "now"})
	run := runRecords(a, from)
	requireEqual(t, "user messages per turn", turnUserTexts(run), [][]string{{"main"}, {"now"}, {"later"}})
}

func TestClearQueue(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("x", 20, 25)}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "main"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"type": "steer", "message": "S"})
	a.MustSucceed(map[string]any{"type": "follow_up", "message": "F"})
	cFrom := a.Len()
	resp := a.MustSucceed(map[string]any{"id": "clear", "type": "clear_queue"})
	requireEqual(t, "clear_queue data", resp["data"], any(map[string]any{"steering": []any{"S"}, "followUp": []any{"F"}}))
	q := a.WaitFrom(cFrom, wait, func(r e2e.Record) bool { return r.Type() == "queue_update" })
	requireEqual(t, "queue_update after clear", []any{q["steering"], q["followUp"]}, []any{[]any{}, []any{}})
	run := runRecords(a, from)
	requireEqual(t, "user messages per turn", turnUserTexts(run), [][]string{{"main"}})

	// Clearing an empty queue returns empty lists.
	resp = a.MustSucceed(map[string]any{"type": "clear_queue"})
	requireEqual(t, "empty clear_queue", resp["data"], any(map[string]any{"steering": []any{}, "followUp": []any{}}))
}

func TestPromptWhileStreamingNeedsABehaviour(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("x", 10, 25), {"text": "second"}}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "main"})
	waitDelta(a, from)
	resp := a.Request(map[string]any{"type": "prompt", "message": "interrupting"})
	if resp["success"] != false || !strings.Contains(str(resp, "error"), "streamingBehavior") {
		t.Fatalf("response = %v", resp)
	}
	resp = a.Request(map[string]any{"type": "prompt", "message": "x", "streamingBehavior": "sideways"})
	if resp["success"] != false || !strings.Contains(str(resp, "error"), "streamingBehavior") {
		t.Fatalf("response = %v", resp)
	}
	run := runRecords(a, from)
	requireEqual(t, "user messages", turnUserTexts(run), [][]string{{"main"}})
	// The rejected prompt was not queued either: the next prompt runs alone.
	next := a.PromptAndWait("again")
	requireEqual(t, "next run", turnUserTexts(next), [][]string{{"again"}})
}

func TestSteerWhileIdleIsDeliveredWithTheNextPrompt(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "one"}, {"text": "two"}}})
	a.MustSucceed(map[string]any{"type": "steer", "message": "queued while idle"})
	st := a.MustSucceed(map[string]any{"type": "get_state"})
	if got := obj(st, "data")["pendingMessageCount"]; got != 1.0 {
		t.Fatalf("pendingMessageCount = %v", got)
	}
	recs := a.PromptAndWait("prompt")
	requireEqual(t, "user messages per turn", turnUserTexts(recs), [][]string{{"prompt", "queued while idle"}})
}

func TestQueueModeValidation(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	for _, cmd := range []map[string]any{
		{"type": "set_steering_mode", "mode": "sometimes"},
		{"type": "set_follow_up_mode", "mode": ""},
		{"type": "set_steering_mode"},
		{"type": "set_follow_up_mode", "mode": 3},
	} {
		resp := a.Request(cmd)
		if resp["success"] != false || str(resp, "error") == "" {
			t.Errorf("%v: response %v", cmd, resp)
		}
	}
	st := a.MustSucceed(map[string]any{"type": "get_state"})
	d := obj(st, "data")
	if d["steeringMode"] != "one-at-a-time" || d["followUpMode"] != "one-at-a-time" {
		t.Fatalf("modes changed by invalid commands: %v", d)
	}
}
