// Package app is the composition root and the session runtime. The root
// (New, build.go) builds the model catalog, tools, session store,
// resources, MCP and extensions from the configuration, once; the runtime
// (the other files) owns the state of the running session (model, thinking
// level, queues, the run in flight) behind the methods the front ends
// call.
package app

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
)

// Modes the runtime can serve.
const (
	ModeRPC   = "rpc"
	ModeJSON  = "json"
	ModePrint = "print"
	// ModeACP is the Agent Client Protocol front end (host/acp); like RPC
	// mode it serves a client that answers extension dialogs.
	ModeACP = "acp"
	// ModeTUI is the interactive terminal (host/tui): the user answers
	// extension dialogs there.
	ModeTUI = "tui"
)

// servesClient reports whether a front end with a user interface drives
// the runtime (dialogs are shown, extension commands run in the
// background).
func (rt *Runtime) servesClient() bool {
	return rt.opts.Mode == ModeRPC || rt.opts.Mode == ModeACP || rt.opts.Mode == ModeTUI
}

// Runtime is the running agent session.
//
// Lock order (outer first; a goroutine holding one may take only those
// below it):
//
//  1. queue.change: a change of the queues and its queue_update event
//     (may hold mu briefly, then emits; queue.go);
//  2. prov.loadMu: reloading models.json (takes mu to swap the catalog);
//  3. mcp.mu: handing the servers to the MCP manager (asks trust.mu);
//  4. mu: the session state. Never held while events are emitted or
//     extensions or providers are called (it is held while the session
//     file is appended to and while a lazily opened session's context is
//     read from it);
//  5. leaf locks, each held only for its own fields and never while
//     another lock is taken: lmu (listeners), queue.mu (taken under mu
//     where the queues are read or changed with the session state),
//     trust.mu, res.mu, pkgs.mu, writes.mu, ext.uiMu, ext.turnMu,
//     ext.nextTurnMu, ext.earlyMu, ext.virtual.mu (which takes the
//     session's read lock).
//
// (Checked by reading every Lock of the package and every call made while
// a lock is held, 2026-12-01.) Listeners run with no lock held (Emit).
type Runtime struct {
	opts     Options
	settings config.Settings
	paths    config.Paths
	log      *slog.Logger
	catalog  *llm.Catalog
	tools    *tools.Registry
	res      resourceState
	pkgs     pkgState

	baseCtx    context.Context
	cancelBase context.CancelFunc

	lmu       sync.Mutex
	listeners map[int]events.Sink
	nextLID   int
	sinks     []events.Sink // snapshot of listeners, replaced on change

	// queue holds the steering and follow-up queues, their modes and the
	// pause, under locks of its own (queue.go).
	queue *messageQueues

	cwd atomic.Pointer[string] // follows the session (sessions.go)

	mu          sync.Mutex
	sess        *session.Session
	lazy        *session.Plan // context not loaded yet (sessions.go)
	sessHooks   SessionHooks
	ctxRules    session.ContextRules
	model       *llm.Model
	thinking    string
	messages    []llm.Message
	autoCompact bool
	autoRetry   bool
	run         *activeRun    // the active run; cleared when it decides to end, just before agent_end
	last        *activeRun    // the latest run, which may still be emitting its last events
	pendingBash []pendingBash // bash messages held while a run is in flight (bash.go)
	cmp         compactionState
	closing     bool
	// importCancel ends the copy of an import_session in progress
	// (abort, shutdown).
	importCancel context.CancelFunc
	prov         *provState // providers, credentials, retry (catalog.go, retry.go)

	ext       extState
	mcp       mcpState   // MCP servers (mcp.go)
	trust     trustState // project trust (trust.go)
	shutdown  shutdownState
	closeOnce sync.Once

	writes writeHealth // session file write failures (session_write.go)

	// toolFiles and toolRunner, when set by a front end, take the place
	// of the disk and the local shell for the file tools and bash.
	toolFiles  tools.Files
	toolRunner tools.CommandRunner
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

// Settings returns the settings the runtime started with.
func (rt *Runtime) Settings() config.Settings { return rt.settings }

// SetToolBackends makes the file tools (read, write, edit) work on files
// and bash run its commands with runner, from the next run on (nil: the
// disk, the local shell). A front end whose client holds the files or
// the terminal (ACP) sets them.
func (rt *Runtime) SetToolBackends(files tools.Files, runner tools.CommandRunner) {
	rt.mu.Lock()
	rt.toolFiles, rt.toolRunner = files, runner
	rt.mu.Unlock()
}

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
		rt.closeMCP()
	})
}

// systemPrompt builds the system prompt for the current tools and
// resources (cached; see resources.go).
func (rt *Runtime) systemPrompt() string { return rt.cachedSystemPrompt() }
