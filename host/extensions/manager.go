package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/trust"
)

// StartTimeout bounds how long one extension may take to start.
var StartTimeout = 15 * time.Second

// Config configures a Manager.
type Config struct {
	Bus      *hooks.Bus
	Host     Host
	Runtimes []Runtime
	Log      *slog.Logger
	AgentDir string
	Cwd      string
	// Trust is the command line's word on the project's trust
	// (--trust-project, -a, -na). See DecideProjectTrust for the whole rule.
	Trust trust.Flag
	// StartTrusted is the start-up trust decision when the caller has made
	// it already (with DecideProjectTrust, for the same AgentDir, Cwd and
	// Trust); nil lets Start decide. Reload always decides again.
	StartTrusted *bool
	// OnError reports load failures (as extension_error, event "load").
	OnError func(hooks.ExtensionError)
}

// Manager owns the loaded extensions.
type Manager struct {
	cfg   Config
	ready chan struct{}

	mu       sync.Mutex
	loaded   []*loaded
	statuses []Status
	trusted  bool
	pending  []Spec // untrusted project specs
	// approved is set when the project was trusted for this process only
	// (a project_trust answer without remember): a reload keeps it.
	approved bool
	fp       string
	disc     Discovered
}

type loaded struct {
	ext  Extension
	spec Spec
	sub  *subscriber
}

// CommandRef is a command and the extension that registered it.
type CommandRef struct {
	// Name is what the command is invoked with: the registered name, or
	// name:N when several extensions register it.
	Name string
	Spec CommandSpec
	Ext  Extension
	Path string
}

// ToolRef is a tool and the extension that registered it.
type ToolRef struct {
	Spec ToolSpec
	Ext  Extension
	Path string
}

// NewManager returns a manager; call Start to load extensions.
func NewManager(cfg Config) *Manager {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Bus == nil {
		cfg.Bus = hooks.New()
	}
	return &Manager{cfg: cfg, ready: make(chan struct{})}
}

// Bus returns the hook bus the extensions are subscribed to.
func (m *Manager) Bus() *hooks.Bus { return m.cfg.Bus }

// Start decides trust and starts every allowed extension in parallel in
// the background; Wait blocks until all have started or failed. Handlers
// run in load order whatever order they started in.
func (m *Manager) Start(d Discovered) {
	var allowed []Spec
	m.mu.Lock()
	m.disc = d
	m.statuses = append(m.statuses, d.Problems...)
	m.fp = ProjectFingerprint(m.cfg.AgentDir, m.cfg.Cwd)
	m.trusted = m.decideTrust()
	for _, s := range d.Specs {
		switch {
		case s.Options.Disabled:
			m.statuses = append(m.statuses, Status{Path: s.Path, Scope: s.Scope, Package: s.Package, State: "skipped", Message: "disabled in settings"})
		case s.Scope == ScopeProject && !m.trusted:
			m.pending = append(m.pending, s)
			m.statuses = append(m.statuses, Status{Path: s.Path, Scope: s.Scope, Package: s.Package, State: "skipped",
				Message: "project extensions run only in trusted projects; run with --trust-project or send trust_project"})
		default:
			allowed = append(allowed, s)
		}
	}
	pending := append([]Spec(nil), m.pending...)
	m.mu.Unlock()
	for _, p := range d.Problems {
		m.cfg.Log.Warn("extension problem", "path", p.Path, "problem", p.Message)
		m.reportLoad(p.Path, p.Message)
	}
	if len(pending) > 0 {
		var paths []string
		for _, s := range pending {
			paths = append(paths, s.Path)
		}
		m.cfg.Log.Warn("project extensions skipped: the project is not trusted", "project", m.cfg.Cwd, "extensions", paths)
	}
	m.mu.Lock()
	ready := m.ready
	m.mu.Unlock()
	go func() {
		m.loadAll(allowed)
		close(ready)
	}()
}

// decideTrust applies DecideProjectTrust (once, the caller's start-up
// decision when it gave one). Called with m.mu held.
func (m *Manager) decideTrust() bool {
	if st := m.cfg.StartTrusted; st != nil {
		m.cfg.StartTrusted = nil
		return *st
	}
	if m.approved && m.cfg.Trust != trust.FlagDeny {
		return true
	}
	ok, err := DecideProjectTrust(m.cfg.AgentDir, m.cfg.Cwd, m.cfg.Trust)
	if err != nil {
		m.cfg.Log.Warn("project trust", "err", err)
	}
	return ok
}

