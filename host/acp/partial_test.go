package acp

import (
	"encoding/json"
	"testing"
)

func TestPartialArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, `null`},
		{`{`, `{}`},
		{`{"comm`, `{}`},
		{`{"command"`, `{}`},
		{`{"command":`, `{}`},
		{`{"command":"ls -`, `{"command":"ls -"}`},
		{`{"command":"a\`, `{"command":"a"}`},
		{`{"command":"a\u00`, `{"command":"a"}`},
		{`{"path":"f","limit":1`, `{"limit":1,"path":"f"}`},
		{`{"path":"f","offset":tr`, `{"path":"f"}`},
		{`{"edits":[{"oldText":"x","newText":"y`, `{"edits":[{"newText":"y","oldText":"x"}]}`},
		{`{"a":{"b":[1,2`, `{"a":{"b":[1,2]}}`},
		{`{"a":"}\"{"}`, `{"a":"}\"{"}`},
		{`[1,2`, `null`},
	} {
		b, _ := json.Marshal(partialArgs(c.in))
		if string(b) != c.want {
			t.Errorf("partialArgs(%q) = %s, want %s", c.in, b, c.want)
		}
	}
}
