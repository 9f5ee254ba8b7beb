package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
)

// UI shows extension dialogs and notifications to the user (the RPC
// extension UI sub-protocol). Without one, dialogs resolve to their
// defaults at once.
type UI interface {
	Request(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error)
}

// extState is the runtime's extension part.
type extState struct {
	bus   *hooks.Bus
	mgr   *extensions.Manager
	ready chan struct{}

	uiMu sync.RWMutex
	ui   UI

	turnMu    sync.Mutex
	turnIndex int

	nextTurnMu sync.Mutex
	nextTurn   []llm.Message

	earlyMu   sync.Mutex
	early     []events.Event
	earlyDone bool
}

// setupExtensions discovers and starts extensions in the background.
func (rt *Runtime) setupExtensions() {
	rt.ext.bus = hooks.New()
	rt.ext.bus.Log = rt.log
	rt.ext.bus.OnError = rt.reportExtensionError
	rt.ext.ready = make(chan struct{})
	runtimes := append([]extensions.Runtime{&grpcext.Runtime{Log: rt.log, HostVersion: rt.opts.HostVersion, FlagValues: rt.opts.ExtensionFlags}}, rt.opts.ExtensionRuntimes...)
	rt.ext.mgr = extensions.NewManager(extensions.Config{
		Bus: rt.ext.bus, Host: &extHost{rt: rt}, Runtimes: runtimes, Log: rt.log,
		AgentDir: rt.paths.AgentDir, Cwd: rt.opts.Cwd, TrustProject: rt.opts.TrustProject,
		DefaultTrust: rt.settings.DefaultProjectTrust, OnError: rt.reportExtensionError,
	})
	d := extensions.Discover(extensions.DiscoverOptions{
		AgentDir: rt.paths.AgentDir, Cwd: rt.opts.Cwd, CLI: rt.opts.Extensions, NoExtensions: rt.opts.NoExtensions,
	})
	rt.ext.mgr.Start(d)
	go func() {
		_ = rt.ext.mgr.Wait(context.Background())
		rt.registerExtensionTools()
		close(rt.ext.ready)
		rt.ext.bus.Notify(hooks.SessionStart, hooks.SessionStartEvent{Reason: "startup"})
	}()
}

func (rt *Runtime) reportExtensionError(e hooks.ExtensionError) {
	rt.log.Warn("extension error", "extension", e.ExtensionPath, "event", e.Event, "error", e.Error)
	ev := events.ExtensionError{ExtensionPath: e.ExtensionPath, Event: e.Event, Error: e.Error}
	// Load errors can happen before the front end listens: keep them for
	// the first listener.
	rt.lmu.RLock()
	none := len(rt.listeners) == 0
	rt.lmu.RUnlock()
	if none {
		rt.ext.earlyMu.Lock()
		if !rt.ext.earlyDone {
			rt.ext.early = append(rt.ext.early, ev)
			rt.ext.earlyMu.Unlock()
			return
		}
		rt.ext.earlyMu.Unlock()
	}
	rt.Emit(ev)
}

// flushEarly hands errors reported before anyone listened to the first
// listener.
func (rt *Runtime) flushEarly(fn events.Sink) {
	rt.ext.earlyMu.Lock()
	early := rt.ext.early
	rt.ext.early, rt.ext.earlyDone = nil, true
	rt.ext.earlyMu.Unlock()
	for _, ev := range early {
		fn(ev)
	}
}

// registerExtensionTools offers extension tools to the model; a tool named
// like a built-in replaces it.
func (rt *Runtime) registerExtensionTools() {
	for _, ref := range rt.ext.mgr.Tools() {
		rt.tools.Add(&extensions.Tool{Ref: ref}, true)
	}
}

// extReady waits until the extensions have started (bounded, so that a
// stuck start never blocks a command forever).
func (rt *Runtime) extReady() {
	select {
	case <-rt.ext.ready:
	case <-time.After(extensions.StartTimeout + 5*time.Second):
		rt.log.Warn("extensions are still starting; continuing without waiting")
	}
}

// SetUI connects the extension UI (RPC mode).
func (rt *Runtime) SetUI(ui UI) {
	rt.ext.uiMu.Lock()
	rt.ext.ui = ui
	rt.ext.uiMu.Unlock()
}

func (rt *Runtime) uiRequest(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	rt.ext.uiMu.RLock()
	ui := rt.ext.ui
	rt.ext.uiMu.RUnlock()
	if ui == nil || rt.opts.Mode != ModeRPC {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	return ui.Request(ctx, method, params)
}

// Hooks returns the hook bus (for front ends and other runtimes).
func (rt *Runtime) Hooks() *hooks.Bus { return rt.ext.bus }

// Extensions returns the extension manager.
func (rt *Runtime) Extensions() *extensions.Manager { return rt.ext.mgr }

// ExtensionStatuses lists every extension found and what became of it.
func (rt *Runtime) ExtensionStatuses() []extensions.Status {
	rt.extReady()
	return rt.ext.mgr.Statuses()
}

// TrustProject trusts the project and loads its extensions.
func (rt *Runtime) TrustProject(ctx context.Context) (int, error) {
	rt.extReady()
	n, err := rt.ext.mgr.TrustProject(ctx)
	if err != nil {
		return 0, err
	}
	rt.registerExtensionTools()
	return n, nil
}

// CommandInfo is one entry of get_commands.
type CommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
	Location    string `json:"location,omitempty"`
	Path        string `json:"path,omitempty"`
	// HasArgumentCompletions is set when get_command_completions answers.
	HasArgumentCompletions bool           `json:"hasArgumentCompletions,omitempty"`
	SourceInfo             *CommandSource `json:"sourceInfo,omitempty"`
}

