package rpc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// checkAssistantStream checks the assistant part of a run, from its
// message_start to its message_end, and returns the final message.
func checkAssistantStream(t *testing.T, recs []e2e.Record) map[string]any {
	t.Helper()
	start := indexOf(recs, 0, func(r e2e.Record) bool {
		return r.Type() == "message_start" && str(obj(r, "message"), "role") == "assistant"
	})
	if start < 0 {
		t.Fatalf("no assistant message_start in %v", e2e.Types(recs))
	}
	end := indexOf(recs, start, isType("message_end"))
	if end < 0 {
		t.Fatalf("no message_end after the assistant message_start")
	}
	first := obj(recs[start], "message")
	if got := str(first, "stopReason"); got != "pending" {
		t.Errorf("assistant message_start stopReason = %q, want pending", got)
	}
	if c, ok := first["content"].([]any); !ok || len(c) != 0 {
		t.Errorf("assistant message_start content = %v, want []", first["content"])
	}
	final := obj(recs[end], "message")
	blocks := arr(final, "content")
	built := map[int]string{} // content index -> concatenated deltas
	for _, r := range recs[start+1 : end] {
		if r.Type() != "message_update" {
			t.Fatalf("unexpected %s between message_start and message_end", r.Type())
		}
		if _, has := r["message"]; has {
			t.Fatalf("message_update carries a message: %v", r)
		}
		u := obj(r, "usage")
		for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"} {
			if _, ok := u[k]; !ok {
				t.Fatalf("message_update usage lacks %q: %v", k, r["usage"])
			}
		}
		ev := ame(r)
		if _, has := ev["partial"]; has {
			t.Fatalf("assistantMessageEvent carries a partial message: %v", ev)
		}
		idx := int(ev["contentIndex"].(float64))
		switch typ := str(ev, "type"); typ {
		case "text_delta", "thinking_delta", "toolcall_delta":
			built[idx] += str(ev, "delta")
		case "text_end", "thinking_end":
			if str(ev, "content") != built[idx] {
				t.Errorf("%s content %q != deltas %q", typ, str(ev, "content"), built[idx])
			}
		case "toolcall_end":
			tc := obj(ev, "toolCall")
			var args map[string]any
			if err := json.Unmarshal([]byte(built[idx]), &args); err != nil {
				t.Errorf("toolcall deltas %q are not the arguments JSON: %v", built[idx], err)
			}
			requireEqual(t, "toolcall_end arguments", tc["arguments"], any(args))
			requireEqual(t, "toolcall_end block", any(tc), blocks[idx])
		}
	}
	for i, b := range blocks {
		blk := b.(map[string]any)
		switch blk["type"] {
		case "text":
			if blk["text"] != built[i] {
				t.Errorf("text block %d = %q, deltas = %q", i, blk["text"], built[i])
			}
		case "thinking":
			if blk["thinking"] != built[i] {
				t.Errorf("thinking block %d = %q, deltas = %q", i, blk["thinking"], built[i])
			}
		}
	}
	return final
}

func TestEventsTextReply(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "Hello brave new world", "chunks": 4}}})
	recs := a.PromptAndWait("hi there")
	requireTypes(t, recs, "response", "agent_start", "turn_start", "message_start", "message_end",
		"message_start", "message_update", "message_update", "message_update", "message_update", "message_update",
		"message_update", "message_end", "turn_end", "agent_end")
	requireEqual(t, "update types", updateTypes(recs),
		[]string{"text_start", "text_delta", "text_delta", "text_delta", "text_delta", "text_end"})

	user := obj(recs[3], "message")
	if str(user, "role") != "user" || messageText(user) != "hi there" {
		t.Fatalf("user message_start = %v", user)
	}
	requireEqual(t, "user message_end", obj(recs[4], "message"), user)

	final := checkAssistantStream(t, recs)
	if messageText(final) != "Hello brave new world" || str(final, "stopReason") != "stop" {
		t.Fatalf("final assistant message = %v", final)
	}
	for _, k := range []string{"api", "provider", "model", "usage", "timestamp"} {
		if _, ok := final[k]; !ok {
			t.Errorf("assistant message lacks %q", k)
		}
	}
	if _, ok := final["errorMessage"]; ok {
		t.Errorf("successful message has errorMessage: %v", final)
	}
	turnEnd := recs[len(recs)-2]
	requireEqual(t, "turn_end message", obj(turnEnd, "message"), final)
	if tr, ok := turnEnd["toolResults"].([]any); !ok || len(tr) != 0 {
		t.Fatalf("turn_end toolResults = %v, want []", turnEnd["toolResults"])
	}
	msgs := arr(recs[len(recs)-1], "messages")
	requireEqual(t, "agent_end roles", roles(msgs), []string{"user", "assistant"})
	requireEqual(t, "agent_end user", msgs[0], any(user))
	requireEqual(t, "agent_end assistant", msgs[1], any(final))
}

