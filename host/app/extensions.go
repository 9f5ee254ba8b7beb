package app

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/resources"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/host/trust"
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
	// started is closed once the start-up session_start has been
	// delivered (or given up on): as in pi, no extension command runs
	// before it.
	started chan struct{}

	uiMu sync.RWMutex
	ui   UI

	// promptMu guards the span of dialogs waiting for the user
	// (ui_prompt_start … ui_prompt_end): overlapping dialogs make one.
	promptMu   sync.Mutex
	prompts    int
	promptSpan hooks.UIPromptEvent

	turnMu      sync.Mutex
	turnIndex   int
	turnEntries []turnEntry // the message entries of the turn in progress
	lastLevel   string      // for thinking_level_select's previousLevel

	nextTurnMu sync.Mutex
	nextTurn   []llm.Message

	earlyMu   sync.Mutex
	early     []events.Event
	earlyDone bool

	// reloads counts extension reloads: a command whose extension was
	// reloaded under it (ctx.reload) ends quietly.
	reloads atomic.Int64

	// virtual is the router state of virtual models found on the
	// session branch (virtual.go).
	virtual virtualStates
}

// The methods below each take one of extState's leaf locks for its own
// fields only.

func (e *extState) setUI(ui UI) {
	e.uiMu.Lock()
	e.ui = ui
	e.uiMu.Unlock()
}

func (e *extState) currentUI() UI {
	e.uiMu.RLock()
	defer e.uiMu.RUnlock()
	return e.ui
}

// turn returns the index of the turn in progress; next counts it as
// ended (turn_end) and returns its index.
func (e *extState) turn(next bool) int {
	e.turnMu.Lock()
	defer e.turnMu.Unlock()
	idx := e.turnIndex
	if next {
		e.turnIndex++
	}
	return idx
}

// turnEntry is a message entry the turn in progress appended.
type turnEntry struct{ role, id string }

// noteTurnEntry records a message entry of the turn in progress (for
// turn_end's messageEntryId and toolResultEntryIds).
func (e *extState) noteTurnEntry(role, id string) {
	e.turnMu.Lock()
	e.turnEntries = append(e.turnEntries, turnEntry{role, id})
	e.turnMu.Unlock()
}

// takeTurnEntries returns the turn's message entries and starts a new
// list.
func (e *extState) takeTurnEntries() []turnEntry {
	e.turnMu.Lock()
	defer e.turnMu.Unlock()
	out := e.turnEntries
	e.turnEntries = nil
	return out
}

// resetTurns starts the count of a run's turns again (agent_start).
func (e *extState) resetTurns() {
	e.turnMu.Lock()
	e.turnIndex = 0
	e.turnMu.Unlock()
}

// swapLevel records the thinking level and returns the one before.
func (e *extState) swapLevel(level string) (prev string) {
	e.turnMu.Lock()
	defer e.turnMu.Unlock()
	prev, e.lastLevel = e.lastLevel, level
	return prev
}

// holdNextTurn keeps a message for the next prompt (deliverAs
// "nextTurn").
func (e *extState) holdNextTurn(msg llm.Message) {
	e.nextTurnMu.Lock()
	e.nextTurn = append(e.nextTurn, msg)
	e.nextTurnMu.Unlock()
}

// takeNextTurn returns the messages held for the next prompt.
func (e *extState) takeNextTurn() []llm.Message {
	e.nextTurnMu.Lock()
	defer e.nextTurnMu.Unlock()
	out := e.nextTurn
	e.nextTurn = nil
	return out
}

// keepEarly keeps an event for the first listener and reports whether it
// did (false once that listener came).
func (e *extState) keepEarly(ev events.Event) bool {
	e.earlyMu.Lock()
	defer e.earlyMu.Unlock()
	if e.earlyDone {
		return false
	}
	e.early = append(e.early, ev)
	return true
}

// takeEarly returns the kept events; from then on none are kept.
func (e *extState) takeEarly() []events.Event {
	e.earlyMu.Lock()
	defer e.earlyMu.Unlock()
	early := e.early
	e.early, e.earlyDone = nil, true
	return early
}

func (rt *Runtime) discoverExtensions() extensions.Discovered {
	cli, pkgs := packageExtensions(rt.packagesNow())
	all, _ := rt.cliExtensions()
	return extensions.Discover(extensions.DiscoverOptions{
		AgentDir: rt.paths.AgentDir, Cwd: rt.Cwd(), CLI: all, NoExtensions: rt.opts.NoExtensions,
		CLIPackages: cli, Packages: pkgs,
	})
}