// CommandSource is the sourceInfo object newer clients read.
type CommandSource struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	Scope  string `json:"scope"`
	Origin string `json:"origin"`
}

// ExtensionCommands lists the commands extensions registered, in load order.
func (rt *Runtime) ExtensionCommands() []CommandInfo {
	rt.extReady()
	var out []CommandInfo
	scopes := map[string]string{}
	for _, st := range rt.ext.mgr.Statuses() {
		scopes[st.Path] = st.Scope
	}
	for _, c := range rt.ext.mgr.Commands() {
		out = append(out, CommandInfo{
			Name: c.Spec.Name, Description: c.Spec.Description, Source: "extension", Path: c.Path,
			HasArgumentCompletions: c.Spec.HasCompletions,
			SourceInfo:             &CommandSource{Path: c.Path, Source: "extension", Scope: scopes[c.Path], Origin: "top-level"},
		})
	}
	return out
}

// CommandCompletions asks the extension that owns a command for argument
// completions; nil when the command is unknown or has no completer.
func (rt *Runtime) CommandCompletions(ctx context.Context, name, prefix string) []extensions.Completion {
	rt.extReady()
	ref, ok := rt.ext.mgr.Command(name)
	if !ok || !ref.Spec.HasCompletions {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	items, none, err := ref.Ext.Complete(ctx, name, prefix)
	if err != nil {
		rt.reportExtensionError(hooks.ExtensionError{ExtensionPath: ref.Path, Event: "command_completions", Error: err.Error()})
		return nil
	}
	if none {
		return nil
	}
	return items
}

// splitCommand parses "/name args".
func splitCommand(text string) (name, args string, ok bool) {
	if len(text) < 2 || text[0] != '/' {
		return "", "", false
	}
	rest := text[1:]
	for i, c := range rest {
		if c == ' ' || c == '\t' || c == '\n' {
			return rest[:i], trimLeftSpace(rest[i+1:]), true
		}
	}
	return rest, "", true
}

func trimLeftSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// runExtensionCommand runs "/name args" when an extension registered name.
// It reports whether the text was an extension command.
func (rt *Runtime) runExtensionCommand(text string) bool {
	name, args, ok := splitCommand(text)
	if !ok {
		return false
	}
	rt.extReady()
	ref, found := rt.ext.mgr.Command(name)
	if !found {
		return false
	}
	if err := ref.Ext.RunCommand(rt.baseCtx, name, args); err != nil && !errors.Is(err, context.Canceled) {
		rt.reportExtensionError(hooks.ExtensionError{ExtensionPath: "command:" + name, Event: "command", Error: err.Error()})
	}
	return true
}

// IsExtensionCommand reports whether text invokes an extension command
// (steer and follow_up refuse those).
func (rt *Runtime) IsExtensionCommand(text string) bool {
	name, _, ok := splitCommand(text)
	if !ok {
		return false
	}
	rt.extReady()
	_, found := rt.ext.mgr.Command(name)
	return found
}

// closeExtensions sends session_shutdown and stops every extension.
func (rt *Runtime) closeExtensions() {
	select {
	case <-rt.ext.ready:
	default:
		_ = rt.ext.mgr.Wait(context.Background())
	}
	rt.ext.bus.Notify(hooks.SessionShutdown, hooks.SessionShutdownEvent{Reason: "quit"})
	rt.ext.bus.Flush(3 * time.Second)
	rt.ext.mgr.Close()
}

// beforeSessionSwitch asks extensions whether the session may be replaced
// (new, resume); true means cancelled.
func (rt *Runtime) beforeSessionSwitch(reason, target string) bool {
	rt.extReady()
	r := rt.ext.bus.Before(rt.baseCtx, hooks.SessionBeforeSwitch, hooks.SessionBeforeSwitchEvent{Reason: reason, TargetSessionFile: target})
	return r.Cancel
}

// beforeSessionFork asks extensions whether a fork ("before") or clone
// ("at") may happen; true means cancelled.
func (rt *Runtime) beforeSessionFork(entryID, position string) bool {
	rt.extReady()
	r := rt.ext.bus.Before(rt.baseCtx, hooks.SessionBeforeFork, hooks.SessionBeforeForkEvent{EntryID: entryID, Position: position})
	return r.Cancel
}

// sessionReplaced tells extensions that the session was replaced: the old
// one shut down and the new one started.
func (rt *Runtime) sessionReplaced(reason, previousFile, targetFile string) {
	rt.ext.bus.Notify(hooks.SessionShutdown, hooks.SessionShutdownEvent{Reason: reason, TargetSessionFile: targetFile})
	rt.ext.bus.Notify(hooks.SessionStart, hooks.SessionStartEvent{Reason: reason, PreviousSessionFile: previousFile})
}

// Commands lists every slash command a client may send with prompt:
// extension commands first (templates and skills follow when loaded).
func (rt *Runtime) Commands() []CommandInfo {
	return rt.ExtensionCommands()
}
