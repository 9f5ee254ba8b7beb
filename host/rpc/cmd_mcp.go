package rpc

import (
	"context"

	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// get_mcp_servers lists the MCP servers (name, source file, transport,
// state, tool count, last error, stderr tail) and the configuration
// problems.
func handleGetMCPServers(_ context.Context, s *Server, _ *Request) (any, error) {
	servers, errs := s.b.mcp.MCPServers()
	return rpcwire.MCPServers{Servers: servers, Errors: errs}, nil
}

// mcp_reconnect {name} stops a server, connects it again and answers
// with its status once the attempt is over.
func handleMCPReconnect(ctx context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Name *string `json:"name"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.Name == nil {
		return nil, MissingField("name")
	}
	st, err := s.b.mcp.ReconnectMCP(ctx, *c.Name)
	if err != nil {
		return nil, err
	}
	return map[string]any{"server": st}, nil
}
