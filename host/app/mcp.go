package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/mcp"
)

// mcpState is the runtime's MCP part: the servers of the user's mcp.json,
// the trusted project's .atomic/mcp.json and the servers extensions
// registered, connected in the background by one manager whose tools join
// the tool registry.
type mcpState struct {
	mgr *mcp.Manager

	mu      sync.Mutex // serialises apply
	ext     map[string]mcp.Server
	extRaw  map[string]json.RawMessage // the configurations as registered
	extList []string
	started bool // the servers may be launched (StartMCP)

	soonOnce  sync.Once
	startOnce sync.Once
	startedCh chan struct{} // closed after the first apply
	timer     *time.Timer
}

// The servers are launched mcpAfterResponse after the first response (so
// that the client reads it before server processes compete for the CPU),
// and mcpStartDelay after start-up at the latest.
const (
	mcpAfterResponse = 50 * time.Millisecond
	mcpStartDelay    = 500 * time.Millisecond
)

// StartMCP says the client's first exchange is done: the configured
// servers are launched shortly after (later calls do nothing). host/rpc
// calls it after each response.
func (rt *Runtime) StartMCP() {
	rt.mcp.soonOnce.Do(func() { rt.mcp.timer.Reset(mcpAfterResponse) })
}

// launchMCP launches the configured servers (once).
func (rt *Runtime) launchMCP() {
	rt.mcp.startOnce.Do(func() {
		go func() {
			rt.mcp.mu.Lock()
			rt.mcp.started = true
			rt.mcp.mu.Unlock()
			rt.applyMCP()
			close(rt.mcp.startedCh)
		}()
	})
}

// mcpStarted launches the servers if that has not happened yet and waits
// until they are handed to the manager (not until they connect).
func (rt *Runtime) mcpStarted() {
	rt.launchMCP()
	<-rt.mcp.startedCh
}

// applyMCP loads the files and hands the servers to the manager.
func (rt *Runtime) applyMCP() {
	rt.mcp.mu.Lock()
	defer rt.mcp.mu.Unlock()
	if !rt.mcp.started {
		return // StartMCP applies
	}
	trusted := rt.projectTrusted()
	cwd := rt.Cwd()
	loaded := mcp.Load(rt.agentDir(), cwd, trusted)
	if mcp.ProjectFileSkipped(cwd, trusted) {
		rt.log.Warn("project MCP servers skipped: the project is not trusted (run with --trust-project or send trust_project)",
			"file", mcp.ProjectFile(cwd))
	}
	servers := loaded.Servers
	if rt.opts.NoMCP {
		rt.mcp.mgr.Apply(nil, nil)
		return
	}
	for _, name := range rt.mcp.extList {
		s := rt.mcp.ext[name]
		clash := false
		for _, f := range loaded.Servers {
			if strings.ReplaceAll(f.Name, "-", "_") == strings.ReplaceAll(name, "-", "_") {
				clash = true // a configured server wins over a registered one
			}
		}
		if !clash {
			servers = append(servers, s)
		}
	}
	rt.mcp.mgr.Apply(servers, loaded.Errors)
}

// RegisterMCPServer adds a server for the session (pi.registerMcpServer);
// a server of the same name in mcp.json takes precedence.
func (rt *Runtime) RegisterMCPServer(extensionPath, name string, config json.RawMessage) error {
	cfg, err := mcp.Validate(name, config)
	if err != nil {
		return err
	}
	source := "extension:" + extensionPath
	rt.mcp.mu.Lock()
	if old, ok := rt.mcp.ext[name]; !ok {
		rt.mcp.extList = append(rt.mcp.extList, name)
	} else if old.Source != source {
		rt.mcp.mu.Unlock()
		return fmt.Errorf("MCP server %q is registered by another extension (%s)", name, strings.TrimPrefix(old.Source, "extension:"))
	}
	rt.mcp.ext[name] = mcp.Server{Name: name, Config: cfg, Source: source, Scope: mcp.ScopeExtension}
	if rt.mcp.extRaw == nil {
		rt.mcp.extRaw = map[string]json.RawMessage{}
	}
	rt.mcp.extRaw[name] = append(json.RawMessage(nil), config...)
	rt.mcp.mu.Unlock()
	rt.applyMCP()
	rt.mcpServersChanged()
	return nil
}

