package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

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
	c := e2e.StartClient(t, e2e.Options{Script: []map[string]any{slowStep("x", 10, 30), {"text": "  Second reply.  "}}})
	ctx := e2e.Ctx(t, 30*time.Second)
	// No reply yet: the text is an explicit null, the messages an empty array.
	resp, err := c.Call(ctx, map[string]any{"type": "get_last_assistant_text"})
	if err != nil || string(resp.Data) != `{"text":null}` {
		t.Fatalf("last text before any reply: %s %v", resp.Data, err)
	}
	resp, err = c.Call(ctx, map[string]any{"type": "get_messages"})
	if err != nil || string(resp.Data) != `{"messages":[]}` {
		t.Fatalf("messages before any prompt: %s %v", resp.Data, err)
	}

	updates := c.Subscribe("message_update", "agent_end")
	defer updates.Close()
	if err := c.Prompt(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := updates.WaitType(ctx, "message_update"); err != nil {
		t.Fatal(err)
	}
	if st, err := c.GetState(ctx); err != nil || !st.IsStreaming {
		t.Fatalf("state during a run: %+v %v", st, err)
	}
	if _, err := updates.WaitType(ctx, "agent_end"); err != nil {
		t.Fatal(err)
	}
	if st, err := c.GetState(ctx); err != nil || st.IsStreaming || st.MessageCount != 2 {
		t.Fatalf("state after the run: %+v %v", st, err)
	}
	if _, err := c.PromptAndWait(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	if text, ok, err := c.GetLastAssistantText(ctx); err != nil || !ok || text != "Second reply." {
		t.Fatalf("last text = %q %v %v, want the trimmed second reply", text, ok, err)
	}
	msgs, err := c.GetMessages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role)
	}
	requireEqual(t, "roles", got, []string{"user", "assistant", "user", "assistant"})
	if msgs[2].Text() != "second" {
		t.Fatalf("messages = %+v", msgs)
	}
	first, err := c.GetState(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if cancelled, err := c.NewSession(ctx, ""); err != nil || cancelled {
		t.Fatalf("new_session: %v %v", cancelled, err)
	}
	st, err := c.GetState(ctx)
	if err != nil || st.MessageCount != 0 || st.SessionID == first.SessionID || st.SessionID == "" {
		t.Fatalf("state after new_session = %+v (before %s) %v", st, first.SessionID, err)
	}
	if msgs, err := c.GetMessages(ctx); err != nil || len(msgs) != 0 {
		t.Fatalf("messages after new_session = %+v %v", msgs, err)
	}
	if _, ok, err := c.GetLastAssistantText(ctx); err != nil || ok {
		t.Fatalf("last text after new_session: %v %v", ok, err)
	}
	// The new session does not send the old conversation to the model.
	if _, err := c.PromptAndWait(ctx, "fresh start"); err != nil {
		t.Fatal(err)
	}
	reqs := fauxRequests(t, c.Record)
	sent := reqs[len(reqs)-1]["messages"].([]any)
	if len(sent) != 1 || messageText(sent[0].(map[string]any)) != "fresh start" {
		t.Fatalf("model saw %v", sent)
	}
}

// fauxRequests reads the faux provider's request record file.
func fauxRequests(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
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
	a.WaitStderr("LEAK-VIA-PARENT-42") // the child's write to the agent's fd 1 goes to stderr
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
