package rpc_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestFramingCRLF(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	a.SendRaw("{\"id\":\"crlf\",\"type\":\"get_state\"}\r\n")
	r := a.WaitResponse(from, "crlf")
	if r["success"] != true {
		t.Fatalf("CRLF command failed: %v", r)
	}
	// A CR inside the line (not the last byte) is part of the JSON text:
	// here it is whitespace between tokens.
	a.SendRaw("{\"id\":\"cr-inside\",\r\"type\":\"get_state\"}\n")
	if r := a.WaitResponse(from, "cr-inside"); r["success"] != true {
		t.Fatalf("CR inside a line: %v", r)
	}
}

func TestFramingUnicodeSeparatorsSurvive(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "ok"}}})
	msg := "line\u2028separator\u2029paragraph"
	// Written raw (not escaped as \u2028) so that a reader splitting on
	// those characters would break the record.
	line := `{"id":"u","type":"prompt","message":"` + msg + `"}` + "\n"
	if !strings.Contains(line, "\u2028") {
		t.Fatal("test line lost its separator")
	}
	from := a.Len()
	a.SendRaw(line)
	if r := a.WaitResponse(from, "u"); r["success"] != true {
		t.Fatalf("prompt failed: %v", r)
	}
	a.WaitType(from, "agent_end")
	msgs := arr(obj(a.MustSucceed(map[string]any{"type": "get_messages"}), "data"), "messages")
	if len(msgs) != 2 || messageText(msgs[0].(map[string]any)) != msg {
		t.Fatalf("messages = %v", msgs)
	}
	// The parse-error path never saw a fragment.
	for _, r := range a.Records(0) {
		if r["command"] == "parse" {
			t.Fatalf("a fragment was parsed: %v", r)
		}
	}
}

func TestFramingLastLineWithoutLF(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	a.SendRaw(`{"id":"first","type":"get_state"}` + "\n" + `{"id":"no-lf","type":"get_messages"}`)
	a.CloseStdin()
	if code := a.Wait(wait); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	a.WaitResponse(from, "first")
	if r := a.WaitResponse(from, "no-lf"); r["success"] != true {
		t.Fatalf("last line: %v", r)
	}
}

func TestFramingHugePrompt(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{{"text": "read it"}}})
	big := strings.Repeat("abcdefgh", 4<<20) // 32 MiB
	from := a.Len()
	a.SendRaw(`{"id":"big","type":"prompt","message":"` + big + `"}` + "\n")
	if r := a.WaitFrom(from, 60*time.Second, isResponseTo("big")); r["success"] != true {
		t.Fatalf("big prompt: %v", r)
	}
	end := a.WaitFrom(from, 60*time.Second, isType("agent_end"))
	msgs := arr(end, "messages")
	if got := messageText(msgs[0].(map[string]any)); len(got) != len(big) || got != big {
		t.Fatalf("prompt arrived with %d bytes, want %d", len(got), len(big))
	}
	// The process keeps serving afterwards.
	st := a.MustSucceed(map[string]any{"type": "get_state"})
	if obj(st, "data")["messageCount"] != 2.0 {
		t.Fatalf("state after big prompt: %v", st)
	}
}

func TestFramingBadInput(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	cases := []struct {
		name, line string
		command    any // expected "command" (nil: key absent)
		errPrefix  string
	}{
		{"not json", "hello there", "parse", "Failed to parse command: "},
		{"binary garbage", "\x00\x01\xff\xfe\x80garbage\x1b[31m", "parse", "Failed to parse command: "},
		{"truncated object", `{"type":"get_state"`, "parse", "Failed to parse command: "},
		{"empty line", "", "parse", "Failed to parse command: "},
		{"blank line", "   \t ", "parse", "Failed to parse command: "},
		{"two objects", `{"type":"get_state"} {"type":"get_state"}`, "parse", "Failed to parse command: "},
		{"array", `[{"type":"get_state"}]`, "unknown", "Invalid command"},
		{"number", `42`, "unknown", "Invalid command"},
		{"string", `"get_state"`, "unknown", "Invalid command"},
		{"null", `null`, "unknown", "Invalid command"},
		{"true", `true`, "unknown", "Invalid command"},
	}
	for _, c := range cases {
		from := a.Len()
		a.SendRaw(c.line + "\n")
		r := a.WaitFrom(from, wait, isType("response"))
		if r["success"] != false || !strings.HasPrefix(str(r, "error"), c.errPrefix) {
			t.Errorf("%s: response %v", c.name, r)
		}
		if _, has := r["id"]; has {
			t.Errorf("%s: response has an id: %v", c.name, r)
		}
		if r["command"] != c.command {
			t.Errorf("%s: command = %v, want %v", c.name, r["command"], c.command)
		}
		// Reading goes on: the next command is served.
		if got := a.Request(map[string]any{"type": "get_state"}); got["success"] != true {
			t.Fatalf("%s: not serving afterwards: %v", c.name, got)
		}
	}
}

