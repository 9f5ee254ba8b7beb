package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The provider hooks on the wire: the credential headers are not shown but
// the rest can be changed, the payload replaced (with its length), the
// response's status and headers seen, and every JSON event of a server-sent
// stream shown once, in order, however the body is split into reads; the
// body the provider reads is unchanged.
func TestHookedClient(t *testing.T) {
	const stream = "event: a\r\ndata: {\"n\":1}\r\n\r\n: comment\ndata: {\"n\":\ndata: 2}\n\ndata: [DONE]\n\ndata: {\"n\":3}"
	var gotHeader http.Header
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Request-Id", "r-9")
		fl := w.(http.Flusher)
		for _, part := range []string{stream[:7], stream[7:30], stream[30:]} {
			io.WriteString(w, part)
			fl.Flush()
		}
	}))
	defer srv.Close()

	var seen map[string]string
	var status int
	var respHeaders map[string]string
	var events []string
	hooks := &ProviderHooks{
		Headers: func(_ context.Context, h map[string]string) map[string]*string {
			seen = h
			v := "yes"
			return map[string]*string{"X-Added": &v, "X-Gone": nil}
		},
		Payload: func(_ context.Context, p json.RawMessage) json.RawMessage {
			return json.RawMessage(`{"replaced":true,"was":` + string(p) + `}`)
		},
		Response: func(_ context.Context, s int, h map[string]string) { status, respHeaders = s, h },
		Stream:   func(_ context.Context, d json.RawMessage) { events = append(events, string(d)) },
	}
	hc := HookedClient(nil, &Request{Hooks: hooks})
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"a":1}`))
	req.Header.Set("Authorization", "Bearer secret")
	req.Header.Set("X-Api-Key", "secret")
	req.Header.Set("X-Gone", "soon")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	if _, ok := seen["Authorization"]; ok || seen["X-Api-Key"] != "" || seen["X-Gone"] != "soon" {
		t.Errorf("headers shown: %v", seen)
	}
	if gotHeader.Get("X-Added") != "yes" || gotHeader.Get("X-Gone") != "" || gotHeader.Get("Authorization") != "Bearer secret" {
		t.Errorf("headers sent: %v", gotHeader)
	}
	if gotBody != `{"replaced":true,"was":{"a":1}}` {
		t.Errorf("body sent: %s", gotBody)
	}
	if status != 200 || respHeaders["x-request-id"] != "r-9" {
		t.Errorf("response: %d %v", status, respHeaders)
	}
	if strings.Join(events, " ") != `{"n":1} {"n":`+"\n"+`2} {"n":3}` {
		t.Errorf("stream events: %q", events)
	}
	if string(body) != stream {
		t.Errorf("the provider read %q", body)
	}
	if HookedClient(nil, &Request{}) != HTTPClient {
		t.Error("a request without hooks should use the shared client as it is")
	}
}
