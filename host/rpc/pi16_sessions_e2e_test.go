package rpc_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Session files written by pi 1.6 itself (test/testdata/pi16, made by
// gen.mjs there): atomic must build the context pi built from them.

func pi16Testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "test", "testdata", "pi16", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openAIContext turns the messages of a recorded OpenAI chat request into
// role:text lines (system messages left out).
func openAIContext(msgs []any) []string {
	var out []string
	for _, raw := range msgs {
		m := raw.(map[string]any)
		role, _ := m["role"].(string)
		switch role {
		case "system", "developer":
			continue
		case "tool":
			out = append(out, "toolResult:"+contentString(m["content"]))
		case "assistant":
			if calls, ok := m["tool_calls"].([]any); ok && len(calls) > 0 {
				for _, c := range calls {
					f := c.(map[string]any)["function"].(map[string]any)
					out = append(out, "assistant:toolCall "+f["name"].(string)+" "+canonJSON(f["arguments"].(string)))
				}
				continue
			}
			out = append(out, "assistant:"+contentString(m["content"]))
		default:
			out = append(out, role+":"+contentString(m["content"]))
		}
	}
	return out
}

// fauxContext does the same for a request the faux provider recorded.
func fauxContext(msgs []any) []string {
	var out []string
	for _, raw := range msgs {
		m := raw.(map[string]any)
		role, _ := m["role"].(string)
		if role == "assistant" {
			var text strings.Builder
			calls := false
			for _, b := range m["content"].([]any) {
				blk := b.(map[string]any)
				if blk["type"] == "toolCall" {
					args, _ := json.Marshal(blk["arguments"])
					out = append(out, "assistant:toolCall "+blk["name"].(string)+" "+canonJSON(string(args)))
					calls = true
				} else if s, ok := blk["text"].(string); ok {
					text.WriteString(s)
				}
			}
			if !calls {
				out = append(out, "assistant:"+text.String())
			}
			continue
		}
		out = append(out, role+":"+contentString(m["content"]))
	}
	return out
}

func contentString(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var sb strings.Builder
		for _, b := range v {
			if s, ok := b.(map[string]any)["text"].(string); ok {
				sb.WriteString(s)
			}
		}
		return sb.String()
	}
	return ""
}

func canonJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPi16CompactedSessionContext(t *testing.T) {
	orig, err := os.ReadFile(pi16Testdata(t, "compacted.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Requests []map[string]any `json:"requests"`
	}
	raw, err := os.ReadFile(pi16Testdata(t, "requests.json"))
	if err != nil || json.Unmarshal(raw, &rec) != nil {
		t.Fatalf("requests.json: %v", err)
	}
	// pi's context for its last prompt ("what now?"), after the compaction.
	want := openAIContext(rec.Requests[len(rec.Requests)-1]["messages"].([]any))

	a := e2e.Start(t, e2e.Options{})
	p := filepath.Join(t.TempDir(), "pi16.jsonl")
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": p})
	// Opening rewrites nothing: the file is byte for byte pi's.
	if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
		t.Fatalf("opening the session changed the file")
	}
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "faux", "modelId": "faux-1"})
	a.PromptAndWait("next")
	reqs := a.FauxRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	got := fauxContext(reqs[0]["messages"].([]any))
	// Ours goes on with pi's reply to "what now?" and the new prompt.
	if len(got) != len(want)+2 {
		t.Fatalf("context:\n got %q\nwant %q + 2 more", got, want)
	}
	requireEqual(t, "context pi built", got[:len(want)], want)
	requireEqual(t, "then", got[len(want):], []string{"assistant:After the compaction.", "user:next"})
	if !strings.HasPrefix(want[0], "user:The conversation history before this point was compacted into the following summary:") {
		t.Fatalf("pi's context starts with %q", want[0])
	}
	// Appending keeps every line pi wrote, byte for byte.
	if now, _ := os.ReadFile(p); !bytes.HasPrefix(now, orig) {
		t.Fatalf("the prompt rewrote pi's lines")
	}
}

// context_edit entries (pi 1.x) on a pi session: a null replacement drops
// the target, a string replaces its content (an array for assistant and
// tool results); edits off the active branch do not count; the file is
// not rewritten.
func TestPi16ContextEdits(t *testing.T) {
	orig, err := os.ReadFile(pi16Testdata(t, "compacted.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(orig), "\n"), "\n")
	var leaf string
	{
		var e map[string]any
		_ = json.Unmarshal([]byte(lines[len(lines)-1]), &e)
		leaf = e["id"].(string)
	}
	// 7a025a08 is "tell me more" (kept after the compaction); 1f5b51de is
	// the assistant's answer; 69355f2b "run echo hi".
	edits := `{"type":"context_edit","id":"ce000001","parentId":"` + leaf + `","timestamp":"2026-12-01T21:00:00.000Z","targetId":"7a025a08","replacement":null}
{"type":"context_edit","id":"ce000002","parentId":"ce000001","timestamp":"2026-12-01T21:00:01.000Z","targetId":"1f5b51de","replacement":"first edit"}
{"type":"context_edit","id":"ce000003","parentId":"ce000002","timestamp":"2026-12-01T21:00:02.000Z","targetId":"1f5b51de","replacement":[{"type":"text","text":"edited answer"}]}
{"type":"context_edit","id":"ce000004","parentId":"ce000003","timestamp":"2026-12-01T21:00:03.000Z","targetId":"69355f2b","replacement":"run echo HI"}
`
	body := string(orig) + edits
	a := e2e.Start(t, e2e.Options{})
	p := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": p})
	if now, _ := os.ReadFile(p); string(now) != body {
		t.Fatalf("opening the session changed the file")
	}
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "faux", "modelId": "faux-1"})
	a.PromptAndWait("next")
	reqs := a.FauxRequests()
	got := fauxContext(reqs[0]["messages"].([]any))
	if len(got) < 2 {
		t.Fatalf("context %q", got)
	}
	requireEqual(t, "edited context", got[1:], []string{
		"user:run echo HI", `assistant:toolCall bash {"command":"echo hi"}`, "toolResult:hi\n",
		"assistant:The command printed hi.", "assistant:edited answer", "user:what now?",
		"assistant:After the compaction.", "user:next",
	})
	// The edits stay in the file and in the tree, untouched.
	if now, _ := os.ReadFile(p); !strings.HasPrefix(string(now), body) {
		t.Fatalf("the edits were rewritten")
	}
}
