package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// Session lifecycle: which session is active, and replacing it (new,
// switch, import, fork, clone). Replacement aborts the run in flight,
// clears the queues, installs the new session, restores the model and
// thinking level its branch last used, and follows the session's working
// directory.

// SessionHooks are the seams extensions attach to. Every function is
// optional; the Before hooks return true to cancel.
type SessionHooks struct {
	// BeforeSwitch runs before new_session ("new"), switch_session
	// ("resume") and import_session ("import").
	BeforeSwitch func(ctx context.Context, ev SessionSwitchEvent) (cancel bool)
	// BeforeFork runs before fork (position "before") and clone ("at").
	BeforeFork func(ctx context.Context, ev SessionForkEvent) (cancel bool)
	// BeforeTree runs before navigate_tree moves the leaf.
	BeforeTree func(ctx context.Context, ev TreeEvent) TreeDecision
	// AfterTree runs once navigate_tree has moved the leaf.
	AfterTree func(ev TreeMoved)
	// Shutdown runs for a session that is being replaced or closed.
	Shutdown func(ev SessionLifecycleEvent)
	// Start runs for a session that became active.
	Start func(ev SessionLifecycleEvent)
}

// SessionSwitchEvent describes a pending session switch.
type SessionSwitchEvent struct {
	Reason            string // "new", "resume" or "import"
	TargetSessionFile string // for resume and import
}

// SessionForkEvent describes a pending fork or clone.
type SessionForkEvent struct {
	EntryID  string
	Position string // "before" (fork) or "at" (clone)
}

// TreeEvent describes a pending tree navigation.
type TreeEvent struct {
	TargetID, OldLeaf, CommonAncestor string
	// EntriesToSummarize is the branch being left, oldest first.
	EntriesToSummarize  []*session.Entry
	UserWantsSummary    bool
	CustomInstructions  string
	ReplaceInstructions bool
	Label               string
}

// TreeDecision is what the BeforeTree hook decides (pi 1.6's
// session_before_tree answer): cancel the move, give the summary of the
// branch being left (used when a summary was asked for), or change the
// summary's instructions and the label.
type TreeDecision struct {
	Cancel              bool
	Summary             *string
	Details             map[string]any
	CustomInstructions  *string
	ReplaceInstructions *bool
	Label               *string
}

// TreeMoved tells the AfterTree hook where the leaf went, and the
// summary entry appended (nil without one).
type TreeMoved struct {
	NewLeaf, OldLeaf string
	SummaryEntry     *session.Entry
	FromExtension    bool
}

// SessionLifecycleEvent is passed to the Start and Shutdown hooks.
type SessionLifecycleEvent struct {
	Reason              string // startup, new, resume, import, fork, quit
	SessionFile         string // the session the hook is about
	PreviousSessionFile string // Start: the session replaced
	TargetSessionFile   string // Shutdown: the session replacing it
}

// SetSessionHooks installs the session hooks.
func (rt *Runtime) SetSessionHooks(h SessionHooks) {
	rt.mu.Lock()
	rt.sessHooks = h
	rt.mu.Unlock()
}

// SetContextRules changes how compaction entries shape the context (the
// compaction work's seam). The context is rebuilt.
func (rt *Runtime) SetContextRules(r session.ContextRules) {
	rt.mu.Lock()
	rt.ctxRules = r
	rt.messages = nil
	rt.lazy = rt.sess.Plan(r)
	rt.mu.Unlock()
}

func (rt *Runtime) hooks() SessionHooks {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.sessHooks
}

// Session returns the active session.
func (rt *Runtime) Session() *session.Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.sess
}

// contextLocked returns the context messages, reading them from the
// session file the first time after a session was loaded.
func (rt *Runtime) contextLocked() []llm.Message {
	if rt.lazy != nil {
		rt.messages = rt.lazy.Messages()
		rt.lazy = nil
	}
	return rt.messages
}

// messageCountLocked is the number of context messages, known without
// loading them.
func (rt *Runtime) messageCountLocked() int {
	if rt.lazy != nil {
		return rt.lazy.Len()
	}
	return len(rt.messages)
}

