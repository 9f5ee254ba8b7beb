package rpc_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// wait is the generous liveness bound of these tests.
const wait = 10 * time.Second

// obj returns r[key] as an object (nil when it is not one).
func obj(r map[string]any, key string) map[string]any {
	m, _ := r[key].(map[string]any)
	return m
}

// arr returns r[key] as an array.
func arr(r map[string]any, key string) []any {
	a, _ := r[key].([]any)
	return a
}

// str returns r[key] as a string.
func str(r map[string]any, key string) string {
	s, _ := r[key].(string)
	return s
}

// ame returns the assistantMessageEvent of a message_update.
func ame(r e2e.Record) map[string]any { return obj(r, "assistantMessageEvent") }

// updateTypes lists the assistantMessageEvent types of message_update
// records.
func updateTypes(recs []e2e.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Type() == "message_update" {
			out = append(out, str(ame(r), "type"))
		}
	}
	return out
}

// ofType returns the records of one type.
func ofType(recs []e2e.Record, typ string) []e2e.Record {
	var out []e2e.Record
	for _, r := range recs {
		if r.Type() == typ {
			out = append(out, r)
		}
	}
	return out
}

// indexOf returns the index of the first record from `from` that matches,
// or -1.
func indexOf(recs []e2e.Record, from int, match func(e2e.Record) bool) int {
	for i := from; i < len(recs); i++ {
		if match(recs[i]) {
			return i
		}
	}
	return -1
}

func isType(typ string) func(e2e.Record) bool {
	return func(r e2e.Record) bool { return r.Type() == typ }
}

// isResponseTo matches the response to the request id.
func isResponseTo(id string) func(e2e.Record) bool {
	return func(r e2e.Record) bool { return r.Type() == "response" && r["id"] == id }
}

// messageText joins the text blocks of a message object.
func messageText(m map[string]any) string {
	if s, ok := m["content"].(string); ok {
		return s
	}
	var sb strings.Builder
	for _, b := range arr(m, "content") {
		blk, _ := b.(map[string]any)
		if blk["type"] == "text" {
			sb.WriteString(str(blk, "text"))
		}
	}
	return sb.String()
}

// roles lists the roles of an array of messages.
func roles(msgs []any) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		out[i] = str(mm, "role")
	}
	return out
}

func requireTypes(t *testing.T, recs []e2e.Record, want ...string) {
	t.Helper()
	got := e2e.Types(recs)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("record types:\n got  %v\n want %v", got, want)
	}
}

func requireEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Fatalf("%s:\n got  %s\n want %s", what, gb, wb)
	}
}

// waitDelta waits for the first text or thinking delta from index from.
func waitDelta(a *e2e.Agent, from int) {
	a.WaitFrom(from, wait, func(r e2e.Record) bool {
		if r.Type() != "message_update" {
			return false
		}
		typ := str(ame(r), "type")
		return typ == "text_delta" || typ == "thinking_delta"
	})
}

// slowStep is a faux turn that streams for about n*delay milliseconds.
func slowStep(text string, n, delayMs int) map[string]any {
	return map[string]any{"text": strings.Repeat(text, n), "chunks": n, "delayMs": delayMs}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
