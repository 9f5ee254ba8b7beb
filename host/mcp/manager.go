package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-go/atomic/host/llm/auth"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// States of a server.
const (
	StateDisabled     = "disabled"
	StateConnecting   = "connecting"
	StateConnected    = "connected"
	StateDisconnected = "disconnected"
	StateFailed       = "failed"
)

// DirectWait bounds how long the first prompt waits for servers with
// direct tools (and mcp_tool_search for all servers).
const DirectWait = 10 * time.Second

// Status is what clients see of a server. Error and Stderr never hold the
// values of the server's env or headers.
type Status = rpcwire.MCPServer

// Options configure a Manager.
type Options struct {
	// Tools is the registry MCP tools join (direct ones active).
	Tools *tools.Registry
	Log   *slog.Logger
	// Values resolves ${VAR} and !command in env and headers (the
	// resolver of models.json).
	Values *auth.Values
	// Cwd is the session directory (relative cwd of stdio servers).
	Cwd func() string
	// OnChange receives a server's status when its state changes.
	OnChange func(Status)
	// ClientVersion is told to servers in initialize.
	ClientVersion string
	// ToolTimeout is the deadline of one MCP tool call (settings
	// timeouts.tool; 0: none). Each request also has the server's own
	// timeout, renewed by progress.
	ToolTimeout time.Duration
	// HTTPClient is the base client of streamable HTTP servers.
	HTTPClient *http.Client
}

// Manager runs the configured servers.
type Manager struct {
	opts Options

	mu      sync.Mutex
	servers map[string]*server
	order   []string
	errors  []string
	closed  bool
	search  *searchTool
	res     *resourceTools

	tokens atomic.Int64
	// slots bounds the servers starting at once (MaxStarting); the
	// others wait, connecting, without a process yet.
	slots chan struct{}
	// shut is set by Close: nothing starts after it.
	shut atomic.Bool
}

// MaxStarting is how many servers start (process, initialize, first
// tools/list) at once; the others wait their turn in state connecting.
const MaxStarting = 16

// NewManager returns a manager without servers.
func NewManager(opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Values == nil {
		opts.Values = &auth.Values{}
	}
	if opts.Cwd == nil {
		opts.Cwd = func() string { return "." }
	}
	m := &Manager{opts: opts, servers: map[string]*server{}, slots: make(chan struct{}, MaxStarting)}
	m.search = &searchTool{m: m}
	m.res = &resourceTools{m: m}
	return m
}

// Apply makes the running servers match defs: servers no longer defined,
// or defined differently, stop; new ones connect in the background.
// configErrors are the configuration problems to report (ConfigErrors).
func (m *Manager) Apply(defs []Server, configErrors []string) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.errors = append([]string(nil), configErrors...)
	want := map[string]Server{}
	var order []string
	for _, d := range defs {
		if _, dup := want[d.Name]; dup {
			continue
		}
		want[d.Name] = d
		order = append(order, d.Name)
	}
	var stop []*server
	var start []*server
	for name, s := range m.servers {
		d, ok := want[name]
		if !ok || !sameDef(s.def, d) {
			stop = append(stop, s)
			delete(m.servers, name)
		}
	}
	for _, name := range order {
		if _, ok := m.servers[name]; ok {
			m.servers[name].def.Source = want[name].Source
			continue
		}
		s := newServer(m, want[name])
		m.servers[name] = s
		start = append(start, s)
	}
	m.order = order
	m.mu.Unlock()
	for _, e := range configErrors {
		m.opts.Log.Warn("mcp configuration problem", "problem", e)
	}
	var wg sync.WaitGroup
	for _, s := range stop {
		wg.Add(1)
		go func(s *server) { defer wg.Done(); s.shutdown(true) }(s)
	}
	wg.Wait()
	for _, s := range start {
		s.begin()
	}
	m.syncSharedTools()
}

func sameDef(a, b Server) bool {
	return fmt.Sprintf("%#v", a.Config) == fmt.Sprintf("%#v", b.Config) && a.Scope == b.Scope
}

// ConfigErrors returns the configuration problems of the last Apply.
func (m *Manager) ConfigErrors() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.errors...)
}

func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.order))
	for _, n := range m.order {
		if s, ok := m.servers[n]; ok {
			out = append(out, s)
		}
	}
	return out
}

func (m *Manager) get(name string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[name]
}

// Statuses lists the servers in configuration order.
func (m *Manager) Statuses() []Status {
	out := []Status{}
	for _, s := range m.list() {
		out = append(out, s.status())
	}
	return out
}

// Reconnect stops a server and connects it again, waiting for the
// outcome (bounded by ctx).
func (m *Manager) Reconnect(ctx context.Context, name string) (Status, error) {
	s := m.get(name)
	if s == nil {
		return Status{}, fmt.Errorf("unknown MCP server %q", name)
	}
	if !s.def.Config.IsEnabled() {
		return s.status(), fmt.Errorf("MCP server %q is disabled", name)
	}
	s.shutdown(false)
	s.begin()
	_ = s.waitSettled(ctx)
	return s.status(), nil
}

// WaitDirect waits (at most timeout) until every enabled server with
// direct tools has finished connecting.
func (m *Manager) WaitDirect(ctx context.Context, timeout time.Duration) {
	m.wait(ctx, timeout, func(s *server) bool { d, _ := s.def.Config.Reaches(); return d })
}

// WaitAll waits (at most timeout) until every enabled server has finished
// connecting.
func (m *Manager) WaitAll(ctx context.Context, timeout time.Duration) {
	m.wait(ctx, timeout, func(*server) bool { return true })
}

func (m *Manager) wait(ctx context.Context, timeout time.Duration, which func(*server) bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, s := range m.list() {
		if s.def.Config.IsEnabled() && which(s) {
			if s.waitSettled(ctx) != nil {
				return
			}
		}
	}
}

// Close stops every server and waits until each process it started has
// ended (those still starting included: stdin closed, then SIGTERM, then
// SIGKILL to the process group, bounded by the grace periods).
func (m *Manager) Close() {
	m.shut.Store(true)
	m.mu.Lock()
	m.closed = true
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.servers = map[string]*server{}
	m.order = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func(s *server) { defer wg.Done(); s.shutdown(true) }(s)
	}
	wg.Wait()
	m.syncSharedTools()
}

// syncSharedTools registers mcp_tool_search while a server can have
// deferred tools, and the resource tools while a connected server offers
// resources.
func (m *Manager) syncSharedTools() {
	reg := m.opts.Tools
	if reg == nil {
		return
	}
	deferred, resources := false, false
	for _, s := range m.list() {
		if !s.def.Config.IsEnabled() {
			continue
		}
		if _, d := s.def.Config.Reaches(); d {
			deferred = true
		}
		if s.hasResources() {
			resources = true
		}
	}
	setTool(reg, m.search, deferred)
	for _, t := range m.res.tools() {
		setTool(reg, t, resources)
	}
}

func setTool(reg *tools.Registry, t tools.Tool, on bool) {
	_, has := reg.Get(t.Name())
	switch {
	case on && !has:
		reg.Add(t, true)
	case !on && has:
		reg.Remove(t.Name())
	}
}
