package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
)

// Hostile modes: an HTTP MCP server that misbehaves on purpose.
const (
	// EndlessPages answers tools/list with one tool and a new cursor, always.
	EndlessPages = "endless-pages"
	// RepeatCursor answers tools/list with the same cursor, always.
	RepeatCursor = "repeat-cursor"
	// EndlessJSON answers initialize with a JSON body that never ends.
	EndlessJSON = "endless-json"
	// EndlessEvent answers initialize with one SSE event that never ends.
	EndlessEvent = "endless-event"
)

// Hostile is a raw streamable HTTP MCP server (no SDK) in one of the
// modes above. Written counts the bytes of endless bodies written and
// Pages the tools/list pages served; an endless body stops at Cap bytes
// (so that a client without a bound fails its test instead of the
// machine).
type Hostile struct {
	Mode    string
	Cap     int64
	Written atomic.Int64
	Pages   atomic.Int64
}

func (h *Hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&msg)
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch msg.Method {
	case "initialize":
		switch h.Mode {
		case EndlessJSON:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"filler":"`, msg.ID)
			h.endless(w)
			return
		case EndlessEvent:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"filler\":\"", msg.ID)
			h.endless(w)
			return
		}
		reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`)
	case "tools/list":
		n := h.Pages.Add(1)
		next := fmt.Sprintf("page-%d", n)
		if h.Mode == RepeatCursor {
			next = "again"
		}
		reply(fmt.Sprintf(`{"tools":[{"name":"t%d","inputSchema":{"type":"object"}}],"nextCursor":%q}`, n, next))
	default:
		reply(`{}`)
	}
}

func (h *Hostile) endless(w http.ResponseWriter) {
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for h.Written.Load() < h.Cap {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		h.Written.Add(int64(len(chunk)))
	}
}