// resourcesDiscover collects the skill and template paths extensions
// return from resources_discover.
func (rt *Runtime) resourcesDiscover(ctx context.Context, reason string) (skills, templates []string) {
	if !rt.ext.bus.Has(hooks.ResourcesDiscover) {
		return nil, nil
	}
	for _, raw := range rt.ext.bus.Call(ctx, hooks.ResourcesDiscover, hooks.ResourcesDiscoverEvent{Cwd: rt.Cwd(), Reason: reason}) {
		var r hooks.ResourcesDiscoverResult
		if json.Unmarshal(raw, &r) == nil {
			skills = append(skills, r.SkillPaths...)
			templates = append(templates, r.PromptPaths...)
		}
	}
	return skills, templates
}

// reloadExtensions reloads the extensions around a reload: the old ones
// get session_shutdown (reason "reload") and stop, a fresh discovery is
// loaded (new, changed and removed extensions take effect), and the new
// ones get session_start (reason "reload").
func (rt *Runtime) reloadExtensions(ctx context.Context, phase string) error {
	rt.extReady()
	switch phase {
	case ReloadShutdown:
		rt.ext.reloads.Add(1)
		rt.ext.bus.Notify(hooks.SessionShutdown, hooks.SessionShutdownEvent{Reason: "reload"})
		rt.ext.bus.Flush(3 * time.Second)
		rt.unregisterExtensionTools()
		err := rt.ext.mgr.Reload(ctx, rt.discoverExtensions())
		// Reload decides trust again (a changed extension file asks
		// again); the resources discovered next follow the decision.
		rt.setTrust(rt.ext.mgr.Cwd(), rt.ext.mgr.Trusted())
		rt.applyExtensionRegistrations()
		return err
	case ReloadStart:
		rt.ext.bus.Notify(hooks.SessionStart, hooks.SessionStartEvent{Reason: "reload"})
	}
	return nil
}

func (rt *Runtime) reportExtensionError(e hooks.ExtensionError) {
	rt.log.Warn("extension error", "extension", e.ExtensionPath, "event", e.Event, "error", e.Error)
	ev := events.ExtensionError{ExtensionPath: e.ExtensionPath, Event: e.Event, Error: e.Error}
	// Load errors can happen before the front end listens: keep them for
	// the first listener.
	rt.lmu.Lock()
	none := len(rt.listeners) == 0
	rt.lmu.Unlock()
	if none && rt.ext.keepEarly(ev) {
		return
	}
	rt.Emit(ev)
}

// flushEarly hands errors reported before anyone listened to the first
// listener.
func (rt *Runtime) flushEarly(fn events.Sink) {
	for _, ev := range rt.ext.takeEarly() {
		fn(ev)
	}
}

// applyExtensionRegistrations makes what the extensions have registered
// take effect, after loading, a reload, or a registration from a handler:
// handlers for events the extension did not handle before (pi.on after
// loading) are called from the next event on; tools are offered to the
// model (a tool named like a built-in replaces it; a tool an extension
// registers again keeps its active state); the providers join the
// catalogue.
func (rt *Runtime) applyExtensionRegistrations() {
	defer rt.applyExtensionProviders()
	rt.ext.bus.Refresh()
	for _, ref := range rt.ext.mgr.Tools() {
		name := ref.Spec.Name
		active := ref.Spec.ActiveOnRegistration()
		if t, ok := rt.tools.Get(name); ok {
			if et, ok := t.(*extensions.Tool); ok && et.Ref.Ext == ref.Ext {
				if reflect.DeepEqual(et.Ref.Spec, ref.Spec) {
					continue
				}
				// (A tool registered again as hidden is withdrawn.)
				active = rt.tools.IsActive(name) && ref.Spec.Exposure != tools.ExposureHidden
			}
		}
		rt.tools.Add(&extensions.Tool{Ref: ref, Timeout: rt.settings.Timeouts.ToolTimeout()}, active)
	}
}

// RefreshExtensionTools implements extensions.ToolRefresher.
func (h *extHost) RefreshExtensionTools() { h.rt.applyExtensionRegistrations() }

var _ extensions.ToolRefresher = (*extHost)(nil)

// unregisterExtensionTools removes extension tools, putting back the
// built-in tools they replaced (with their active state).
func (rt *Runtime) unregisterExtensionTools() {
	builtins := map[string]tools.Tool{}
	for _, t := range tools.Builtins() {
		builtins[t.Name()] = t
	}
	for _, ref := range rt.ext.mgr.Tools() {
		name := ref.Spec.Name
		active := rt.tools.IsActive(name)
		rt.tools.Remove(name)
		if b, ok := builtins[name]; ok {
			rt.tools.Add(b, active)
		}
	}
}