func TestEventsThinkingAndText(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"thinking": "Let me think it over", "text": "The answer is 42", "chunks": 3}}})
	recs := a.PromptAndWait("question")
	requireEqual(t, "update types", updateTypes(recs), []string{
		"thinking_start", "thinking_delta", "thinking_delta", "thinking_delta", "thinking_end",
		"text_start", "text_delta", "text_delta", "text_delta", "text_end"})
	for _, r := range ofType(recs, "message_update") {
		ev := ame(r)
		want := 1.0
		if strings.HasPrefix(str(ev, "type"), "thinking") {
			want = 0
		}
		if ev["contentIndex"] != want {
			t.Fatalf("%s contentIndex = %v, want %v", ev["type"], ev["contentIndex"], want)
		}
	}
	final := checkAssistantStream(t, recs)
	blocks := arr(final, "content")
	if len(blocks) != 2 {
		t.Fatalf("content = %v", blocks)
	}
	requireEqual(t, "thinking block", blocks[0], any(map[string]any{"type": "thinking", "thinking": "Let me think it over"}))
	requireEqual(t, "text block", blocks[1], any(map[string]any{"type": "text", "text": "The answer is 42"}))
}

func TestEventsToolCalls(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := e2e.Start(t, e2e.Options{Dir: dir, Script: []map[string]any{
		{"text": "Looking.", "toolCalls": []map[string]any{
			{"id": "call_bash", "name": "bash", "arguments": map[string]any{"command": "printf 'one\\ntwo\\n'"}},
			{"id": "call_read", "name": "read", "arguments": map[string]any{"path": "notes.txt"}},
		}},
		{"text": "All done."},
	}})
	recs := a.PromptAndWait("inspect")

	// The first turn: the assistant message, then the tools, then their
	// result messages in source order, then turn_end.
	firstEnd := indexOf(recs, 0, func(r e2e.Record) bool {
		return r.Type() == "message_end" && str(obj(r, "message"), "role") == "assistant"
	})
	assistant := checkAssistantStream(t, recs)
	if str(assistant, "stopReason") != "toolUse" {
		t.Fatalf("stopReason = %v, want toolUse", assistant["stopReason"])
	}
	requireEqual(t, "update types", updateTypes(recs[:firstEnd]), []string{
		"text_start", "text_delta", "text_end",
		"toolcall_start", "toolcall_delta", "toolcall_end",
		"toolcall_start", "toolcall_delta", "toolcall_end"})
	turnEnd := indexOf(recs, firstEnd, isType("turn_end"))
	tools := recs[firstEnd+1 : turnEnd]
	var kinds []string
	for _, r := range tools {
		k := r.Type()
		if k == "message_start" || k == "message_end" {
			k += ":" + str(obj(r, "message"), "toolCallId")
		} else {
			k += ":" + str(r, "toolCallId")
		}
		if k != "tool_execution_update:call_bash" {
			kinds = append(kinds, k)
		}
	}
	// Tools run in parallel, so the two ends may come in either order;
	// everything else has a fixed place.
	if len(kinds) != 8 || kinds[0] != "tool_execution_start:call_bash" || kinds[1] != "tool_execution_start:call_read" {
		t.Fatalf("tool records: %v", kinds)
	}
	ends := map[string]bool{kinds[2]: true, kinds[3]: true}
	if !ends["tool_execution_end:call_bash"] || !ends["tool_execution_end:call_read"] {
		t.Fatalf("tool ends: %v", kinds)
	}
	requireEqual(t, "result messages", kinds[4:], []string{"message_start:call_bash", "message_end:call_bash", "message_start:call_read", "message_end:call_read"})

	byID := map[string]map[string][]e2e.Record{}
	for _, r := range tools {
		id := str(r, "toolCallId")
		if id == "" {
			id = str(obj(r, "message"), "toolCallId")
		}
		if byID[id] == nil {
			byID[id] = map[string][]e2e.Record{}
		}
		byID[id][r.Type()] = append(byID[id][r.Type()], r)
	}
	bashStart := byID["call_bash"]["tool_execution_start"][0]
	if str(bashStart, "toolName") != "bash" || str(obj(bashStart, "args"), "command") != "printf 'one\\ntwo\\n'" {
		t.Fatalf("bash start = %v", bashStart)
	}
	updates := byID["call_bash"]["tool_execution_update"]
	if len(updates) == 0 {
		t.Fatalf("no tool_execution_update for bash")
	}
	for _, u := range updates {
		if str(u, "toolName") != "bash" || obj(u, "args") == nil {
			t.Fatalf("update lacks toolName/args: %v", u)
		}
		if pr := obj(u, "partialResult"); pr == nil || arr(pr, "content") == nil {
			t.Fatalf("update lacks partialResult.content: %v", u)
		}
	}
	last := obj(updates[len(updates)-1], "partialResult")
	if got := messageText(last); got != "one\ntwo\n" {
		t.Errorf("last partial result = %q", got)
	}
	bashEnd := byID["call_bash"]["tool_execution_end"][0]
	if bashEnd["isError"] != false || messageText(obj(bashEnd, "result")) != "one\ntwo\n" || str(bashEnd, "toolName") != "bash" {
		t.Fatalf("bash end = %v", bashEnd)
	}
	readEnd := byID["call_read"]["tool_execution_end"][0]
	if readEnd["isError"] != false || !strings.Contains(messageText(obj(readEnd, "result")), "alpha\nbeta") {
		t.Fatalf("read end = %v", readEnd)
	}

	te := recs[turnEnd]
	requireEqual(t, "turn_end message", obj(te, "message"), assistant)
	results := arr(te, "toolResults")
	if len(results) != 2 {
		t.Fatalf("toolResults = %v", results)
	}
	for i, id := range []string{"call_bash", "call_read"} {
		m := results[i].(map[string]any)
		if m["role"] != "toolResult" || m["toolCallId"] != id || m["isError"] != false {
			t.Fatalf("toolResults[%d] = %v", i, m)
		}
		requireEqual(t, "result message", any(m), any(obj(byID[id]["message_end"][0], "message")))
	}
	requireEqual(t, "bash result text", messageText(results[0].(map[string]any)), "one\ntwo\n") // pi keeps the trailing newline

	// The second turn answers, and agent_end lists the whole run.
	if recs[turnEnd+1].Type() != "turn_start" {
		t.Fatalf("after turn_end: %s", recs[turnEnd+1].Type())
	}
	final := checkAssistantStream(t, recs[turnEnd+1:])
	if messageText(final) != "All done." || str(final, "stopReason") != "stop" {
		t.Fatalf("final = %v", final)
	}
	msgs := arr(recs[len(recs)-1], "messages")
	requireEqual(t, "agent_end roles", roles(msgs), []string{"user", "assistant", "toolResult", "toolResult", "assistant"})

	// The model saw the tool results.
	reqs := a.FauxRequests()
	if len(reqs) != 2 {
		t.Fatalf("faux requests = %d", len(reqs))
	}
	sent := reqs[1]["messages"].([]any)
	requireEqual(t, "second request roles", roles(sent), []string{"user", "assistant", "toolResult", "toolResult"})
}

