package extensions

import (
	"encoding/json"
	"path/filepath"
)

// MCPServerRegistrar is implemented by hosts that let an extension add an
// MCP server for the session (pi.registerMcpServer); config has the shape
// of an "mcpServers" entry of mcp.json.
type MCPServerRegistrar interface {
	RegisterMCPServer(extensionPath, name string, config json.RawMessage) error
}

// projectMCPFile is the project's .atomic/mcp.json when it exists: it
// starts programs, so it is part of what trust is bound to.
func projectMCPFile(cwd string) string {
	p := filepath.Join(cwd, ".atomic", "mcp.json")
	if fileExists(p) {
		return p
	}
	return ""
}
