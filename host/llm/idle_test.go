package llm

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/no-headers":
			<-release
		case "/stalled-body":
			w.WriteHeader(200)
			_, _ = w.Write([]byte("first"))
			w.(http.Flusher).Flush()
			<-release
		case "/trickle": // slower in all than the bound, never idle that long
			w.WriteHeader(200)
			for i := 0; i < 12; i++ {
				_, _ = w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	SetIdleTimeout(time.Second)
	defer SetIdleTimeout(DefaultIdleTimeout)
	var idle *IdleError

	if _, err := HTTPClient.Get(srv.URL + "/no-headers"); !errors.As(err, &idle) {
		t.Fatalf("no headers: %v", err)
	}
	resp, err := HTTPClient.Get(srv.URL + "/stalled-body")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "first" || !errors.As(err, &idle) || !IsTransient(err, "") {
		t.Fatalf("stalled body: %q %v", b, err)
	}
	resp, err = HTTPClient.Get(srv.URL + "/trickle")
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(b) != 12 {
		t.Fatalf("trickle: %d bytes, %v", len(b), err)
	}
	SetIdleTimeout(0) // no bound
	resp, err = HTTPClient.Get(srv.URL + "/trickle")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
