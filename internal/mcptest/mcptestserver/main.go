// Command mcptestserver runs the mcptest server over stdio. Environment:
// MCP_TEST_NEVER_START=1 never answers (a server that never starts);
// MCP_TEST_EXTRA_TOOLS=N adds N tools; MCP_TEST_CANCEL_FILE records
// cancelled calls; MCP_TEST_PID_FILE gets the pid; MCP_TEST_SECRET is echoed to stderr (redaction tests);
// MCP_TEST_FLOOD=N sends N tools/list_changed notifications (flood.go).
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/atomic-go/atomic/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	fmt.Fprintf(os.Stderr, "mcptestserver starting (secret %s)\n", os.Getenv("MCP_TEST_SECRET"))
	if f := os.Getenv("MCP_TEST_PID_FILE"); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if n, _ := strconv.Atoi(os.Getenv("MCP_TEST_FLOOD")); n > 0 {
		flood(n)
		return
	}
	if os.Getenv("MCP_TEST_NEVER_START") == "1" {
		select {}
	}
	n, _ := strconv.Atoi(os.Getenv("MCP_TEST_EXTRA_TOOLS"))
	s := mcptest.New(mcptest.Options{ExtraTools: n, CancelFile: os.Getenv("MCP_TEST_CANCEL_FILE")})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		os.Exit(1)
	}
}