// sessionDir is where new sessions of a working directory go.
func (rt *Runtime) sessionDir(cwd string) string {
	return session.Dir(rt.paths.AgentDir, rt.settings.SessionDir, cwd)
}

func (rt *Runtime) resolvePath(p string) string {
	return resolveAgainst(p, rt.Cwd())
}

// resolveAgainst makes a path a user gave absolute: "~" is the home
// directory, a relative path is taken from cwd.
func resolveAgainst(p, cwd string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// openInitialSession picks the startup session: --no-session, --session,
// --continue, or a new one.
func (rt *Runtime) openInitialSession() error {
	cwd := rt.Cwd()
	var s *session.Session
	loaded := false
	switch {
	case rt.opts.NoSession:
	case rt.opts.Fork != "" || rt.opts.SessionPath != "" || rt.opts.SessionID != "":
		var err error
		if s, loaded, err = rt.initialFromArgs(cwd); err != nil {
			return err
		}
	case rt.opts.Continue:
		if p := session.Latest(rt.sessionDir(cwd), cwd); p != "" {
			var err error
			if s, err = session.Open(p, cwd); err != nil {
				return err
			}
			loaded = true
		}
	}
	if s == nil {
		s = rt.freshSession(cwd, "")
	} else if s.Len() == 0 {
		rt.appendInitialEntries(s)
	}
	rt.logWarnings(s)
	keepModel := rt.opts.Provider != "" || rt.opts.Model != ""
	keepThinking := rt.opts.ThinkingLevel != "" || keepModel
	rt.mu.Lock()
	rt.sess = s
	rt.lazy = s.Plan(rt.ctxRules)
	var evs []events.Event
	if loaded {
		evs = rt.restoreLocked(rt.lazy, keepModel, keepThinking)
	}
	rt.mu.Unlock()
	_ = evs // nobody listens yet
	if loaded {
		rt.followSessionCwd(s)
	}
	if rt.opts.SessionName != "" {
		name := strings.TrimSpace(rt.opts.SessionName)
		if name != "" {
			rt.appendEntry(s, session.Entry{Type: session.TypeSessionInfo, Name: &name})
		}
	}
	if h := rt.hooks(); h.Start != nil {
		h.Start(SessionLifecycleEvent{Reason: "startup", SessionFile: s.Path()})
	}
	return nil
}

// freshSession returns a new session for cwd (in memory with
// --no-session) that starts with the model and thinking level.
func (rt *Runtime) freshSession(cwd, parent string) *session.Session {
	var s *session.Session
	if rt.opts.NoSession {
		s = session.NewInMemoryWithParent(cwd, parent)
	} else {
		s = session.NewIn(rt.sessionDir(cwd), cwd, parent)
	}
	rt.appendInitialEntries(s)
	return s
}

func (rt *Runtime) appendInitialEntries(s *session.Session) {
	rt.mu.Lock()
	model, level := rt.model, rt.thinking
	rt.mu.Unlock()
	if model != nil {
		rt.appendEntry(s, session.Entry{Type: session.TypeModelChange, Provider: model.Provider, ModelID: model.ID})
	}
	rt.appendEntry(s, session.Entry{Type: session.TypeThinkingLevelChange, ThinkingLevel: level})
}

// RecordModelChange appends a model_change entry for the current model
// (call it after changing the model).
func (rt *Runtime) RecordModelChange() {
	rt.mu.Lock()
	s, m := rt.sess, rt.model
	rt.mu.Unlock()
	if m != nil {
		rt.appendEntry(s, session.Entry{Type: session.TypeModelChange, Provider: m.Provider, ModelID: m.ID})
	}
}

// RecordThinkingLevelChange appends a thinking_level_change entry for the
// current level (call it after changing the level).
func (rt *Runtime) RecordThinkingLevelChange() {
	rt.mu.Lock()
	s, level := rt.sess, rt.thinking
	rt.mu.Unlock()
	rt.appendEntry(s, session.Entry{Type: session.TypeThinkingLevelChange, ThinkingLevel: level})
}

func (rt *Runtime) logWarnings(s *session.Session) {
	for _, w := range s.Warnings() {
		rt.log.Warn(w)
	}
}

// restoreLocked sets the model and thinking level a branch last used and
// returns the change events to emit.
func (rt *Runtime) restoreLocked(p *session.Plan, keepModel, keepThinking bool) []events.Event {
	var evs []events.Event
	if !keepModel && p.ModelID != "" {
		if m, ok := rt.catalog.Find(p.Provider, p.ModelID); ok {
			if rt.model == nil || rt.model.Provider != m.Provider || rt.model.ID != m.ID {
				prev := rt.model
				rt.model = &m
				evs = append(evs, events.ModelChanged{Model: m, PreviousModel: prev, Source: "restore"})
			}
		} else {
			rt.log.Warn("the session's model is not available; keeping the current one", "model", p.Provider+"/"+p.ModelID)
		}
	}
	level := rt.thinking
	if !keepThinking && llm.IsThinkingLevel(p.ThinkingLevel) {
		level = p.ThinkingLevel
		rt.prov.wantThinking = level // the level to come back to on later model changes
	}
	level = llm.ClampThinkingLevel(rt.model, level)
	if level != rt.thinking {
		rt.thinking = level
		evs = append(evs, events.ThinkingLevelChanged{Level: level})
	}
	return evs
}

// followSessionCwd makes the session's working directory the runtime's
// when it exists; otherwise the current one stays and a warning says so.
// It reports whether the directory changed.
func (rt *Runtime) followSessionCwd(s *session.Session) bool {
	cwd := s.Cwd()
	if cwd == "" || cwd == rt.Cwd() {
		return false
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		rt.log.Warn("the session was recorded in a directory that does not exist any more; working in the current directory", "sessionCwd", cwd, "cwd", rt.Cwd())
		return false
	}
	c := cwd
	rt.cwd.Store(&c)
	return true
}

// stopRun aborts the run in flight and waits until no run is active.
func (rt *Runtime) stopRun() {
	for {
		rt.Abort()
		rt.mu.Lock()
		idle := rt.run == nil
		rt.mu.Unlock()
		if idle {
			return
		}
	}
}

// install makes s the active session. restore says whether the model and
// thinking level come from its branch.
func (rt *Runtime) install(s *session.Session, reason string, restore bool) {
	rt.logWarnings(s)
	var (
		old   *session.Session
		evs   []events.Event
		hooks SessionHooks
	)
	// The queues empty with the session change; their queue_update follows
	// (queue.go).
	rt.queue.update(func() bool {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		rt.flushPendingBashLocked() // normally done when the stopped run ended
		old = rt.sess
		rt.sess = s
		rt.messages = nil
		rt.lazy = s.Plan(rt.ctxRules)
		hadQueue := rt.queue.drop()
		if restore {
			evs = rt.restoreLocked(rt.lazy, false, false)
		}
		hooks = rt.sessHooks
		return hadQueue
	})
	if restore && rt.followSessionCwd(s) {
		// Context files and project resources belong to the directory.
		rt.RediscoverResources(rt.baseCtx, "startup")
	}
	for _, ev := range evs {
		rt.Emit(ev)
	}
	if old != nil && old != s {
		if hooks.Shutdown != nil {
			hooks.Shutdown(SessionLifecycleEvent{Reason: reason, SessionFile: old.Path(), TargetSessionFile: s.Path()})
		}
		if err := old.Close(); err != nil {
			rt.log.Warn("closing the previous session file failed", "file", old.Path(), "err", err)
		}
	}
	if hooks.Start != nil {
		prev := ""
		if old != nil {
			prev = old.Path()
		}
		hooks.Start(SessionLifecycleEvent{Reason: reason, SessionFile: s.Path(), PreviousSessionFile: prev})
	}
}

// closeSession flushes the session at shutdown.
func (rt *Runtime) closeSession() {
	rt.mu.Lock()
	s, hooks := rt.sess, rt.sessHooks
	rt.mu.Unlock()
	if s == nil {
		return
	}
	if hooks.Shutdown != nil {
		hooks.Shutdown(SessionLifecycleEvent{Reason: "quit", SessionFile: s.Path()})
	}
	if err := s.Close(); err != nil {
		rt.log.Warn("closing the session file failed", "file", s.Path(), "err", err)
	}
}

// NewSession replaces the session with an empty one. It reports whether an
// extension cancelled the switch.
func (rt *Runtime) NewSession(parentSession string) (cancelled bool, err error) {
	ctx := rt.baseCtx
	if h := rt.hooks(); h.BeforeSwitch != nil && h.BeforeSwitch(ctx, SessionSwitchEvent{Reason: "new"}) {
		return true, nil
	}
	rt.stopRun()
	if parentSession != "" {
		parentSession = rt.resolvePath(parentSession)
	}
	rt.install(rt.freshSession(rt.Cwd(), parentSession), "new", false)
	return false, nil
}

// SwitchSession makes the session file at path the active session.
func (rt *Runtime) SwitchSession(path string) (cancelled bool, err error) {
	if strings.TrimSpace(path) == "" {
		return false, errors.New("Invalid command: sessionPath must not be empty")
	}
	p := rt.resolvePath(path)
	if _, err := fsutil.StatRegular(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("Session file not found: %s", p)
		}
		if errors.Is(err, fsutil.ErrNotRegular) {
			return false, fmt.Errorf("Cannot open session file: %v", err)
		}
		return false, fmt.Errorf("Cannot open session file %s: %v", p, err)
	}
	if h := rt.hooks(); h.BeforeSwitch != nil && h.BeforeSwitch(rt.baseCtx, SessionSwitchEvent{Reason: "resume", TargetSessionFile: p}) {
		return true, nil
	}
	rt.stopRun()
	s, err := session.Open(p, rt.Cwd())
	if err != nil {
		return false, err
	}
	if s.Len() == 0 {
		rt.appendInitialEntries(s)
	}
	rt.install(s, "resume", true)
	return false, nil
}