// extReadyLimit bounds extReady's wait: the start of each extension is
// bounded by extensions.StartTimeout, but the work before it (resolving
// packages, reading a Node extension's import graph) is not, and takes
// many seconds on a busy machine. As pi (which answers nothing before its
// extensions are loaded) a command waits for them; only a start that is
// stuck beyond all of that is given up on.
var extReadyLimit = 5 * time.Minute

// extReady waits until the extensions have started (bounded by
// extReadyLimit, so that a stuck start never blocks a command forever).
func (rt *Runtime) extReady() {
	select {
	case <-rt.ext.ready:
		return
	case <-time.After(extensions.StartTimeout + 5*time.Second):
		rt.log.Warn("extensions are still starting; waiting for them")
	}
	select {
	case <-rt.ext.ready:
	case <-time.After(extReadyLimit):
		rt.log.Warn("extensions are still starting; continuing without waiting")
	}
}

// extStarted waits until the start-up session_start has been delivered
// to every extension (or given up on: the delivery is bounded by the hook
// deadlines, and the wait by extReadyLimit).
func (rt *Runtime) extStarted() {
	select {
	case <-rt.ext.started:
	case <-time.After(extReadyLimit):
		rt.log.Warn("session_start is still being handled; continuing without waiting")
	}
}

// Hooks returns the hook bus (for front ends and other runtimes).
func (rt *Runtime) Hooks() *hooks.Bus { return rt.ext.bus }

// Extensions returns the extension manager.
func (rt *Runtime) Extensions() *extensions.Manager { return rt.ext.mgr }

// ProjectTrusted reports whether the extension manager trusts the
// project.
func (rt *Runtime) ProjectTrusted() bool { return rt.ext.mgr.Trusted() }

// ExtensionFlags lists the flags the extensions registered, once they
// have loaded.
func (rt *Runtime) ExtensionFlags() []extensions.FlagRef {
	rt.extReady()
	return rt.ext.mgr.Flags()
}

// ExtensionStatuses lists every extension found and what became of it,
// once the start-up session_start has been handled (so that what it
// registers is listed, as in pi).
func (rt *Runtime) ExtensionStatuses() []extensions.Status {
	rt.extReady()
	rt.extStarted()
	return rt.ext.mgr.Statuses()
}

// TrustProject trusts the project (records the trust), loads its
// extensions and discovers its skills, templates, context files and
// system prompt files again, so they are used at once. Its settings file
// is read from the next start. After a switch_session into another
// directory, that directory is trusted as well.
func (rt *Runtime) TrustProject(ctx context.Context) (int, error) {
	rt.extReady()
	n, err := rt.ext.mgr.TrustProject(ctx)
	if err != nil {
		return 0, err
	}
	cwd := rt.ext.mgr.Cwd()
	if cur := rt.Cwd(); cur != cwd {
		// The session moved to another directory (switch_session): trust
		// that one too, so that its resources are used; its extensions
		// load when the agent is started there.
		if err := trust.Record(rt.agentDir(), cur, extensions.ProjectFingerprint(rt.agentDir(), cur)); err != nil {
			return n, err
		}
		cwd = cur
	}
	rt.setTrust(cwd, true)
	rt.applyExtensionRegistrations()
	rt.applyMCP() // the project's mcp.json
	rt.RediscoverResources(ctx, "startup")
	return n, nil
}

// extCommands lists and completes extension commands for get_commands
// and get_command_completions (app.CommandProvider).
type extCommands struct{ rt *Runtime }

// Commands implements CommandProvider.
func (c extCommands) Commands() []SlashCommand {
	rt := c.rt
	rt.extReady()
	infos := map[string]resources.SourceInfo{}
	for _, st := range rt.ext.mgr.Statuses() {
		info := resources.SourceInfo{Path: st.Path, Source: "extension", Scope: st.Scope, Origin: resources.OriginTopLevel}
		if p := st.Package; p != nil && st.Scope != extensions.ScopeTemporary {
			info = resources.SourceInfo{Path: st.Path, Source: p.Source, Scope: p.Scope, Origin: resources.OriginPackage, BaseDir: p.Root}
		} else if st.Scope == extensions.ScopeTemporary {
			// -e's own, a package's extension too (as pi 1.6 names it).
			info.Source = resources.SourceCLI
		}
		infos[st.Path] = info
	}
	var out []SlashCommand
	for _, cmd := range rt.ext.mgr.Commands() {
		info := infos[cmd.Path]
		info.Path = cmd.Path
		out = append(out, SlashCommand{
			Name: cmd.Name, Description: cmd.Spec.Description, Source: "extension", Path: cmd.Path,
			HasArgumentCompletions: cmd.Spec.HasCompletions,
			SourceInfo:             &info,
		})
	}
	return out
}

