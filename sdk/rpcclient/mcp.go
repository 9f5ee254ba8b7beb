package rpcclient

import "context"

// GetMCPServers lists the MCP servers and the configuration problems.
func (c *Client) GetMCPServers(ctx context.Context) (*MCPServers, error) {
	var out MCPServers
	if err := c.do(ctx, cmd{"type": "get_mcp_servers"}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MCPReconnect stops an MCP server, connects it again and returns its
// status once the attempt is over (it may take up to the server's
// timeout, so it has no deadline of its own).
func (c *Client) MCPReconnect(ctx context.Context, name string) (*MCPServer, error) {
	var out struct {
		Server MCPServer `json:"server"`
	}
	if err := c.do(ctx, cmd{"type": "mcp_reconnect", "name": name}, &out); err != nil {
		return nil, err
	}
	return &out.Server, nil
}
