package extensions

import (
	"encoding/json"

	"github.com/atomic-go/atomic/host/config"
)

// MCPServerRegistrar is implemented by hosts that let an extension add an
// MCP server for the session (pi.registerMcpServer); config has the shape
// of an "mcpServers" entry of mcp.json.
type MCPServerRegistrar interface {
	RegisterMCPServer(extensionPath, name string, config json.RawMessage) error
}

// MCPServerRegistry is implemented by hosts that also let an extension
// remove its servers and list every extension's (pi.unregisterMcpServer,
// pi.getMcpServers).
type MCPServerRegistry interface {
	UnregisterMCPServer(extensionPath, name string)
	RegisteredMCPServers() []RegisteredMCPServer
}

// RegisteredMCPServer is a server an extension registered: pi's
// RegisteredMcpServer.
type RegisteredMCPServer struct {
	Name          string          `json:"name"`
	Config        json.RawMessage `json:"config"`
	ExtensionPath string          `json:"extensionPath"`
}

// projectMCPFile is the project's .atomic/mcp.json when it exists: it
// starts programs, so it is part of what trust is bound to.
func projectMCPFile(cwd string) string {
	p := config.ProjectMCPFile(cwd)
	if fileExists(p) {
		return p
	}
	return ""
}
