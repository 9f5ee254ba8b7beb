// Package app is the composition root and the session runtime: it builds the
// model catalog, tools and session store from the configuration, and owns
// the state of the running session (model, thinking level, queues, the run
// in flight) behind the methods the front ends call.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
)

// Modes the runtime can serve.
const (
	ModeRPC   = "rpc"
	ModeJSON  = "json"
	ModePrint = "print"
)

// Options configure a runtime. Zero values mean defaults.
type Options struct {
	Cwd  string
	Mode string
	// Settings are the loaded settings; nil loads them for Cwd, the
	// project's file only when the project is trusted (see trust.go),
	// with SettingsOverrides (flag values in settings syntax) on top.
	Settings          *config.Loaded
	SettingsOverrides map[string]any

	Provider      string // --provider
	Model         string // --model
	ThinkingLevel string // --thinking

	NoSession   bool
	SessionPath string // --session: open (or create) this file
	Continue    bool   // -c: continue the latest session of the cwd
	SessionName string

	Tools   []string // --tools; nil means the defaults
	NoTools bool

	SystemPrompt       string
	AppendSystemPrompt string

	// Extensions are the -e paths; NoExtensions keeps only those.
	Extensions   []string
	NoExtensions bool
	// TrustProject trusts the project and records the trust
	// (--trust-project); see extensions.DecideProjectTrust for the rule.
	TrustProject bool
	// ExtensionFlags are command-line values of extension flags.
	ExtensionFlags map[string]string
	// ExtensionRuntimes are extra extension runtimes (scripts); plugin
	// executables are always supported.
	ExtensionRuntimes []extensions.Runtime
	// HostVersion is the agent's version, told to plugins.
	HostVersion string
	// Resources (see resources.go).
	Skills            []string // --skill paths
	PromptTemplates   []string // --prompt-template paths
	NoSkills          bool
	NoPromptTemplates bool
	NoContextFiles    bool
	// ProjectTrusted, when set, replaces the trust rule for the project's
	// own skills, templates, context files and system prompt files (tests,
	// embedders); nil applies extensions.DecideProjectTrust.
	ProjectTrusted func() bool

	Log *slog.Logger
}

// Runtime is the running agent session.
type Runtime struct {
	opts     Options
	settings config.Settings
	paths    config.Paths
	log      *slog.Logger
	catalog  *llm.Catalog
	tools    *tools.Registry
	res      resourceState

	baseCtx    context.Context
	cancelBase context.CancelFunc

	lmu       sync.Mutex
	listeners map[int]events.Sink
	nextLID   int
	sinks     []events.Sink // snapshot of listeners, replaced on change

	// qmu serialises queue changes with their queue_update events, so
	// that the last event a client sees matches the queue.
	qmu sync.Mutex

	cwd atomic.Pointer[string] // follows the session (sessions.go)

	mu           sync.Mutex
	sess         *session.Session
	lazy         *session.Plan // context not loaded yet (sessions.go)
	sessHooks    SessionHooks
	ctxRules     session.ContextRules
	model        *llm.Model
	thinking     string
	messages     []llm.Message
	steering     []queued
	followUp     []queued
	steeringMode string
	followUpMode string
	autoCompact  bool
	autoRetry    bool
	run          *activeRun    // the active run; cleared when it decides to end, just before agent_end
	last         *activeRun    // the latest run, which may still be emitting its last events
	pendingBash  []pendingBash // bash messages held while a run is in flight (bash.go)
	cmp          compactionState
	closing      bool
	prov         *provState // providers, credentials, retry (catalog.go, retry.go)

	ext       extState
	trust     trustState // project trust (trust.go)
	shutdown  shutdownState
	closeOnce sync.Once

	writes writeHealth // session file write failures (session_write.go)
}