func TestFramingInvalidCommands(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	cases := []struct {
		name    string
		cmd     map[string]any
		command any
		err     string
	}{
		{"unknown with string id", map[string]any{"id": "u1", "type": "frobnicate"}, "frobnicate", "Unknown command: frobnicate"},
		{"unknown with number id", map[string]any{"id": 42, "type": "context_compact"}, "context_compact", "Unknown command: context_compact"},
		{"missing type", map[string]any{"id": "m1", "message": "hi"}, nil, "Unknown command: undefined"},
		{"type not a string", map[string]any{"id": "t1", "type": 7}, "unknown", `"type" must be a string`},
		{"message wrong type", map[string]any{"id": "w1", "type": "prompt", "message": 5}, "prompt", `"message" must be a string`},
		{"images wrong type", map[string]any{"id": "w2", "type": "prompt", "message": "x", "images": "nope"}, "prompt", `"images" must be an array`},
		{"image without data", map[string]any{"id": "w3", "type": "prompt", "message": "x", "images": []any{map[string]any{"type": "image"}}}, "prompt", "images[0]"},
		{"missing message", map[string]any{"id": "r1", "type": "prompt"}, "prompt", `missing required field "message"`},
		{"steer missing message", map[string]any{"id": "r2", "type": "steer"}, "steer", `missing required field "message"`},
		{"follow_up null message", map[string]any{"id": "r3", "type": "follow_up", "message": nil}, "follow_up", `missing required field "message"`},
		{"enabled wrong type", map[string]any{"id": "r4", "type": "set_auto_retry", "enabled": "yes"}, "set_auto_retry", `"enabled" must be a boolean`},
		{"new_session wrong type", map[string]any{"id": "r5", "type": "new_session", "parentSession": 1}, "new_session", `"parentSession" must be a string`},
	}
	for _, c := range cases {
		from := a.Len()
		a.Send(c.cmd)
		r := a.WaitResponse(from, c.cmd["id"])
		if r["success"] != false || !strings.Contains(str(r, "error"), c.err) {
			t.Errorf("%s: response %v, want error containing %q", c.name, r, c.err)
		}
		if r["command"] != c.command {
			t.Errorf("%s: command = %v, want %v", c.name, r["command"], c.command)
		}
	}
	// Nothing was run or queued by the bad commands.
	st := obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if st["messageCount"] != 0.0 || st["pendingMessageCount"] != 0.0 {
		t.Fatalf("state changed: %v", st)
	}
}

func TestIDsEchoedAsGiven(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	for _, raw := range []string{`"str"`, `7`, `-1.5`, `1e3`, `{"a":[1,2]}`, `[1,"x"]`, `null`, `true`, `""`} {
		a.SendRaw(`{"id":` + raw + `,"type":"get_state"}` + "\n")
		a.SendRaw(`{"id":` + raw + `,"type":"nope"}` + "\n")
	}
	a.Request(map[string]any{"id": "sentinel", "type": "get_state"})
	var ids []string
	for _, line := range a.RawLines() {
		if !bytes.Contains(line, []byte(`"type":"response"`)) || bytes.Contains(line, []byte("sentinel")) {
			continue
		}
		i := bytes.Index(line, []byte(`"id":`))
		j := bytes.Index(line, []byte(`,"type":"response"`))
		if i != 1 || j < 0 {
			t.Fatalf("response without a leading id: %s", line)
		}
		ids = append(ids, string(line[i+5:j]))
	}
	_ = from
	want := []string{`"str"`, `"str"`, `7`, `7`, `-1.5`, `-1.5`, `1e3`, `1e3`, `{"a":[1,2]}`, `{"a":[1,2]}`, `[1,"x"]`, `[1,"x"]`, `null`, `null`, `true`, `true`, `""`, `""`}
	requireEqual(t, "echoed ids", ids, want)
}

func TestOneResponsePerID(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("x", 10, 20)}})
	kinds := []map[string]any{
		{"type": "get_state"},
		{"type": "get_messages"},
		{"type": "prompt", "message": "burst", "streamingBehavior": "followUp"},
		{"type": "steer", "message": "s"},
		{"type": "follow_up", "message": "f"},
		{"type": "clear_queue"},
		{"type": "set_steering_mode", "mode": "all"},
		{"type": "set_follow_up_mode", "mode": "bogus"},
		{"type": "get_last_assistant_text"},
		{"type": "no_such_command"},
		{"type": "prompt"},
		{"type": "abort"},
		{"type": "set_auto_compaction", "enabled": true},
	}
	var buf strings.Builder
	var ids []any
	for i := 0; i < 200; i++ {
		cmd := map[string]any{}
		for k, v := range kinds[i%len(kinds)] {
			cmd[k] = v
		}
		var id any = fmt.Sprintf("b%d", i)
		if i%3 == 0 {
			id = i
		}
		cmd["id"] = id
		ids = append(ids, id)
		b, _ := jsonMarshal(cmd)
		buf.Write(b)
		buf.WriteByte('\n')
		if i%17 == 0 {
			buf.WriteString("not json\n")
		}
	}
	a.SendRaw(buf.String())
	for _, id := range ids {
		a.WaitResponse(0, id)
	}
	// Let any straggler arrive, then count.
	a.Request(map[string]any{"type": "abort"})
	a.Request(map[string]any{"id": "sentinel", "type": "get_state"})
	for _, id := range ids {
		if n := len(a.Responses(id)); n != 1 {
			t.Errorf("id %v: %d responses", id, n)
		}
	}
	parse := 0
	for _, r := range a.Records(0) {
		if r["command"] == "parse" {
			parse++
		}
	}
	if parse != 12 {
		t.Errorf("parse errors = %d, want 12", parse)
	}
}
