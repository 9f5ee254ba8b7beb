package events

// MCPServerChanged is emitted when an MCP server's state (or tool count)
// changes. Server is the server's status as get_mcp_servers lists it,
// without the stderr tail.
type MCPServerChanged struct {
	Server any `json:"server"`
}

// EventType implements Event.
func (MCPServerChanged) EventType() string { return "mcp_server_changed" }
