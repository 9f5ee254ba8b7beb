package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// flood is a raw stdio MCP server (no SDK, which debounces its
// notifications): after initialized it sends n notifications/tools/list_changed
// with nothing changed, then adds the tool "final" and sends one more.
// The tool "stats" answers how many tools/list requests it served.
func flood(n int) {
	var mu sync.Mutex
	// This test server is a child of the tests; its stdout is the MCP
	// protocol it speaks (no agent front end is involved).
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(s + "\n")
		out.Flush()
	}
	var lists atomic.Int64
	var final atomic.Bool
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		reply := func(result string) { send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)) }
		switch msg.Method {
		case "initialize":
			reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"flood","version":"1"}}`)
		case "notifications/initialized":
			go func() {
				for range n {
					send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
				}
				final.Store(true)
				send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			}()
		case "tools/list":
			lists.Add(1)
			tools := `{"name":"stats","inputSchema":{"type":"object"}}`
			if final.Load() {
				tools += `,{"name":"final","inputSchema":{"type":"object"}}`
			}
			reply(`{"tools":[` + tools + `]}`)
		case "tools/call":
			reply(fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, lists.Load()))
		default:
			if msg.ID != nil {
				reply(`{}`)
			}
		}
	}
}
