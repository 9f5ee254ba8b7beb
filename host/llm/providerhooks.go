package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/atomic-go/atomic/internal/netproxy"
)

// ProviderHooks let the agent's extensions see and change one provider
// request on the wire, as pi's before_provider_headers,
// before_provider_request, after_provider_response and
// provider_stream_event do. Every SDK-based provider sends through
// HookedClient, so the rule lives here once. A nil func is skipped.
type ProviderHooks struct {
	// Headers gets the outgoing headers without the credential headers
	// (the key never reaches an extension) and returns the changes: a
	// value to set, or nil to delete.
	Headers func(ctx context.Context, headers map[string]string) map[string]*string
	// Payload gets the JSON body and returns a replacement, or nil to
	// keep it.
	Payload func(ctx context.Context, payload json.RawMessage) json.RawMessage
	// Response gets the status and the headers (lower-case names) before
	// the body is read.
	Response func(ctx context.Context, status int, headers map[string]string)
	// Stream gets each event of a streamed response as the JSON of its
	// data, in stream order, before the provider reads it.
	Stream func(ctx context.Context, data json.RawMessage)
}

// MaxHookedPayload bounds the body a Payload hook is shown (a larger one
// is sent as it is).
const MaxHookedPayload = 64 << 20

// maxStreamEventData bounds one stream event shown to a Stream hook (a
// larger one is not shown; the provider still reads it).
const maxStreamEventData = 8 << 20

// credentialHeaders carry keys: extensions may set them but never read
// them.
var credentialHeaders = map[string]bool{
	"Authorization": true, "X-Api-Key": true, "X-Goog-Api-Key": true, "Api-Key": true, "Proxy-Authorization": true,
}

// HookedClient is hc (llm.HTTPClient when nil) with the request's
// provider hooks on its transport, or hc itself when there are none.
func HookedClient(hc *http.Client, req *Request) *http.Client {
	if hc == nil {
		hc = HTTPClient
	}
	if req == nil || req.Hooks == nil {
		return hc
	}
	next := hc.Transport
	if next == nil {
		next = netproxy.Transport
	}
	c := *hc
	c.Transport = &hookedTransport{next: next, hooks: req.Hooks}
	return &c
}

type hookedTransport struct {
	next  http.RoundTripper
	hooks *ProviderHooks
}

func (t *hookedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	h := t.hooks
	if h.Headers != nil || h.Payload != nil {
		r = r.Clone(ctx)
	}
	if h.Headers != nil {
		visible := map[string]string{}
		for k, v := range r.Header {
			if !credentialHeaders[http.CanonicalHeaderKey(k)] && len(v) > 0 {
				visible[k] = strings.Join(v, ", ")
			}
		}
		for k, v := range h.Headers(ctx, visible) {
			if v == nil {
				r.Header.Del(k)
			} else {
				r.Header.Set(k, *v)
			}
		}
	}
	if h.Payload != nil && r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxHookedPayload+1))
		_ = r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the request body: %w", err)
		}
		if len(body) <= MaxHookedPayload && json.Valid(body) {
			if repl := h.Payload(ctx, body); repl != nil {
				body = repl
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp == nil {
		return resp, err
	}
	if h.Response != nil {
		hs := make(map[string]string, len(resp.Header))
		for k, v := range resp.Header {
			hs[strings.ToLower(k)] = strings.Join(v, ", ")
		}
		h.Response(ctx, resp.StatusCode, hs)
	}
	if h.Stream != nil && resp.StatusCode < 300 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &sseTap{ReadCloser: resp.Body, ctx: ctx, fn: h.Stream}
	}
	return resp, nil
}

// sseTap passes a server-sent event stream through unchanged and shows
// the data of each event that is JSON to fn as it goes by.
type sseTap struct {
	io.ReadCloser
	ctx  context.Context
	fn   func(context.Context, json.RawMessage)
	line []byte // the line being read
	data []byte // the data lines of the event being read
	skip bool   // the event outgrew maxStreamEventData
}

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.feed(p[:n])
	if err == io.EOF {
		s.endLine()
		s.dispatch()
	}
	return n, err
}

func (s *sseTap) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.add(b)
			return
		}
		s.add(b[:i])
		s.endLine()
		b = b[i+1:]
	}
}

func (s *sseTap) add(b []byte) {
	if len(s.line)+len(b) > maxStreamEventData {
		s.skip = true
		return
	}
	s.line = append(s.line, b...)
}

func (s *sseTap) endLine() {
	line := bytes.TrimSuffix(s.line, []byte("\r"))
	s.line = s.line[:0]
	switch {
	case len(line) == 0:
		s.dispatch()
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
		if len(s.data) > 0 {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(v) > maxStreamEventData {
			s.skip = true
			return
		}
		s.data = append(s.data, v...)
	}
}

func (s *sseTap) dispatch() {
	data, skip := s.data, s.skip
	s.data, s.skip = s.data[:0], false
	if skip || len(data) == 0 || !json.Valid(data) {
		return
	}
	s.fn(s.ctx, append(json.RawMessage(nil), data...))
}
