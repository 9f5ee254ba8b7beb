package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

// refMessage decodes with encoding/json alone: the reference the one-walk
// decoder must agree with on the known fields.
type refMessage struct {
	Role               string          `json:"role"`
	Content            json.RawMessage `json:"content"`
	Provider           string          `json:"provider"`
	Model              string          `json:"model"`
	StopReason         string          `json:"stopReason"`
	ToolCallID         string          `json:"toolCallId"`
	IsError            bool            `json:"isError"`
	Command            string          `json:"command"`
	Output             string          `json:"output"`
	ExitCode           *int            `json:"exitCode"`
	ExcludeFromContext bool            `json:"excludeFromContext"`
	Usage              Usage           `json:"usage"`
}

func TestMessageDecodeShapes(t *testing.T) {
	cases := []string{
		`{"role":"user","content":"plain \u00e9\n","timestamp":1767225601000}`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":"2026-01-01T00:00:01.000Z"}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s","redacted":true},{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}},{"type":"toolCall","id":"d","name":"x"}],"api":"faux","provider":"faux","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}},"stopReason":"toolUse","endTurn":false,"timestamp":5}`,
		`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"out"}],"details":{"k":[1,2]},"isError":true,"timestamp":6}`,
		`{"role":"bashExecution","command":"ls","output":"x","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/f","excludeFromContext":true,"timestamp":7}`,
		`{"role":"custom","customType":"note","content":"hi","display":true,"details":null,"future":{"a":1},"timestamp":8}`,
	}
	for _, c := range cases {
		var m Message
		if err := json.Unmarshal([]byte(c), &m); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var ref refMessage
		if err := json.Unmarshal([]byte(c), &ref); err != nil {
			t.Fatal(err)
		}
		if m.Role != ref.Role || m.Provider != ref.Provider || m.Model != ref.Model || m.StopReason != ref.StopReason ||
			m.ToolCallID != ref.ToolCallID || m.IsError != ref.IsError || m.Command != ref.Command || m.Output != ref.Output ||
			!reflect.DeepEqual(m.ExitCode, ref.ExitCode) || m.ExcludeFromContext != ref.ExcludeFromContext || m.Usage != ref.Usage {
			t.Fatalf("%s: decoded %+v, reference %+v", c, m, ref)
		}
		if m.Timestamp == 0 {
			t.Fatalf("%s: no timestamp", c)
		}
		// Encoding and decoding again is stable.
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var m2 Message
		if err := json.Unmarshal(b, &m2); err != nil {
			t.Fatal(err)
		}
		b2, _ := json.Marshal(m2)
		if string(b) != string(b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	}
	var m Message
	json.Unmarshal([]byte(cases[5]), &m)
	if string(m.Extra["future"]) != `{"a":1}` {
		t.Fatalf("extra %v", m.Extra)
	}
	json.Unmarshal([]byte(cases[2]), &m)
	if m.EndTurn == nil || *m.EndTurn || len(m.ToolCalls()) != 2 || m.ToolCalls()[1].Arguments == nil || !m.Content.Blocks[0].Redacted {
		t.Fatalf("assistant %+v", m)
	}
	for _, bad := range []string{`{"role":1}`, `{"content":5}`, `{"isError":"yes"}`, `{"exitCode":1.5}`, `[]`, `"x"`} {
		var m Message
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	var n Message
	if err := json.Unmarshal([]byte(`null`), &n); err != nil || n.Role != "" {
		t.Fatalf("null: %v", err)
	}
}

func FuzzMessageDecode(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"x","timestamp":1}`))
	f.Add([]byte(`{"role":"assistant","content":[{"type":"text","text":"\ud83d\ude00"}],"usage":{"input":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			return // e.g. NaN cannot come from JSON, but details may hold odd values
		}
		var m2 Message
		if err := json.Unmarshal(out, &m2); err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		// The first encoding may normalise invalid UTF-8; from then on
		// the encoding is a fixed point.
		out2, _ := json.Marshal(m2)
		var m3 Message
		if err := json.Unmarshal(out2, &m3); err != nil {
			t.Fatalf("re-decoding %s: %v", out2, err)
		}
		out3, _ := json.Marshal(m3)
		if string(out2) != string(out3) {
			t.Fatalf("not stable:\n%s\n%s", out2, out3)
		}
	})
}