// UnregisterMCPServer removes a server the extension registered (its
// connection closes, its tools go); a name it did not register is left
// alone, as in pi.
func (rt *Runtime) UnregisterMCPServer(extensionPath, name string) {
	rt.mcp.mu.Lock()
	s, ok := rt.mcp.ext[name]
	if !ok || s.Source != "extension:"+extensionPath {
		rt.mcp.mu.Unlock()
		return
	}
	delete(rt.mcp.ext, name)
	delete(rt.mcp.extRaw, name)
	rt.mcp.extList = slices.DeleteFunc(rt.mcp.extList, func(n string) bool { return n == name })
	rt.mcp.mu.Unlock()
	rt.applyMCP()
	rt.mcpServersChanged()
}

// mcpServersChanged tells extensions (mcp_servers_change) that a server
// was registered or removed after start-up, with every registered server.
func (rt *Runtime) mcpServersChanged() {
	bus := rt.ext.bus
	if bus == nil || !bus.Has(hooks.MCPServersChange) {
		return
	}
	select {
	case <-rt.ext.started:
	default:
		return // registered while loading: the start-up state
	}
	bus.Notify(hooks.MCPServersChange, hooks.McpServersChangeEvent{Servers: rt.RegisteredMCPServers()})
}

// RegisteredMCPServers lists the servers extensions registered, in
// registration order (pi.getMcpServers()).
func (rt *Runtime) RegisteredMCPServers() []extensions.RegisteredMCPServer {
	rt.mcp.mu.Lock()
	defer rt.mcp.mu.Unlock()
	out := []extensions.RegisteredMCPServer{}
	for _, name := range rt.mcp.extList {
		out = append(out, extensions.RegisteredMCPServer{Name: name, Config: rt.mcp.extRaw[name],
			ExtensionPath: strings.TrimPrefix(rt.mcp.ext[name].Source, "extension:")})
	}
	return out
}

// MCPServers lists the servers with their state, and the configuration
// problems.
func (rt *Runtime) MCPServers() ([]mcp.Status, []string) {
	rt.mcpStarted()
	errs := rt.mcp.mgr.ConfigErrors()
	if errs == nil {
		errs = []string{}
	}
	return rt.mcp.mgr.Statuses(), errs
}

// ReconnectMCP reconnects one server and returns its status.
func (rt *Runtime) ReconnectMCP(ctx context.Context, name string) (mcp.Status, error) {
	if name == "" {
		return mcp.Status{}, fmt.Errorf("name must not be empty")
	}
	rt.mcpStarted()
	return rt.mcp.mgr.Reconnect(ctx, name)
}

// waitMCPDirect lets the first prompt wait (bounded) for the servers whose
// tools are declared directly.
func (rt *Runtime) waitMCPDirect(ctx context.Context) {
	rt.mcpStarted()
	rt.mcp.mgr.WaitDirect(ctx, mcp.DirectWait)
}

// closeMCP stops every server.
func (rt *Runtime) closeMCP() {
	rt.mcp.timer.Stop()
	rt.mcp.startOnce.Do(func() { close(rt.mcp.startedCh) }) // nothing launches after this
	<-rt.mcp.startedCh
	rt.mcp.mgr.Close()
}

// RegisterMCPServer implements extensions.MCPServerRegistrar.
func (h *extHost) RegisterMCPServer(extensionPath, name string, config json.RawMessage) error {
	return h.rt.RegisterMCPServer(extensionPath, name, config)
}

// UnregisterMCPServer implements extensions.MCPServerRegistry.
func (h *extHost) UnregisterMCPServer(extensionPath, name string) {
	h.rt.UnregisterMCPServer(extensionPath, name)
}

// RegisteredMCPServers implements extensions.MCPServerRegistry.
func (h *extHost) RegisteredMCPServers() []extensions.RegisteredMCPServer {
	return h.rt.RegisteredMCPServers()
}

var (
	_ extensions.MCPServerRegistry = (*extHost)(nil)
	_ extensions.SettingsHost      = (*extHost)(nil)
)
