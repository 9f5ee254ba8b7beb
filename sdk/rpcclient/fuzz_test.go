package rpcclient

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzReadRecords feeds arbitrary agent output to the client's reader:
// it must never panic or stop reading; every line that is a response
// to a pending call resolves that call (and only that one), once; every
// other JSON object reaches subscribers, in order.
func FuzzReadRecords(f *testing.F) {
	for _, s := range []string{
		`{"id":"req_1","type":"response","command":"get_state","success":true,"data":{"a":1}}` + "\n",
		`{"type":"agent_start"}` + "\n" + `{"id":"req_2","type":"response","command":"x","success":false,"error":"no"}` + "\n",
		`{"type":"extension_ui_request","id":"u","method":"confirm","title":"t","message":"m"}` + "\n",
		`{"type":"bash_execution_update","id":"req_1","channel":"stdout","delta":"x"}` + "\n",
		"not json\n\n{}\n[1]\n" + `{"id":5,"type":"response"}` + "\n" + `{"id":"req_1","type":"response","success":"yes"}`,
		`{"id":"req_1","type":"response","command":"a","success":true}` + "\r\n" + `{"id":"req_1","type":"response","command":"a","success":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Client{
			pending:    map[string]*pendingCall{},
			subs:       map[*Subscription]struct{}{},
			bashOut:    map[string]func(BashUpdate){},
			readerDone: make(chan struct{}),
			stderr:     &tailBuffer{limit: 1024},
		}
		calls := map[string]*pendingCall{}
		for _, id := range []string{"req_1", "req_2"} {
			p := &pendingCall{command: "cmd", ch: make(chan *Response, 1)}
			calls[id] = p
			c.pending[id] = p
		}
		var bashSeen int
		c.bashOut["req_1"] = func(BashUpdate) { bashSeen++ }
		sub := c.Subscribe()
		c.readLoop(io.NopCloser(bytes.NewReader(data)))
		c.closeSubs()

		// What the input holds, line by line.
		wantEvents := 0
		resolved := map[string]bool{}
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimRight(line, "\r")
			var env struct {
				Type string          `json:"type"`
				ID   json.RawMessage `json:"id"`
			}
			if len(line) == 0 || json.Unmarshal(line, &env) != nil {
				continue
			}
			var id string
			_ = json.Unmarshal(env.ID, &id)
			if env.Type == "response" && calls[id] != nil && !resolved[id] {
				resolved[id] = true
				continue
			}
			wantEvents++
		}
		for id, p := range calls {
			select {
			case resp := <-p.ch:
				if !resolved[id] {
					t.Fatalf("call %s resolved by nothing in %q", id, data)
				}
				if resp == nil {
					t.Fatalf("call %s got a nil response", id)
				}
			default:
				if resolved[id] {
					t.Fatalf("call %s was not resolved", id)
				}
			}
		}
		got := 0
		for {
			if _, err := sub.Next(t.Context()); err != nil {
				break
			}
			got++
		}
		if got != wantEvents {
			t.Fatalf("%d events delivered, want %d, for %q", got, wantEvents, data)
		}
		_ = bashSeen
	})
}
