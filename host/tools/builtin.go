package tools

// DefaultActive names the built-in tools active by default.
var DefaultActive = []string{"read", "bash", "edit", "write"}

// Builtins returns the built-in tools: read, bash, edit, write, grep, find
// and ls, in that order.
func Builtins() []Tool {
	return []Tool{ReadTool{}, BashTool{}, EditTool{}, WriteTool{}, GrepTool{}, FindTool{}, LsTool{}}
}

// NewRegistryWithBuiltins returns a registry holding every built-in tool,
// with exactly the named ones active (nil or empty: none). Unknown names are
// ignored.
func NewRegistryWithBuiltins(active []string) *Registry {
	r := NewRegistry()
	for _, t := range Builtins() {
		r.Add(t, false)
	}
	r.SetActive(active)
	return r
}