func (m *Manager) reportLoad(path, msg string) {
	if m.cfg.OnError != nil {
		m.cfg.OnError(hooks.ExtensionError{ExtensionPath: path, Event: "load", Error: msg})
	}
}

// loadAll starts specs in parallel and registers them in load order.
func (m *Manager) loadAll(specs []Spec) {
	results := make([]Extension, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		rt := m.runtimeFor(&s)
		if rt == nil {
			errs[i] = fmt.Errorf("no runtime can load %s (%s extensions are not supported by this build)", s.Path, s.Kind)
			continue
		}
		wg.Add(1)
		go func(i int, s Spec, rt Runtime) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
			defer cancel()
			results[i], errs[i] = rt.Load(ctx, s, m.cfg.Host)
		}(i, s, rt)
	}
	wg.Wait()
	m.mu.Lock()
	var subs []hooks.Subscriber
	for i, s := range specs {
		if errs[i] != nil {
			m.statuses = append(m.statuses, Status{Path: s.Path, Scope: s.Scope, Package: s.Package, State: "failed", Message: errs[i].Error()})
			continue
		}
		l := &loaded{ext: results[i], spec: s, sub: &subscriber{Extension: results[i], opts: s.Options}}
		m.loaded = append(m.loaded, l)
		m.statuses = append(m.statuses, Status{Path: s.Path, Name: l.ext.Name(), Scope: s.Scope, Package: s.Package, State: "loaded"})
		subs = append(subs, l.sub)
	}
	m.mu.Unlock()
	for i, s := range specs {
		if errs[i] != nil {
			m.cfg.Log.Warn("extension failed to load", "path", s.Path, "err", errs[i])
			m.reportLoad(s.Path, errs[i].Error())
		}
	}
	m.cfg.Bus.Add(subs...)
	m.checkConflicts()
}

func (m *Manager) runtimeFor(s *Spec) Runtime {
	for _, rt := range m.cfg.Runtimes {
		if rt.Accepts(s) {
			return rt
		}
	}
	return nil
}

// checkConflicts logs tools registered twice (the first registration
// wins). A command registered by several extensions is no conflict: each
// gets a numbered name (Commands).
func (m *Manager) checkConflicts() {
	tools := map[string]string{}
	for _, l := range m.snapshot() {
		for _, t := range l.ext.Tools() {
			if first, ok := tools[t.Name]; ok {
				m.cfg.Log.Warn(fmt.Sprintf("Tool %q of %s conflicts with %s; the first one is used", t.Name, l.spec.Path, first))
				continue
			}
			tools[t.Name] = l.spec.Path
		}
	}
}

// Reload stops every extension and loads the ones found by d (a fresh
// discovery), as at start-up. It waits until they have started.
func (m *Manager) Reload(ctx context.Context, d Discovered) error {
	if err := m.Wait(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	old := m.loaded
	m.loaded, m.statuses, m.pending = nil, nil, nil
	m.ready = make(chan struct{})
	m.mu.Unlock()
	m.unload(old)
	m.Start(d)
	return m.Wait(ctx)
}

// Wait blocks until Start has finished loading or ctx ends.
func (m *Manager) Wait(ctx context.Context) error {
	m.mu.Lock()
	ready := m.ready
	m.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ready reports whether loading has finished.
func (m *Manager) Ready() bool {
	m.mu.Lock()
	ready := m.ready
	m.mu.Unlock()
	select {
	case <-ready:
		return true
	default:
		return false
	}
}

func (m *Manager) snapshot() []*loaded {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*loaded(nil), m.loaded...)
}

// Disabler is implemented by extensions that can be disabled after
// loading (a plugin that crashed too often, a Node extension that took its
// shared process down): get_extensions reports them "disabled".
type Disabler interface {
	Disabled() error
}

// Statuses lists every extension found, in load order of discovery, with
// what happened to it.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	out := append([]Status(nil), m.statuses...)
	rank := make(map[string]int, len(m.disc.Order))
	for i, p := range m.disc.Order {
		if _, dup := rank[p]; !dup {
			rank[p] = i
		}
	}
	byPath := map[string]Extension{}
	for _, l := range m.loaded {
		byPath[l.spec.Path] = l.ext
	}
	m.mu.Unlock()
	// Statuses are recorded as extensions finish (problems and skipped
	// ones first); report them in load order. Paths the discovery did
	// not list (none today) go last, in recording order.
	sort.SliceStable(out, func(i, j int) bool {
		ri, ok := rank[out[i].Path]
		if !ok {
			ri = len(rank)
		}
		rj, ok := rank[out[j].Path]
		if !ok {
			rj = len(rank)
		}
		return ri < rj
	})
	for i := range out {
		ext, ok := byPath[out[i].Path]
		if !ok || out[i].State != "loaded" {
			continue
		}
		if d, ok := ext.(Disabler); ok {
			if err := d.Disabled(); err != nil {
				out[i].State, out[i].Message = "disabled", err.Error()
			}
		}
		out[i].Events = ext.Events()
		if rn, ok := ext.(RuntimeNamer); ok {
			out[i].Runtime = rn.RuntimeName()
		}
		if rr, ok := ext.(RuntimeReasoner); ok {
			out[i].RuntimeReason = rr.RuntimeReason()
		}
		for _, c := range ext.Commands() {
			out[i].Commands = append(out[i].Commands, c.Name)
		}
		for _, t := range ext.Tools() {
			out[i].Tools = append(out[i].Tools, t.Name)
		}
	}
	return out
}

