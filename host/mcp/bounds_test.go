package mcp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/mcptest"
)

func hostileServer(t *testing.T, mode string) (*mcptest.Hostile, Server) {
	t.Helper()
	hs := &mcptest.Hostile{Mode: mode, Cap: 128 << 20}
	srv := httptest.NewServer(hs)
	t.Cleanup(srv.Close)
	raw, _ := json.Marshal(map[string]any{"url": srv.URL, "exposure": "direct", "timeout": 20})
	cfg, err := Validate("bad", raw)
	if err != nil {
		t.Fatal(err)
	}
	return hs, Server{Name: "bad", Config: cfg, Source: "test"}
}

// tools/list that pages forever, or repeats its cursor, fails the server
// with an error that says so, after a bounded number of pages.
func TestToolsListPagingBounded(t *testing.T) {
	for mode, want := range map[string]string{mcptest.EndlessPages: "still paging after 100 pages", mcptest.RepeatCursor: "repeats the cursor"} {
		hs, def := hostileServer(t, mode)
		h := newHarness(t)
		h.apply(def)
		st := h.status("bad")
		if st.State != StateFailed || !strings.Contains(st.Error, want) {
			t.Fatalf("%s: status %+v (pages served %d)", mode, st, hs.Pages.Load())
		}
		if n := hs.Pages.Load(); n > maxListPages {
			t.Fatalf("%s: %d pages fetched", mode, n)
		}
		h.m.Close()
	}
}

// An endless JSON body answering initialize is refused after the bound;
// the server wrote at most a little more than that (the test server stops
// at 128 MiB, so a client without the bound fails here, not the machine).
func TestEndlessJSONBodyBounded(t *testing.T) {
	hs, def := hostileServer(t, mcptest.EndlessJSON)
	h := newHarness(t)
	h.apply(def)
	st := h.status("bad")
	if st.State != StateFailed || !strings.Contains(st.Error, "larger than 16 MiB") {
		t.Fatalf("status %+v (written %d)", st, hs.Written.Load())
	}
	if n := hs.Written.Load(); n > 3*maxResponseBytes {
		t.Fatalf("the client read %d MiB of an endless body", n>>20)
	}
}

// One endless SSE event is refused after the SDK's event bound
// (DefaultMaxEventSize), with its retries bounded too.
func TestEndlessSSEEventBounded(t *testing.T) {
	hs, def := hostileServer(t, mcptest.EndlessEvent)
	h := newHarness(t)
	h.apply(def)
	st := h.status("bad")
	if st.State != StateFailed {
		t.Fatalf("status %+v (written %d)", st, hs.Written.Load())
	}
	if n := hs.Written.Load(); n > 4*maxResponseBytes {
		t.Fatalf("the client read %d MiB of an endless event", n>>20)
	}
}
