package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-go/atomic/internal/mcptest"
)

// headerLog records the X-Secret and Authorization headers each server saw.
type headerLog struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (l *headerLog) add(who string, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string][]string{}
	}
	l.seen[who] = append(l.seen[who], r.Header.Get("Authorization")+"|"+r.Header.Get("X-Secret"))
}

func (l *headerLog) get(who string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen[who]...)
}

func redirectTo(code int, target func() string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", target())
		w.WriteHeader(code)
	}
}

func httpEntry(t *testing.T, u string) Server {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"url": u, "headers": map[string]string{"Authorization": "Bearer tok-redirect", "X-Secret": "s3cret"}, "exposure": "direct"})
	cfg, err := Validate("web", raw)
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: "web", Config: cfg, Source: "test"}
}

func checkNone(t *testing.T, what string, got []string) {
	t.Helper()
	if len(got) == 0 {
		t.Fatalf("%s: no request arrived", what)
	}
	for _, g := range got {
		if strings.Contains(g, "tok-redirect") || strings.Contains(g, "s3cret") {
			t.Fatalf("%s received the configured headers: %q", what, got)
		}
	}
}

// A 307 (and a 301) to another host: the configured headers do not go
// there.
func TestRedirectToOtherHostStripsHeaders(t *testing.T) {
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusMovedPermanently} {
		var log headerLog
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			log.add("other", r)
			http.Error(w, "no", http.StatusUnauthorized)
		}))
		// localhost and 127.0.0.1 are two hosts to the client.
		otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			log.add("origin", r)
			redirectTo(code, func() string { return otherURL })(w, r)
		}))
		h := newHarness(t)
		h.apply(httpEntry(t, origin.URL+"/mcp"))
		if st := h.status("web"); st.State != StateFailed {
			t.Fatalf("%d: status %+v", code, st)
		}
		if got := log.get("origin"); len(got) == 0 || got[0] != "Bearer tok-redirect|s3cret" {
			t.Fatalf("%d: the origin saw %q", code, got)
		}
		checkNone(t, "the other host", log.get("other"))
		h.m.Close()
		origin.Close()
		other.Close()
	}
}

// A redirect that stays on the origin keeps the headers; a chain that
// leaves (308) and comes back gets them again only on the origin.
func TestRedirectSameOriginKeepsHeaders(t *testing.T) {
	var log headerLog
	inner := mcptest.Handler(mcptest.Options{})
	var originURL string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add("other", r)
		redirectTo(http.StatusPermanentRedirect, func() string { return originURL + "/back" })(w, r)
	}))
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add("origin"+r.URL.Path, r)
		switch {
		case strings.HasPrefix(r.URL.Path, "/old"):
			redirectTo(http.StatusTemporaryRedirect, func() string { return originURL + "/mcp" })(w, r)
		case strings.HasPrefix(r.URL.Path, "/away"):
			redirectTo(http.StatusPermanentRedirect, func() string { return otherURL })(w, r)
		default:
			inner.ServeHTTP(w, r)
		}
	}))
	originURL = origin.URL
	t.Cleanup(origin.Close)
	t.Cleanup(other.Close)

	h := newHarness(t)
	h.apply(httpEntry(t, origin.URL+"/old"))
	if st := h.status("web"); st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	for _, g := range log.get("origin/mcp") {
		if g != "Bearer tok-redirect|s3cret" {
			t.Fatalf("same-origin redirect target saw %q", g)
		}
	}
	if len(log.get("origin/mcp")) == 0 {
		t.Fatalf("no request after the same-origin redirect: %v", log.seen)
	}
	h.m.Close()

	h2 := newHarness(t)
	h2.apply(httpEntry(t, origin.URL+"/away"))
	checkNone(t, "the host in the middle of the chain", log.get("other"))
	if got := log.get("origin/back"); len(got) == 0 || got[0] != "Bearer tok-redirect|s3cret" {
		t.Fatalf("back on the origin: %q (%v)", got, log.seen)
	}
}

// roundTripFunc is a transport in a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// HTTPS to HTTP on the same host and port strips the headers (the scheme
// is part of the origin), as does a change of port; the client follows
// the redirects itself.
func TestRedirectSchemeOrPortChangeStripsHeaders(t *testing.T) {
	var log headerLog
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		log.add(r.URL.Scheme+"://"+r.URL.Host, r)
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: r}
		switch r.URL.String() {
		case "https://mcp.example:443/start":
			resp.StatusCode = http.StatusTemporaryRedirect
			resp.Header.Set("Location", "http://mcp.example/plain")
		case "http://mcp.example/plain":
			resp.StatusCode = http.StatusFound
			resp.Header.Set("Location", "https://mcp.example:8443/port")
		case "https://mcp.example:8443/port":
			resp.StatusCode = http.StatusPermanentRedirect
			resp.Header.Set("Location", "https://MCP.example/end")
		}
		return resp, nil
	})
	c := &http.Client{Transport: newHeaderTransport(base, "https://mcp.example/mcp", map[string]string{"Authorization": "Bearer tok-redirect", "X-Secret": "s3cret"})}
	req, _ := http.NewRequest(http.MethodGet, "https://mcp.example:443/start", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := log.get("https://mcp.example:443"); len(got) != 1 || got[0] != "Bearer tok-redirect|s3cret" {
		t.Fatalf("origin (explicit default port) saw %q", got)
	}
	checkNone(t, "http on the same host", log.get("http://mcp.example"))
	checkNone(t, "another port", log.get("https://mcp.example:8443"))
	if got := log.get("https://MCP.example"); len(got) != 1 || got[0] != "Bearer tok-redirect|s3cret" {
		t.Fatalf("back on the origin saw %q", got)
	}
}