// Cwd is the project the manager decides trust for.
func (m *Manager) Cwd() string { return m.cfg.Cwd }

// Trusted reports whether the project's extensions may run.
func (m *Manager) Trusted() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.trusted
}

// TrustProject records the project as trusted and loads its skipped
// extensions. It returns how many were loaded.
func (m *Manager) TrustProject(ctx context.Context) (int, error) {
	return m.trustProject(ctx, true)
}

// ApproveProject trusts the project for this process only (recording
// nothing; a reload keeps the trust) and loads its skipped extensions.
// It returns how many were loaded.
func (m *Manager) ApproveProject(ctx context.Context) (int, error) {
	return m.trustProject(ctx, false)
}

func (m *Manager) trustProject(ctx context.Context, record bool) (int, error) {
	if err := m.Wait(ctx); err != nil {
		return 0, err
	}
	m.mu.Lock()
	pending := m.pending
	m.pending = nil
	m.trusted = true
	m.approved = m.approved || !record
	var kept []Status
	for _, st := range m.statuses {
		if !(st.Scope == ScopeProject && st.State == "skipped" && st.Message != "disabled in settings") {
			kept = append(kept, st)
		}
	}
	m.statuses = kept
	fp := m.fp
	m.mu.Unlock()
	var err error
	if record {
		if err = trust.Record(m.cfg.AgentDir, m.cfg.Cwd, fp); err != nil {
			// The user said yes: the trust holds for this process even
			// though it could not be recorded (the error says so).
			m.mu.Lock()
			m.approved = true
			m.mu.Unlock()
		}
	}
	before := len(m.snapshot())
	m.loadAll(pending)
	return len(m.snapshot()) - before, err
}

// Approved reports whether the project was trusted for this process only
// (ApproveProject, or a TrustProject whose record failed).
func (m *Manager) Approved() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.approved
}

// Commands lists the extension commands in load order (first wins).
func (m *Manager) Commands() []CommandRef {
	var out []CommandRef
	count := map[string]int{}
	for _, l := range m.snapshot() {
		for _, c := range l.ext.Commands() {
			out = append(out, CommandRef{Spec: c, Ext: l.ext, Path: l.spec.Path})
			count[c.Name]++
		}
	}
	// A name registered by several extensions is invoked as name:1,
	// name:2… in load order, as pi 1.6 does (a suffix already taken by
	// another command moves to the next free number).
	seen := map[string]int{}
	taken := map[string]bool{}
	for i := range out {
		name := out[i].Spec.Name
		seen[name]++
		n := seen[name]
		inv := name
		if count[name] > 1 {
			inv = fmt.Sprintf("%s:%d", name, n)
		}
		for taken[inv] {
			n++
			inv = fmt.Sprintf("%s:%d", name, n)
		}
		taken[inv] = true
		out[i].Name = inv
	}
	return out
}

// Command finds a command by the name it is invoked with.
func (m *Manager) Command(name string) (CommandRef, bool) {
	for _, c := range m.Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return CommandRef{}, false
}

// Tools lists the extension tools in load order (first wins).
func (m *Manager) Tools() []ToolRef {
	var out []ToolRef
	seen := map[string]bool{}
	for _, l := range m.snapshot() {
		for _, t := range l.ext.Tools() {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			out = append(out, ToolRef{Spec: t, Ext: l.ext, Path: l.spec.Path})
		}
	}
	return out
}

// FlagRef is a flag and the path of the extension that registered it.
type FlagRef struct {
	Spec FlagSpec
	Path string
}

// Flags lists the flags every extension registered, in load order.
func (m *Manager) Flags() []FlagRef {
	var out []FlagRef
	for _, l := range m.snapshot() {
		for _, f := range l.ext.Flags() {
			out = append(out, FlagRef{Spec: f, Path: l.spec.Path})
		}
	}
	return out
}

