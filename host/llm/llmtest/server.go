// Package llmtest serves scripted LLM API responses from a local
// httptest server: server-sent event streams shaped like those of the
// Anthropic Messages API, OpenAI Chat Completions and Responses, and Gemini
// streamGenerateContent, plus error bodies, Retry-After headers and streams
// cut off mid-way. Tests point a model's baseUrl at the server and run the
// real SDK against it.
package llmtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Event is one server-sent event. Name is written as an "event:" line when
// set; Data is written as one "data:" line.
type Event struct {
	Name string
	Data string
}

// Response is one scripted HTTP response.
type Response struct {
	Status int               // default 200
	Header map[string]string // extra headers (Retry-After, …)
	// Body is written as is (JSON error bodies, say). When Events is set
	// the response is an event stream instead.
	Body   string
	Events []Event
	// CutAfter > 0 drops the connection after that many events, without
	// ending the stream properly.
	CutAfter int
	// Delay is waited before each event.
	Delay time.Duration
}

// Request is what the server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Server is an httptest server answering every request with the next
// scripted response (or Respond, or a 500 once the script runs out).
type Server struct {
	*httptest.Server

	// Respond, when set, answers requests the script does not cover.
	Respond func(req Request) Response

	mu       sync.Mutex
	script   []Response
	requests []Request
}

// NewServer starts a server; Close it when done.
func NewServer() *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Start starts a server closed at the end of the test.
func Start(t testing.TB) *Server {
	s := NewServer()
	t.Cleanup(s.Close)
	return s
}

// Enqueue appends responses to the script.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, rs...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending returns how many scripted responses are left.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var resp Response
	var ok bool
	if len(s.script) > 0 {
		resp, s.script, ok = s.script[0], s.script[1:], true
	}
	respond := s.Respond
	s.mu.Unlock()
	if !ok {
		if respond == nil {
			http.Error(w, `{"error":{"message":"llmtest: no scripted response left"}}`, http.StatusInternalServerError)
			return
		}
		resp = respond(req)
	}
	Write(w, r, resp)
}

// Write sends a scripted response (usable from other handlers).
func Write(w http.ResponseWriter, r *http.Request, resp Response) {
	for k, v := range resp.Header {
		w.Header().Set(k, v)
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if resp.Events == nil {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, resp.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	fl, _ := w.(http.Flusher)
	var buf bytes.Buffer
	for i, ev := range resp.Events {
		if resp.CutAfter > 0 && i >= resp.CutAfter {
			if fl != nil {
				fl.Flush()
			}
			// Drop the connection without ending the chunked body.
			panic(http.ErrAbortHandler)
		}
		if resp.Delay > 0 {
			select {
			case <-time.After(resp.Delay):
			case <-r.Context().Done():
				return
			}
		}
		buf.Reset()
		if ev.Name != "" {
			fmt.Fprintf(&buf, "event: %s\n", ev.Name)
		}
		fmt.Fprintf(&buf, "data: %s\n\n", ev.Data)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return
		}
		if fl != nil {
			fl.Flush() // one network write per event, as real services do
		}
	}
	if fl != nil {
		fl.Flush()
	}
}

// Split cuts s into n pieces of similar size on rune boundaries (one piece
// when n <= 1).
func Split(s string, n int) []string {
	if n <= 1 || s == "" {
		return []string{s}
	}
	runes := []rune(s)
	if n > len(runes) {
		n = len(runes)
	}
	out := make([]string, 0, n)
	size, rem, pos := len(runes)/n, len(runes)%n, 0
	for i := 0; i < n; i++ {
		l := size
		if i < rem {
			l++
		}
		out = append(out, string(runes[pos:pos+l]))
		pos += l
	}
	return out
}
