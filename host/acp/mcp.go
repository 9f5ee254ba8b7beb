package acp

import (
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// mcpSource names the client's MCP servers among the runtime's (where
// an extension's path would be).
const mcpSource = "acp-client"

// connectMCP hands the MCP servers of a session/new, load or resume to
// the runtime, which connects them in the background as it does the
// configured ones (a server of the same name in mcp.json wins). stdio and
// streamable HTTP are supported; SSE is refused, as in mcp.json.
func (s *Server) connectMCP(servers []sdk.McpServer) error {
	for i, m := range servers {
		name, cfg, err := mcpConfig(m)
		if err != nil {
			return invalid("mcpServers[%d]: %v", i, err)
		}
		raw, err := json.Marshal(cfg)
		if err != nil {
			return invalid("mcpServers[%d]: %v", i, err)
		}
		if err := s.rt.RegisterMCPServer(mcpSource, name, raw); err != nil {
			return invalid("mcpServers[%d] (%s): %v", i, name, err)
		}
	}
	return nil
}

// mcpConfig is an ACP server description in mcp.json's terms. The tools
// are declared directly (the first prompt waits for the server, boundedly),
// as the client means them for the session.
func mcpConfig(m sdk.McpServer) (string, map[string]any, error) {
	headers := func(hs []sdk.HttpHeader) map[string]string {
		out := map[string]string{}
		for _, h := range hs {
			out[h.Name] = h.Value
		}
		return out
	}
	switch {
	case m.Stdio != nil:
		env := map[string]string{}
		for _, v := range m.Stdio.Env {
			env[v.Name] = v.Value
		}
		return m.Stdio.Name, map[string]any{"type": "stdio", "command": m.Stdio.Command, "args": m.Stdio.Args, "env": env, "exposure": "direct"}, nil
	case m.Http != nil:
		return m.Http.Name, map[string]any{"type": "http", "url": m.Http.Url, "headers": headers(m.Http.Headers), "exposure": "direct"}, nil
	case m.Sse != nil:
		return m.Sse.Name, nil, fmt.Errorf("the SSE transport is not supported; give the server's streamable HTTP URL")
	}
	return "", nil, fmt.Errorf("an unsupported transport")
}
