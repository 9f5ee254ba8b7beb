package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestACPMCPServers: the MCP servers of session/new are connected for the
// session and their tools called; an SSE server is refused.
func TestACPMCPServers(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/mcptest/mcptestserver")
	s := start(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "mcp__test__echo", "id": "m1", "arguments": map[string]any{"message": "over acp"}}}},
		{"text": "echoed"},
	}})
	ctx := e2e.Ctx(t, 20e9)
	res, err := s.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !res.AgentCapabilities.McpCapabilities.Http || res.AgentCapabilities.McpCapabilities.Sse {
		t.Fatalf("mcp capabilities %+v", res.AgentCapabilities.McpCapabilities)
	}
	if _, err := s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.env.Dir, McpServers: []sdk.McpServer{
		{Sse: &sdk.McpServerSseInline{Name: "old", Url: "http://127.0.0.1:1/sse", Type: "sse", Headers: []sdk.HttpHeader{}}},
	}}); err == nil || !strings.Contains(err.Error(), "SSE") {
		t.Fatalf("an SSE server: %v", err)
	}
	ns, err := s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.env.Dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "test", Command: bin, Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.id = ns.SessionId
	if r := s.prompt(t, "echo"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	if text, _, _ := toolText(s.ed.snapshot(), "m1"); text != "Echo: over acp" {
		t.Fatalf("the MCP tool gave %q", text)
	}
}
