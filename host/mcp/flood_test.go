package mcp

import (
	"strconv"
	"testing"
	"time"
)

// 20,000 tools/list_changed with nothing changed cost a few refreshes and
// no event; the one real change at the end is fetched, with one event.
func TestListChangedFloodCoalesced(t *testing.T) {
	h := newHarness(t)
	h.apply(stdioServer("f", map[string]any{"exposure": "direct", "env": map[string]string{"MCP_TEST_FLOOD": "20000"}}))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, ok := h.reg.Get("mcp__f__final"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the change after the flood was never fetched: %+v", h.status("f"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := h.call("mcp__f__stats", nil)
	if err != nil {
		t.Fatal(err)
	}
	lists, _ := strconv.Atoi(res.ResultText())
	if lists > 1000 {
		t.Fatalf("%d tools/list requests for 20001 notifications", lists)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	events := 0
	for _, c := range h.changes {
		if c.Name == "f" && c.State == StateConnected {
			events++
		}
	}
	if events > 3 {
		t.Fatalf("%d change events (tools/list served %d times)", events, lists)
	}
	t.Logf("tools/list served %d times, %d events", lists, events)
}