func TestToolErrorsKeepTheLoopGoing(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{
			{"id": "c1", "name": "no_such_tool", "arguments": map[string]any{"x": 1}},
			{"id": "c2", "name": "read", "arguments": map[string]any{"path": []any{"a"}}}, // a number would be coerced to a string, as in pi
			{"id": "c3", "name": "bash", "arguments": map[string]any{}},
		}},
		{"text": "Recovered."},
	}})
	recs := a.PromptAndWait("go")
	ends := map[string]e2e.Record{}
	for _, r := range ofType(recs, "tool_execution_end") {
		ends[str(r, "toolCallId")] = r
	}
	want := map[string]string{
		"c1": "Tool no_such_tool not found",
		"c2": "path",
		"c3": "command",
	}
	for id, text := range want {
		r, ok := ends[id]
		if !ok {
			t.Fatalf("no tool_execution_end for %s", id)
		}
		got := messageText(obj(r, "result"))
		if r["isError"] != true || !strings.Contains(got, text) {
			t.Errorf("%s: isError=%v text=%q, want an error mentioning %q", id, r["isError"], got, text)
		}
	}
	if !strings.Contains(messageText(obj(ends["c2"], "result")), "Validation failed") {
		t.Errorf("invalid arguments text = %q", messageText(obj(ends["c2"], "result")))
	}
	starts := ofType(recs, "tool_execution_start")
	if len(starts) != 3 {
		t.Fatalf("tool_execution_start count = %d", len(starts))
	}
	msgs := arr(recs[len(recs)-1], "messages")
	requireEqual(t, "roles", roles(msgs), []string{"user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"})
	if messageText(msgs[5].(map[string]any)) != "Recovered." {
		t.Fatalf("the loop did not go on: %v", msgs[5])
	}
	for _, m := range msgs[2:5] {
		if m.(map[string]any)["isError"] != true {
			t.Fatalf("tool result not an error: %v", m)
		}
	}
}