// activeRun is one run of the agent, from the prompt that started it to
// its agent_settled event.
type activeRun struct {
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{} // closed when the agent loop has returned (after agent_end)
	settled chan struct{} // closed after agent_settled was emitted
	prev    *activeRun    // the run before; this one starts once prev settled
}

// New builds a runtime from options.
func New(opts Options) (*Runtime, error) {
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Cwd = wd
	}
	if opts.Mode == "" {
		opts.Mode = ModeRPC
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// Trust is decided before anything of the project is read.
	agentDir := config.ResolvePaths(opts.Cwd).AgentDir
	if opts.Settings != nil && opts.Settings.Paths.AgentDir != "" {
		agentDir = opts.Settings.Paths.AgentDir
	}
	trusted := decideStartTrust(agentDir, opts.Cwd, opts.TrustProject, opts.Log)
	if opts.Settings == nil {
		loaded, err := loadSettings(opts, trusted)
		if err != nil {
			return nil, err
		}
		opts.Settings = loaded
	}
	for _, d := range opts.Settings.Diagnostics {
		opts.Log.Warn("settings problem", "path", d.Path, "problem", d.Message)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rt := &Runtime{
		opts: opts, settings: opts.Settings.Settings, paths: opts.Settings.Paths, log: opts.Log,
		baseCtx: ctx, cancelBase: cancel, listeners: map[int]events.Sink{},
	}
	rt.ext.bus = hooks.New() // before anything can emit (see tapExtensions)
	rt.shutdown.ch = make(chan struct{})
	rt.steeringMode = queueMode(rt.settings.SteeringMode)
	rt.followUpMode = queueMode(rt.settings.FollowUpMode)
	rt.autoCompact = rt.settings.Compaction.Enabled
	rt.autoRetry = rt.settings.Retry.Enabled

	rt.setupCatalog() // providers, models (built-in + models.json), credentials

	active := tools.DefaultActive
	if len(rt.settings.DefaultTools) > 0 {
		active = rt.settings.DefaultTools
	}
	if opts.Tools != nil {
		active = opts.Tools
	}
	if opts.NoTools {
		active = nil
	}
	rt.tools = tools.NewRegistryWithBuiltins(active)

	rt.cwd.Store(&opts.Cwd)
	rt.ctxRules = compaction.ContextRules
	if err := rt.selectInitialModel(); err != nil {
		return nil, err
	}
	// The session decides the working directory, which the resources
	// are discovered for.
	if err := rt.openInitialSession(); err != nil {
		return nil, err
	}
	if c := rt.Cwd(); c != opts.Cwd {
		// The session works in another project: that one is judged.
		trusted = decideStartTrust(agentDir, c, opts.TrustProject, opts.Log)
	}
	rt.setTrust(rt.Cwd(), trusted)
	rt.initResources()
	rt.setupExtensions(trusted)
	return rt, nil
}

func queueMode(s string) string {
	if s == "all" {
		return "all"
	}
	return "one-at-a-time"
}

// selectInitialModel picks the model: flags, then settings, then the first
// available model, then faux.
func (rt *Runtime) selectInitialModel() error {
	provider, id := rt.opts.Provider, rt.opts.Model
	if provider == "" && id == "" {
		provider, id = rt.settings.DefaultProvider, rt.settings.DefaultModel
	}
	level := rt.settings.DefaultThinkingLevel
	if rt.opts.ThinkingLevel != "" {
		level = rt.opts.ThinkingLevel
	}
	if m, lvl, ok := rt.resolveModel(provider, id); ok {
		rt.model = &m
		if lvl != "" {
			level = lvl
		}
	} else if rt.opts.Provider != "" || rt.opts.Model != "" {
		return fmt.Errorf("model not found: %s", joinModel(provider, id))
	} else if avail := rt.catalog.Available(); len(avail) > 0 {
		m := avail[0]
		rt.model = &m
	}
	if !llm.IsThinkingLevel(level) {
		level = llm.ThinkingMedium
	}
	rt.thinking = llm.ClampThinkingLevel(rt.model, level)
	rt.prov.wantThinking = level
	return nil
}

func joinModel(provider, id string) string {
	if provider == "" {
		return id
	}
	return provider + "/" + id
}

// resolveModel finds a model from a provider and a pattern that may be
// "provider/id" or "id:thinking".
func (rt *Runtime) resolveModel(provider, id string) (llm.Model, string, bool) {
	if id == "" && provider == "" {
		return llm.Model{}, "", false
	}
	level := ""
	if i := lastColon(id); i >= 0 && llm.IsThinkingLevel(id[i+1:]) {
		id, level = id[:i], id[i+1:]
	}
	if provider == "" {
		for i := 0; i < len(id); i++ {
			if id[i] == '/' {
				if m, ok := rt.catalog.Find(id[:i], id[i+1:]); ok {
					return m, level, true
				}
				break
			}
		}
		for _, m := range rt.catalog.Available() {
			if m.ID == id {
				return m, level, true
			}
		}
		return llm.Model{}, "", false
	}
	if id == "" {
		for _, m := range rt.catalog.Available() {
			if m.Provider == provider {
				return m, level, true
			}
		}
		return llm.Model{}, "", false
	}
	m, ok := rt.catalog.Find(provider, id)
	return m, level, ok
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}

// Subscribe adds an event listener and returns a function that removes it.
// Listeners are called synchronously from the emitting goroutine, in the
// order they subscribed, and must not block for long.
func (rt *Runtime) Subscribe(fn events.Sink) func() {
	rt.lmu.Lock()
	id := rt.nextLID
	rt.nextLID++
	rt.listeners[id] = fn
	rt.resnapshotLocked()
	rt.lmu.Unlock()
	rt.flushEarly(fn)
	return func() {
		rt.lmu.Lock()
		delete(rt.listeners, id)
		rt.resnapshotLocked()
		rt.lmu.Unlock()
	}
}

func (rt *Runtime) resnapshotLocked() {
	ids := make([]int, 0, len(rt.listeners))
	for id := range rt.listeners {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	sinks := make([]events.Sink, len(ids))
	for i, id := range ids {
		sinks[i] = rt.listeners[id]
	}
	rt.sinks = sinks
}

// Emit sends an event to every listener. No lock is held while listeners
// run, so a listener that blocks (a client not reading) cannot stall
// Subscribe or other emitters.
func (rt *Runtime) Emit(ev events.Event) {
	rt.tapExtensions(ev)
	rt.lmu.Lock()
	sinks := rt.sinks
	rt.lmu.Unlock()
	for _, fn := range sinks {
		fn(ev)
	}
}

// Mode returns the mode the runtime serves.
func (rt *Runtime) Mode() string { return rt.opts.Mode }

// Cwd returns the working directory (the session's, see sessions.go).
func (rt *Runtime) Cwd() string { return *rt.cwd.Load() }

// Log returns the runtime's logger (stderr or a log file).
func (rt *Runtime) Log() *slog.Logger { return rt.log }

// ErrClosing is returned for prompts that arrive while the runtime shuts
// down.
var ErrClosing = errors.New("The agent is shutting down")

// Close rejects new runs, aborts work in flight and waits for it to stop.
// It may be called more than once.
func (rt *Runtime) Close() {
	rt.mu.Lock()
	rt.closing = true
	rt.mu.Unlock()
	rt.Abort()
	rt.cancelBase()
	// The start-up discovery may still be writing (the built-in skills'
	// cache): let it finish before the caller removes directories.
	rt.waitResources()
	rt.closeOnce.Do(func() {
		rt.closeSession() // session_shutdown (reason quit) goes to extensions
		rt.closeExtensions()
	})
}

// systemPrompt builds the system prompt for the current tools and
// resources (cached; see resources.go).
func (rt *Runtime) systemPrompt() string { return rt.cachedSystemPrompt() }