// ImportSession copies a session file into the session directory (with
// its working directory replaced by cwdOverride when given) and switches
// to the copy.
func (rt *Runtime) ImportSession(inputPath, cwdOverride string) (cancelled bool, err error) {
	if strings.TrimSpace(inputPath) == "" {
		return false, errors.New("Invalid command: inputPath must not be empty")
	}
	p := rt.resolvePath(inputPath)
	if _, err := fsutil.StatRegular(p); err != nil {
		if errors.Is(err, fsutil.ErrNotRegular) {
			return false, fmt.Errorf("Cannot import: %v", err)
		}
		return false, fmt.Errorf("File not found: %s", p)
	}
	h, ok := session.ReadHeader(p)
	if !ok {
		return false, fmt.Errorf("%v: %s: the first line is not a session header", session.ErrNotSession, p)
	}
	if cwdOverride != "" {
		cwdOverride = rt.resolvePath(cwdOverride)
	}
	if hk := rt.hooks(); hk.BeforeSwitch != nil && hk.BeforeSwitch(rt.baseCtx, SessionSwitchEvent{Reason: "import", TargetSessionFile: p}) {
		return true, nil
	}
	rt.stopRun()
	cwd := cwdOverride
	if cwd == "" {
		cwd = h.Cwd
	}
	if cwd == "" {
		cwd = rt.Cwd()
	}
	var s *session.Session
	if rt.opts.NoSession {
		src, err := session.Open(p, cwd)
		if err != nil {
			return false, err
		}
		s, err = src.InMemoryCopy(cwdOverride)
		src.Close()
		if err != nil {
			return false, err
		}
	} else {
		ctx, done := rt.startImport()
		dst, err := session.CopyFile(ctx, p, rt.sessionDir(cwd), cwdOverride)
		done()
		if err != nil {
			if ctx.Err() != nil {
				return false, fmt.Errorf("Import of %s aborted", p)
			}
			return false, fmt.Errorf("Cannot import %s: %v", p, err)
		}
		if s, err = session.Open(dst, cwd); err != nil {
			return false, err
		}
	}
	rt.install(s, "import", true)
	return false, nil
}

