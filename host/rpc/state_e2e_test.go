package rpc_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestGetStateFields(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	st := a.MustSucceed(map[string]any{"id": "s", "type": "get_state"})
	if st["command"] != "get_state" || st["id"] != "s" {
		t.Fatalf("envelope = %v", st)
	}
	d := obj(st, "data")
	want := map[string]any{
		"thinkingLevel": "medium", "isStreaming": false, "isCompacting": false,
		"steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time",
		"messageCount": 0.0, "pendingMessageCount": 0.0,
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	if _, ok := d["autoCompactionEnabled"].(bool); !ok {
		t.Errorf("autoCompactionEnabled = %v", d["autoCompactionEnabled"])
	}
	if id := str(d, "sessionId"); id == "" {
		t.Errorf("sessionId missing")
	}
	if _, has := d["sessionName"]; has {
		t.Errorf("sessionName present without a value: %v", d["sessionName"])
	}
	// A new session has its file's path before the file is written.
	if f := str(d, "sessionFile"); !strings.HasSuffix(f, "_"+str(d, "sessionId")+".jsonl") {
		t.Errorf("sessionFile = %q", f)
	}
	m := obj(d, "model")
	for _, k := range []string{"id", "name", "api", "provider", "baseUrl", "reasoning", "input", "contextWindow", "maxTokens", "cost"} {
		if _, ok := m[k]; !ok {
			t.Errorf("model lacks %q: %v", k, m)
		}
	}
	if m["provider"] != "faux" {
		t.Errorf("default model provider = %v, want faux", m["provider"])
	}
}

func TestGetStateWithFlags(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Args: []string{"--name", "my work", "--model", "faux/faux-2", "--thinking", "high"}})
	d := obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if d["sessionName"] != "my work" {
		t.Errorf("sessionName = %v", d["sessionName"])
	}
	if obj(d, "model")["id"] != "faux-2" {
		t.Errorf("model = %v", d["model"])
	}
	// faux-2 has no reasoning: the level is clamped.
	if d["thinkingLevel"] != "off" {
		t.Errorf("thinkingLevel = %v, want off", d["thinkingLevel"])
	}
}

func TestStreamingStateAndMessages(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("x", 10, 30), {"text": "  Second reply.  "}}})
	last := a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})
	d, has := obj(last, "data")["text"]
	if !has || d != nil {
		t.Fatalf("last text before any reply = %v, want null", last["data"])
	}
	msgs := arr(obj(a.MustSucceed(map[string]any{"type": "get_messages"}), "data"), "messages")
	if msgs == nil || len(msgs) != 0 {
		t.Fatalf("messages before any prompt = %v, want []", msgs)
	}

	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "first"})
	waitDelta(a, from)
	st := obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if st["isStreaming"] != true {
		t.Fatalf("isStreaming during a run = %v", st["isStreaming"])
	}
	a.WaitType(from, "agent_end")
	st = obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if st["isStreaming"] != false || st["messageCount"] != 2.0 {
		t.Fatalf("state after the run = %v", st)
	}
	a.PromptAndWait("second")
	last = a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})
	if got := obj(last, "data")["text"]; got != "Second reply." {
		t.Fatalf("last text = %q, want the trimmed second reply", got)
	}
	msgs = arr(obj(a.MustSucceed(map[string]any{"type": "get_messages"}), "data"), "messages")
	requireEqual(t, "roles", roles(msgs), []string{"user", "assistant", "user", "assistant"})
	if messageText(msgs[2].(map[string]any)) != "second" {
		t.Fatalf("messages = %v", msgs)
	}
	first := obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")

	ns := a.MustSucceed(map[string]any{"type": "new_session"})
	requireEqual(t, "new_session data", ns["data"], any(map[string]any{"cancelled": false}))
	st = obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if st["messageCount"] != 0.0 || st["sessionId"] == first["sessionId"] || str(st, "sessionId") == "" {
		t.Fatalf("state after new_session = %v (before %v)", st, first["sessionId"])
	}
	msgs = arr(obj(a.MustSucceed(map[string]any{"type": "get_messages"}), "data"), "messages")
	if len(msgs) != 0 {
		t.Fatalf("messages after new_session = %v", msgs)
	}
	last = a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})
	if obj(last, "data")["text"] != nil {
		t.Fatalf("last text after new_session = %v", last["data"])
	}
	// The new session does not send the old conversation to the model.
	a.PromptAndWait("fresh start")
	reqs := a.FauxRequests()
	sent := reqs[len(reqs)-1]["messages"].([]any)
	if len(sent) != 1 || messageText(sent[0].(map[string]any)) != "fresh start" {
		t.Fatalf("model saw %v", sent)
	}
}

func TestNewSessionDuringStreamAbortsIt(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("x", 200, 25)}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"id": "ns", "type": "new_session"})
	recs := a.Records(from)
	if end := indexOf(recs, 0, isType("agent_end")); end < 0 || end > indexOf(recs, 0, isResponseTo("ns")) {
		t.Fatalf("new_session answered before the run ended: %v", e2e.Types(recs))
	}
	st := obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if st["messageCount"] != 0.0 || st["isStreaming"] != false {
		t.Fatalf("state = %v", st)
	}
}

func TestChildOutputNeverReachesStdout(t *testing.T) {
	// The shell's parent is the agent: writing to its descriptor 1 must
	// land on stderr, not in the protocol stream. The marker is computed by
	// the shell so that the command text itself does not contain it.
	cmd := "echo LEAK-ON-STDOUT; echo LEAK-ON-STDERR >&2; echo LEAK-VIA-PARENT-$((40+2)) > /proc/$PPID/fd/1; (echo LEAK-BACKGROUND &) ; true"
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": cmd}}}},
		{"text": "done"},
	}})
	recs := a.PromptAndWait("leak")
	end := ofType(recs, "tool_execution_end")
	if len(end) != 1 || !strings.Contains(messageText(obj(end[0], "result")), "LEAK-ON-STDOUT") {
		t.Fatalf("tool result = %v", end)
	}
	a.MustSucceed(map[string]any{"type": "get_state"})
	for _, line := range a.RawLines() {
		if err := e2e.CheckRecordLine(line); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		if bytes.Contains(line, []byte("LEAK-VIA-PARENT-42")) {
			t.Fatalf("a child wrote into the protocol stream: %q", line)
		}
	}
	if !strings.Contains(a.Stderr(), "LEAK-VIA-PARENT-42") {
		t.Fatalf("the child's write to the agent's fd 1 should have gone to stderr; stderr = %q", a.Stderr())
	}
}

func TestIdleAsSoonAsAgentEnd(t *testing.T) {
	// A client that reacts to agent_end must find the agent idle: the next
	// prompt is accepted and get_state says it is not streaming, every time.
	a := e2e.Start(t, e2e.Options{})
	for i := 0; i < 30; i++ {
		from := a.Len()
		a.Send(map[string]any{"id": fmt.Sprintf("p%d", i), "type": "prompt", "message": "again"})
		a.WaitType(from, "agent_end")
		a.Send(map[string]any{"id": fmt.Sprintf("s%d", i), "type": "get_state"})
		if r := a.WaitResponse(from, fmt.Sprintf("p%d", i)); r["success"] != true {
			t.Fatalf("prompt %d right after agent_end: %v", i, r)
		}
		st := a.WaitResponse(from, fmt.Sprintf("s%d", i))
		if d := obj(st, "data"); d["isStreaming"] != false || d["messageCount"] != float64(2*(i+1)) {
			t.Fatalf("state right after agent_end: %v", d)
		}
	}
}