// Completions implements CommandProvider: the extension that owns the
// command is asked; errors are reported and mean no completions.
func (c extCommands) Completions(ctx context.Context, name, prefix string) ([]Completion, bool) {
	rt := c.rt
	rt.extReady()
	ref, ok := rt.ext.mgr.Command(name)
	if !ok || !ref.Spec.HasCompletions {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	items, none, err := ref.Ext.Complete(ctx, ref.Spec.Name, prefix)
	if err != nil {
		rt.reportExtensionError(hooks.ExtensionError{ExtensionPath: ref.Path, Event: "command_completions", Error: err.Error()})
		return nil, false
	}
	if none {
		return nil, false
	}
	out := []Completion{}
	for _, it := range items {
		out = append(out, Completion{Value: it.Value, Label: it.Label, Description: it.Description})
	}
	return out, true
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

// extensionCommand returns a function that runs "/name args" when an
// extension registered name (nil otherwise). The function runs the
// command to completion; its failures are extension_error events. A front
// end that serves other requests meanwhile runs it off its request lane
// (RPC answers the prompt when it returns, as pi 1.6 does).
func (rt *Runtime) extensionCommand(text string) func() {
	name, args, ok := splitCommand(text)
	if !ok {
		return nil
	}
	rt.extReady()
	ref, found := rt.ext.mgr.Command(name)
	if !found {
		return nil
	}
	run := func() {
		// pi runs no command before session_start has been handled (an
		// extension sets up there what its commands use).
		rt.extStarted()
		gen := rt.ext.reloads.Load()
		err := ref.Ext.RunCommand(rt.baseCtx, ref.Spec.Name, args)
		if err != nil && rt.ext.reloads.Load() != gen {
			// The command reloaded its extension (ctx.reload): the
			// instance that ran it is gone, which is not the command's
			// failure.
			rt.log.Info("a command's extension was reloaded while it ran", "command", name, "err", err)
			return
		}
		if err != nil && rt.baseCtx.Err() == nil {
			rt.reportExtensionError(hooks.ExtensionError{ExtensionPath: "command:" + name, Event: "command", Error: err.Error()})
		}
	}
	return run
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

// closeExtensions delivers the pending notifications (session_shutdown
// was sent by closeSession) and stops every extension.
func (rt *Runtime) closeExtensions() {
	select {
	case <-rt.ext.ready:
	default:
		_ = rt.ext.mgr.Wait(context.Background())
	}
	rt.ext.bus.Flush(3 * time.Second)
	rt.ext.mgr.Close()
}

// installSessionHooks connects the session commands to the bus:
// session_before_switch / _fork / _tree may cancel new_session,
// switch_session, import_session, fork, clone and navigate_tree (which
// then answer {"cancelled": true}); session_shutdown and session_start
// tell extensions about every replacement, with its reason.
func (rt *Runtime) installSessionHooks() {
	bus := rt.ext.bus
	rt.SetSessionHooks(SessionHooks{
		BeforeSwitch: func(ctx context.Context, ev SessionSwitchEvent) bool {
			rt.extReady()
			return bus.Before(ctx, hooks.SessionBeforeSwitch, hooks.SessionBeforeSwitchEvent{Reason: ev.Reason, TargetSessionFile: ev.TargetSessionFile}).Cancel
		},
		BeforeFork: func(ctx context.Context, ev SessionForkEvent) bool {
			rt.extReady()
			return bus.Before(ctx, hooks.SessionBeforeFork, hooks.SessionBeforeForkEvent{EntryID: ev.EntryID, Position: ev.Position}).Cancel
		},
		BeforeTree: func(ctx context.Context, ev TreeEvent) TreeDecision {
			rt.extReady()
			if !bus.Has(hooks.SessionBeforeTree) {
				return TreeDecision{}
			}
			entries := ev.EntriesToSummarize
			if entries == nil {
				entries = []*session.Entry{}
			}
			p := hooks.TreePreparation{TargetID: ev.TargetID, OldLeafID: nonEmpty(ev.OldLeaf), CommonAncestorID: nonEmpty(ev.CommonAncestor),
				EntriesToSummarize: entries, UserWantsSummary: ev.UserWantsSummary,
				CustomInstructions: ev.CustomInstructions, Label: ev.Label}
			if ev.ReplaceInstructions {
				p.ReplaceInstructions = &ev.ReplaceInstructions
			}
			r := bus.Before(ctx, hooks.SessionBeforeTree, hooks.SessionBeforeTreeEvent{Preparation: p})
			d := TreeDecision{Cancel: r.Cancel}
			if !r.Cancel && r.Raw != nil {
				var x hooks.SessionBeforeTreeResult
				if err := json.Unmarshal(r.Raw, &x); err == nil {
					if x.Summary != nil && x.Summary.Summary != nil {
						d.Summary = x.Summary.Summary
						d.Details, _ = x.Summary.Details.(map[string]any)
					}
					d.CustomInstructions, d.ReplaceInstructions, d.Label = x.CustomInstructions, x.ReplaceInstructions, x.Label
				}
			}
			return d
		},
		AfterTree: func(ev TreeMoved) {
			if !bus.Has(hooks.SessionTree) {
				return
			}
			m := hooks.SessionTreeEvent{NewLeafID: nonEmpty(ev.NewLeaf), OldLeafID: nonEmpty(ev.OldLeaf)}
			if ev.SummaryEntry != nil {
				m.SummaryEntry, m.FromExtension = ev.SummaryEntry, &ev.FromExtension
			}
			bus.Notify(hooks.SessionTree, m)
		},
		Shutdown: func(ev SessionLifecycleEvent) {
			bus.Notify(hooks.SessionShutdown, hooks.SessionShutdownEvent{Reason: ev.Reason, TargetSessionFile: ev.TargetSessionFile})
		},
		Start: func(ev SessionLifecycleEvent) {
			bus.Notify(hooks.SessionStart, hooks.SessionStartEvent{Reason: ev.Reason, PreviousSessionFile: ev.PreviousSessionFile})
		},
	})
}

// installCompactionHooks lets extensions cancel a compaction or supply its
// text (session_before_compact: {cancel} or {compactedText}) and tells
// them about committed ones (session_compact) and failed or cancelled
// ones (session_compact_failed).
func (rt *Runtime) installCompactionHooks() {
	bus := rt.ext.bus
	rt.SetCompactionHooks(CompactionHooks{
		Before: func(ctx context.Context, ev BeforeCompactEvent) (BeforeCompactDecision, error) {
			rt.extReady()
			if !bus.Has(hooks.SessionBeforeCompact) {
				return BeforeCompactDecision{}, nil
			}
			r := bus.Before(ctx, hooks.SessionBeforeCompact, hooks.SessionBeforeCompactEvent{Reason: ev.Reason, Preparation: ev.Preparation,
				CustomInstructions: ev.CustomInstructions, WillRetry: ev.WillRetry})
			d := BeforeCompactDecision{Cancel: r.Cancel}
			if !r.Cancel && r.Raw != nil {
				// Ours ({compactedText}) or pi 1.6's ({compaction: {summary,
				// firstKeptEntryId, tokensBefore, details}}): the summary is
				// the compacted text; the kept tail is the preparation's.
				var x hooks.SessionBeforeCompactResult
				if err := json.Unmarshal(r.Raw, &x); err == nil {
					d.CompactedText = x.CompactedText
					if c := x.Compaction; d.CompactedText == nil && c != nil {
						if c.Summary == nil {
							empty := ""
							c.Summary = &empty
						}
						d.CompactedText = c.Summary
						if c.FirstKeptEntryID != nil && (ev.Preparation.FirstKeptEntryID == nil || *c.FirstKeptEntryID != *ev.Preparation.FirstKeptEntryID) {
							rt.log.Warn("session_before_compact: a firstKeptEntryId other than the preparation's is not supported; the preparation's is kept", "firstKeptEntryId", *c.FirstKeptEntryID)
						}
					}
				}
			}
			return d, nil
		},
		After: func(_ context.Context, ev CompactEvent) {
			if bus.Has(hooks.SessionCompact) {
				bus.Notify(hooks.SessionCompact, hooks.SessionCompactEvent{Reason: ev.Reason, Parameters: ev.Parameters, Result: ev.Result,
					CompactionEntry: ev.CompactionEntry, FromExtension: ev.FromExtension, WillRetry: ev.WillRetry})
			}
		},
		Failed: func(ev CompactFailedEvent) {
			if bus.Has(hooks.SessionCompactFailed) {
				bus.Notify(hooks.SessionCompactFailed, hooks.SessionCompactFailedEvent{Reason: ev.Reason, ErrorMessage: ev.ErrorMessage,
					Aborted: ev.Aborted, WillRetry: ev.WillRetry, FromExtension: ev.FromExtension})
			}
		},
	})
}

// nonEmpty is s, or nil (JSON null) when empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