// startImport gives an import's copy a context that abort and shutdown
// end; done must be called when the copy is over.
func (rt *Runtime) startImport() (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(rt.baseCtx)
	rt.mu.Lock()
	rt.importCancel = cancel
	rt.mu.Unlock()
	return ctx, func() {
		rt.mu.Lock()
		rt.importCancel = nil
		rt.mu.Unlock()
		cancel()
	}
}

// AbortImport ends the copy of an import_session in progress.
func (rt *Runtime) AbortImport() {
	rt.mu.Lock()
	cancel := rt.importCancel
	rt.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// ForkResult is the outcome of Fork.
type ForkResult struct {
	Text      string
	Cancelled bool
}

// Fork starts a new session holding the active session's path up to the
// parent of a user message, and returns that message's text.
func (rt *Runtime) Fork(entryID string) (ForkResult, error) {
	s := rt.Session()
	e, ok := s.Entry(entryID)
	if !ok {
		return ForkResult{}, fmt.Errorf("Invalid entry ID for forking: entry %s not found", entryID)
	}
	if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role != llm.RoleUser {
		return ForkResult{}, fmt.Errorf("Invalid entry ID for forking: entry %s is not a user message", entryID)
	}
	if s.Persisted() && !s.Saved() {
		return ForkResult{}, session.ErrNotSaved
	}
	if h := rt.hooks(); h.BeforeFork != nil && h.BeforeFork(rt.baseCtx, SessionForkEvent{EntryID: entryID, Position: "before"}) {
		return ForkResult{Cancelled: true}, nil
	}
	rt.stopRun()
	ns, err := s.BranchTo(rt.sessionDir(rt.Cwd()), rt.Cwd(), e.Parent())
	if err != nil {
		return ForkResult{}, err
	}
	if ns.Len() == 0 {
		rt.appendInitialEntries(ns)
	}
	rt.install(ns, "fork", true)
	return ForkResult{Text: e.Message.Content.JoinText("")}, nil
}

// Clone starts a new session holding the active branch as it is.
func (rt *Runtime) Clone() (cancelled bool, err error) {
	leaf := rt.Session().Leaf()
	if leaf == "" {
		return false, errors.New("Cannot clone session: no current entry selected")
	}
	return rt.CloneAt(leaf)
}

// CloneAt starts a new session holding the path from the root through the
// entry entryID (a fork at the entry: position "at"); Clone is CloneAt
// the leaf.
func (rt *Runtime) CloneAt(entryID string) (cancelled bool, err error) {
	s := rt.Session()
	if !s.Has(entryID) {
		return false, fmt.Errorf("Invalid entry ID for forking: entry %s not found", entryID)
	}
	if s.Persisted() && !s.Saved() {
		return false, session.ErrNotSaved
	}
	if h := rt.hooks(); h.BeforeFork != nil && h.BeforeFork(rt.baseCtx, SessionForkEvent{EntryID: entryID, Position: "at"}) {
		return true, nil
	}
	rt.stopRun()
	ns, err := s.BranchTo(rt.sessionDir(rt.Cwd()), rt.Cwd(), entryID)
	if err != nil {
		return false, err
	}
	rt.install(ns, "fork", true)
	return false, nil
}

// Scopes of ListSessions.
const (
	SessionScopeCwd = "cwd"
	SessionScopeAll = "all"
)

// ListSessions lists the saved sessions of the working directory (scope
// "cwd", the default) or of every directory ("all"), newest first. Each
// file is read line by line for its summary (session.ReadInfo), never
// loaded whole.
func (rt *Runtime) ListSessions(scope string) ([]session.Info, error) {
	return rt.ListSessionsOf(scope, "")
}

// ListSessionsOf is ListSessions with scope "cwd" naming another working
// directory than the runtime's (cwd; empty: the runtime's).
func (rt *Runtime) ListSessionsOf(scope, cwd string) ([]session.Info, error) {
	rt.mu.Lock()
	agentDir, sessionDir := rt.paths.AgentDir, rt.settings.SessionDir
	rt.mu.Unlock()
	if cwd == "" {
		cwd = rt.Cwd()
	}
	var out []session.Info
	switch scope {
	case "", SessionScopeCwd:
		out = session.ListDirs([]string{session.Dir(agentDir, sessionDir, cwd)}, cwd)
	case SessionScopeAll:
		out = session.ListDirs(session.AllSessionDirs(agentDir, sessionDir), "")
	default:
		return nil, fmt.Errorf("invalid scope %q: use \"cwd\" or \"all\"", scope)
	}
	if out == nil {
		out = []session.Info{}
	}
	return out, nil
}