// ProviderRef is a model provider and the path of the extension that
// registered it.
type ProviderRef struct {
	Spec ProviderSpec
	Path string
}

// Providers lists the model providers every extension registered, in load
// order (an extension that registers none, or cannot, adds nothing).
func (m *Manager) Providers() []ProviderRef {
	var out []ProviderRef
	for _, l := range m.snapshot() {
		r, ok := As[ProviderRegistrar](l.ext)
		if !ok {
			continue
		}
		for _, p := range r.Providers() {
			out = append(out, ProviderRef{Spec: p, Path: l.spec.Path})
		}
	}
	return out
}

// ProviderStream finds the extension that streams the provider's answers:
// the last registration of the name, when it streams (ProviderSpec.Streams).
func (m *Manager) ProviderStream(provider string) (ProviderStreamer, string, bool) {
	var found ProviderStreamer
	var path string
	for _, l := range m.snapshot() {
		r, ok := As[ProviderRegistrar](l.ext)
		if !ok {
			continue
		}
		for _, p := range r.Providers() {
			if p.Name != provider || p.Config == nil {
				continue
			}
			found, path = nil, ""
			if s, ok := As[ProviderStreamer](l.ext); ok && p.Streams {
				found, path = s, l.spec.Path
			}
		}
	}
	return found, path, found != nil
}

// ShortcutRef is a keyboard shortcut and the extension that registered
// it.
type ShortcutRef struct {
	Spec ShortcutSpec
	Path string
	Ext  ShortcutRunner
}

// Shortcuts lists the shortcuts every extension registered, in load order
// (an extension that registers none, or cannot, adds nothing).
func (m *Manager) Shortcuts() []ShortcutRef {
	var out []ShortcutRef
	for _, l := range m.snapshot() {
		r, ok := As[ShortcutRunner](l.ext)
		if !ok {
			continue
		}
		for _, s := range r.Shortcuts() {
			out = append(out, ShortcutRef{Spec: s, Path: l.spec.Path, Ext: r})
		}
	}
	return out
}

// Close takes every extension off the bus, stops them (in parallel) and
// waits for them.
func (m *Manager) Close() {
	_ = m.Wait(context.Background())
	m.unload(m.snapshot())
}

// unload takes extensions off the bus (which ends their notification
// goroutines and drops what is still queued for them) and closes them in
// parallel.
func (m *Manager) unload(ls []*loaded) {
	var wg sync.WaitGroup
	for _, l := range ls {
		m.cfg.Bus.Remove(l.sub)
		wg.Add(1)
		go func(e Extension) {
			defer wg.Done()
			_ = e.Close()
		}(l.ext)
	}
	wg.Wait()
}

// subscriber adds the settings' timeouts to an extension.
type subscriber struct {
	Extension
	opts Options
}

// Handlers implements hooks.HandlerSet: the bus calls each handler of an
// extension that holds several on its own and composes their results
// (-1, the extension composes them, when it cannot). The first wrapper
// in the chain that is a HandlerSet answers (a wrapper that embeds an
// Extension does not pass the interface on by itself).
func (s *subscriber) Handlers(event string) int {
	if hs, ok := As[hooks.HandlerSet](s.Extension); ok {
		return hs.Handlers(event)
	}
	return -1
}

// HandleOne implements hooks.HandlerSet.
func (s *subscriber) HandleOne(ctx context.Context, ev *hooks.Event, i int) (json.RawMessage, error) {
	if hs, ok := As[hooks.HandlerSet](s.Extension); ok {
		return hs.HandleOne(ctx, ev, i)
	}
	return s.Extension.Handle(ctx, ev)
}

var _ hooks.HandlerSet = (*subscriber)(nil)

// HandleBatch implements hooks.BatchSubscriber, using the extension's own
// batching when it has one.
func (s *subscriber) HandleBatch(ctx context.Context, evs []*hooks.Event) []error {
	return hooks.HandleBatch(ctx, s.Extension, evs)
}

// Timeout implements hooks.TimeoutProvider: settings first, then what the
// extension asked for.
func (s *subscriber) Timeout(event string) time.Duration {
	if d, ok := s.opts.Timeouts[event]; ok {
		return d
	}
	if tp, ok := s.Extension.(hooks.TimeoutProvider); ok {
		if d := tp.Timeout(event); d > 0 {
			return d
		}
	}
	if d, ok := s.opts.Timeouts["default"]; ok {
		return d
	}
	return 0
}
