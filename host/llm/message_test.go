package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/jsonw"
)

// roundTrip decodes a JSON text into a Message, encodes it again, and
// returns both as generic values for comparison.
func roundTrip(t *testing.T, in string) (want, got any, m Message) {
	t.Helper()
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("re-decode %s: %v", out, err)
	}
	return want, got, m
}

func TestMessageRoundTrips(t *testing.T) {
	cases := map[string]string{
		"user string":  `{"role":"user","content":"Hello!","timestamp":1733234567890}`,
		"user blocks":  `{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"timestamp":1}`,
		"user unknown": `{"role":"user","content":"x","timestamp":5,"attachments":[{"id":"a"}],"meta":{"k":[1,2,{"z":null}]}}`,
		"assistant": `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},` +
			`{"type":"text","text":"Hi","textSignature":"ts"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"},"thoughtSignature":"th","namespace":"ns"}],` +
			`"api":"anthropic-messages","provider":"anthropic","model":"claude","responseId":"r1",` +
			`"usage":{"input":100,"output":50,"cacheRead":1,"cacheWrite":2,"totalTokens":153,"cost":{"input":0.0003,"output":0.00075,"cacheRead":0,"cacheWrite":0,"total":0.00105},"cacheWrite1h":2,"reasoning":7},` +
			`"stopReason":"toolUse","endTurn":false,"timestamp":1733234567890,"responseModel":"claude-x","diagnostics":[{"a":1}]}`,
		"assistant error": `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m",` +
			`"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},` +
			`"stopReason":"error","errorMessage":"529 overloaded","timestamp":2}`,
		"redacted thinking": `{"role":"assistant","content":[{"type":"thinking","thinking":"","redacted":true}],"api":"a","provider":"p","model":"m",` +
			`"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}`,
		"tool result":    `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"details":{"truncation":null,"n":[1,2]},"isError":true,"timestamp":3}`,
		"bash":           `{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/x","excludeFromContext":true,"timestamp":4}`,
		"bash killed":    `{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false,"timestamp":4}`,
		"custom":         `{"role":"custom","customType":"note","content":"remember","display":true,"details":{"x":1},"timestamp":6}`,
		"custom untyped": `{"role":"custom","content":"as is","display":true,"timestamp":6}`,
		"summary":        `{"role":"branchSummary","summary":"we tried X","fromId":"abcd1234","timestamp":7}`,
		"unknown role":   `{"role":"somethingNew","content":[{"type":"text","text":"t"}],"timestamp":8,"field":"kept"}`,
		"unknown block":  `{"role":"user","content":[{"type":"audio","data":"AAA","format":"wav"},{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}],"timestamp":9}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			want, got, _ := roundTrip(t, in)
			if !reflect.DeepEqual(want, got) {
				g, _ := json.Marshal(got)
				t.Fatalf("round trip changed the message:\n in  %s\n out %s", in, g)
			}
		})
	}
}

func TestMessageDecodedFields(t *testing.T) {
	_, _, m := roundTrip(t, `{"role":"user","content":"Hello!","timestamp":1733234567890,"extra":1}`)
	if !m.Content.AsString || m.Text() != "Hello!" || m.Timestamp != 1733234567890 || string(m.Extra["extra"]) != "1" {
		t.Fatalf("decoded %+v", m)
	}
	_, _, m = roundTrip(t, `{"role":"toolResult","toolCallId":"c","toolName":"read","content":[],"isError":false,"timestamp":"2024-01-02T03:04:05.678Z"}`)
	if m.Timestamp != 1704164645678 {
		t.Fatalf("ISO timestamp decoded as %d", m.Timestamp)
	}
	var tc Message
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"n"}]}`), &tc); err != nil {
		t.Fatal(err)
	}
	if calls := tc.ToolCalls(); len(calls) != 1 || calls[0].Arguments == nil {
		t.Fatalf("tool call without arguments must get an empty map: %+v", calls)
	}
}

func TestContentShapes(t *testing.T) {
	enc := func(c Content) string {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var c Content
	if err := json.Unmarshal([]byte(`"plain"`), &c); err != nil || enc(c) != `"plain"` {
		t.Fatalf("string content: %v %s", err, enc(c))
	}
	// Content read as a string that gained a block is an array now.
	c.Blocks = append(c.Blocks, Image("AA", "image/png"))
	if got := enc(c); !strings.HasPrefix(got, "[") {
		t.Fatalf("two blocks written as %s", got)
	}
	// A lone image must never be flattened to a string.
	c = Content{Blocks: []ContentBlock{Image("AA", "image/png")}, AsString: true}
	if got := enc(c); got != `[{"type":"image","data":"AA","mimeType":"image/png"}]` {
		t.Fatalf("image content written as %s", got)
	}
	if got := enc(Content{}); got != `[]` {
		t.Fatalf("empty content written as %s", got)
	}
	if err := json.Unmarshal([]byte(`null`), &c); err != nil || len(c.Blocks) != 0 {
		t.Fatalf("null content: %v %v", err, c)
	}
	if err := json.Unmarshal([]byte(`5`), &c); err == nil {
		t.Fatalf("a number was accepted as content")
	}
	if got := (Content{Blocks: []ContentBlock{Text("a"), {Type: BlockThinking, Thinking: "t"}, Text("b")}}).JoinText("|"); got != "a|b" {
		t.Fatalf("JoinText = %q", got)
	}
}

func TestEncodingKeepsProtocolLinesIntact(t *testing.T) {
	// Extra values read from a pretty-printed file hold line breaks; a
	// record line must never contain one.
	in := "{\"role\":\"user\",\"content\":\"x\",\"timestamp\":1,\"meta\":{\n  \"a\": [1,\n 2]\n}}"
	var m Message
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	m.Content = TextContent("line1\nline2\u2028\x00\"\\")
	out := m.AppendJSON(nil)
	if strings.ContainsAny(string(out), "\n\r") {
		t.Fatalf("encoded message holds a line break: %s", out)
	}
	var back Message
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if back.Text() != "line1\nline2\u2028\x00\"\\" {
		t.Fatalf("text = %q", back.Text())
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ slash", "ctl\x00\x01\x1f\x7f", "tab\tnl\ncr\r",
		"<html>&amp;", "uni ü 日本 🎉", "sep\u2028\u2029", "bad\xff\xfeutf8", "trail\xe2\x82"} {
		got := jsonw.AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q: decoded %q, encoding/json gives %q", s, back, wantBack)
		}
	}
}

func TestAppendValue(t *testing.T) {
	type details struct {
		N int    `json:"n"`
		S string `json:"s,omitempty"`
	}
	nan := 0.0
	nan = nan / nan
	cases := []struct {
		v    any
		want string
	}{
		{nil, `null`},
		{map[string]any{"b": 1.5, "a": []any{true, nil, "x"}}, `{"a":[true,null,"x"],"b":1.5}`},
		{details{N: 2}, `{"n":2}`},
		{json.RawMessage("{ \"a\" :\n 1 }"), `{"a":1}`},
		{json.RawMessage("{broken"), `null`},
		{1e-7, `1e-7`},
		{1e21, `1e+21`},
		{123456789.0, `123456789`},
		{nan, `null`},
		{make(chan int), `null`},
	}
	for _, c := range cases {
		if got := string(jsonw.AppendValue(nil, c.v)); got != c.want {
			t.Errorf("jsonw.AppendValue(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}
