package rpcwire

// ExtensionStatus is one extension as get_extensions reports it (an
// atomic command).
type ExtensionStatus struct {
	Path  string `json:"path"`
	Name  string `json:"name,omitempty"`
	Scope string `json:"scope"` // user, project, cli, …
	// State is loaded, skipped, failed or disabled; Message says why.
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	// Package is the package the extension comes from.
	Package *ExtensionPackage `json:"package,omitempty"`
	// For loaded extensions: what they registered.
	Events   []string `json:"events,omitempty"`
	Commands []string `json:"commands,omitempty"`
	Tools    []string `json:"tools,omitempty"`
	// Runtime is the runtime a loaded script runs in ("goja" or "node").
	Runtime string `json:"runtime,omitempty"`
	// RuntimeReason says why: a setting ("extensionRuntime is \"node\"",
	// "its settings entry asks for \"goja\""), or what the auto choice
	// found (a module goja does not provide; a load in goja that failed on
	// something goja lacks, after which it was loaded in Node).
	RuntimeReason string `json:"runtimeReason,omitempty"`
}

// ExtensionPackage names the package an extension comes from.
type ExtensionPackage struct {
	// Source is the package source as the settings or -e wrote it.
	Source string `json:"source"`
	// Scope is the scope of the settings entry (user, project or
	// temporary).
	Scope string `json:"scope"`
	// Root is the package's directory.
	Root string `json:"root,omitempty"`
}

// Extensions is the answer to get_extensions.
type Extensions struct {
	Extensions     []ExtensionStatus `json:"extensions"`
	ProjectTrusted bool              `json:"projectTrusted"`
}

// MCPServer is one MCP server as get_mcp_servers reports it (an atomic
// command).
type MCPServer struct {
	Name      string `json:"name"`
	Source    string `json:"source"`    // the mcp.json that defines it, or "extension:<path>"
	Scope     string `json:"scope"`     // user, project or extension
	Transport string `json:"transport"` // stdio or http
	// State is disabled, connecting, connected, disconnected or failed.
	State      string `json:"state"`
	Enabled    bool   `json:"enabled"`
	Exposure   string `json:"exposure"` // direct, deferred or hidden
	ToolCount  int    `json:"toolCount"`
	Error      string `json:"error,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
}

// MCPServers is the answer to get_mcp_servers.
type MCPServers struct {
	Servers []MCPServer `json:"servers"`
	// Errors are invalid files and entries, which were skipped.
	Errors []string `json:"errors"`
}

// MCPServerChangedEvent is the mcp_server_changed event: a server's state
// or tool count changed.
type MCPServerChangedEvent struct {
	Server MCPServer `json:"server"`
}
