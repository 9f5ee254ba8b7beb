package app

// The composition root: New and the steps it runs once, in order, to build
// a runtime from its options (settings and start-up trust, providers and
// the model catalog, the tool registry, the initial model and session,
// packages, resources, MCP, extensions). Each setup step creates one
// part's state and installs the part in the runtime's seams (reload hooks,
// the command provider, session hooks); from then on only the session
// runtime's methods (the other files) run. Nothing here is called after
// New returns.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/anthropic"
	"github.com/atomic-go/atomic/host/llm/auth"
	"github.com/atomic-go/atomic/host/llm/faux"
	"github.com/atomic-go/atomic/host/llm/google"
	"github.com/atomic-go/atomic/host/llm/openai"
	"github.com/atomic-go/atomic/host/mcp"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/host/trust"
	"github.com/atomic-go/atomic/internal/netproxy"
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
	// Models are the --models patterns: the cycling scope, in place of the
	// settings' enabledModels; its first model starts a new session.
	Models []string

	NoSession   bool
	SessionPath string // --session: a file to open (or create), or a session id or its prefix
	SessionID   string // --session-id: this directory's session with this id, or a new one with it
	Fork        string // --fork: a session (path, id or prefix) forked into a new one of this directory
	Continue    bool   // -c: continue the latest session of the cwd
	SessionName string

	Tools []string // --tools; nil means the defaults
	// NoBuiltinTools starts with no built-in tool active (-nbt); extension
	// and MCP tools stay.
	NoBuiltinTools bool
	// NoTools keeps every tool inactive: built-in, extension and MCP (-nt).
	NoTools bool
	// ExcludeTools are tool name patterns (`*` any characters) kept
	// inactive after every other selection, MCP tools included (-xt).
	ExcludeTools []string
	// NoMCP connects no MCP server this run, configured or registered by
	// an extension (--no-mcp).
	NoMCP bool
	// APIKey is a key for the provider of the starting model, for this
	// process only (--api-key; it needs --model or --models).
	APIKey string

	SystemPrompt       string
	AppendSystemPrompt string

	// Extensions are the -e paths (or npm:/git: package sources, which
	// are installed into a cache for the run); NoExtensions keeps only
	// those.
	Extensions   []string
	NoExtensions bool
	// Offline leaves missing packages uninstalled and refuses goja
	// extensions' fetch (also ATOMIC_OFFLINE=1 or PI_OFFLINE=1).
	Offline bool
	// Trust is the command line's word on the project's trust:
	// trust.FlagRecord (--trust-project) trusts the start-up project and
	// records it, FlagApprove (-a) and FlagDeny (-na) decide for every
	// project of this process and record nothing; see
	// extensions.DecideProjectTrust for the rule.
	Trust trust.Flag
	// ExtensionFlags are command-line values of extension flags.
	ExtensionFlags map[string]string
	// LoadOnly loads the extensions and starts nothing else: no
	// session_start, no MCP servers, no package installs (--help lists
	// the flags extensions register, as pi does).
	LoadOnly bool
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

// New builds a runtime from options. It is the composition root: the
// steps below run once, in this order, and each wires one part.
func New(opts Options) (*Runtime, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	// Trust is decided before anything of the project is read.
	agentDir := config.ResolvePaths(opts.Cwd).AgentDir
	if opts.Settings != nil && opts.Settings.Paths.AgentDir != "" {
		agentDir = opts.Settings.Paths.AgentDir
	}
	trusted := decideStartTrust(agentDir, opts.Cwd, opts.Trust, opts.Log)
	if opts.Settings == nil {
		loaded, err := loadSettings(opts, trusted)
		if err != nil {
			return nil, err
		}
		opts.Settings = loaded
	}
	netproxy.Set(opts.Settings.Settings.HTTPProxy)
	idle, set, err := opts.Settings.Settings.IdleTimeout()
	if err != nil {
		opts.Log.Warn("settings problem: the idle timeout stays at its default", "problem", err, "default", llm.DefaultIdleTimeout)
	}
	if !set {
		idle = llm.DefaultIdleTimeout
	}
	llm.SetIdleTimeout(idle)
	for _, d := range opts.Settings.Diagnostics {
		opts.Log.Warn("settings problem", "path", d.Path, "problem", d.Message)
	}
	rt := newRuntime(opts)

	rt.setupCatalog() // providers, models (built-in + models.json), credentials
	active := activeTools(rt.settings, opts)
	rt.tools = tools.NewRegistryWithBuiltins(active)
	if opts.NoTools {
		rt.tools.SetExcluded([]string{"*"})
	} else if len(opts.ExcludeTools) > 0 {
		rt.tools.SetExcluded(opts.ExcludeTools)
	}
	for _, n := range active {
		if _, ok := rt.tools.Get(n); !ok {
			opts.Log.Warn("settings problem: defaultTools names a tool atomic does not have; it stays off", "tool", n)
		}
	}
	// A --model the catalogue lacks may name a provider an extension
	// registers: it is resolved again once the extensions have loaded
	// (pi loads them before it resolves the model).
	modelErr := rt.selectInitialModel(false)
	var unknown unknownModel
	if modelErr != nil && !errors.As(modelErr, &unknown) {
		return nil, modelErr
	}
	if modelErr == nil && opts.APIKey != "" {
		rt.prov.auth.SetOverride(rt.model.Provider, opts.APIKey)
	}
	// The session decides the working directory, which the resources
	// are discovered for.
	if err := rt.openInitialSession(); err != nil {
		return nil, err
	}
	if c := rt.Cwd(); c != opts.Cwd {
		// The session works in another project: that one is judged.
		trusted = decideStartTrust(agentDir, c, opts.Trust, opts.Log)
	}
	rt.setTrust(rt.Cwd(), trusted)
	rt.startPackages(trusted)
	rt.initResources()
	rt.setupMCP()
	rt.setupExtensions(trusted)
	if modelErr != nil {
		rt.extReady()
		if err := rt.selectInitialModel(true); err != nil {
			rt.Close()
			return nil, err
		}
		if opts.APIKey != "" {
			rt.prov.auth.SetOverride(rt.model.Provider, opts.APIKey)
		}
	}
	return rt, nil
}

// withDefaults fills the options' defaults: the process's working
// directory, RPC mode, a logger that discards.
func withDefaults(opts Options) (Options, error) {
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return opts, err
		}
		opts.Cwd = wd
	}
	if opts.Mode == "" {
		opts.Mode = ModeRPC
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return opts, nil
}

// newRuntime returns the runtime's state as the settings start it, before
// any part is wired.
func newRuntime(opts Options) *Runtime {
	ctx, cancel := context.WithCancel(context.Background())
	rt := &Runtime{
		opts: opts, settings: opts.Settings.Settings, paths: opts.Settings.Paths, log: opts.Log,
		baseCtx: ctx, cancelBase: cancel, listeners: map[int]events.Sink{},
	}
	rt.ext.bus = hooks.New() // before anything can emit (see tapExtensions)
	rt.shutdown.ch = make(chan struct{})
	rt.queue = newMessageQueues(rt.Emit, rt.settings.SteeringMode, rt.settings.FollowUpMode)
	rt.autoCompact = rt.settings.Compaction.Enabled
	rt.autoRetry = rt.settings.Retry.Enabled
	rt.cwd.Store(&opts.Cwd)
	rt.ctxRules = compaction.ContextRules
	return rt
}

// activeTools are the built-in tools a run starts with: the defaults, the
// settings' defaultTools, --tools, or none (--no-tools).
func activeTools(settings config.Settings, opts Options) []string {
	active := tools.DefaultActive
	if settings.DefaultTools != nil {
		active = config.ResolveToolList(settings.DefaultTools, tools.DefaultActive)
	}
	switch {
	case opts.Tools == nil:
	case len(opts.Tools) > 0 && config.ToolListError(opts.Tools) == "" && config.IsToolModifier(opts.Tools[0]):
		active = config.ApplyToolModifiers(active, opts.Tools) // --tools +grep,-bash
	default:
		active = opts.Tools
	}
	if opts.NoTools || opts.NoBuiltinTools {
		active = nil
	}
	return active
}

// BuiltinToolNames lists the built-in tools (the names --tools accepts).
func BuiltinToolNames() []string {
	var out []string
	for _, t := range tools.Builtins() {
		out = append(out, t.Name())
	}
	return out
}

// setupCatalog registers the provider implementations and loads the
// built-in models, models.json and credentials. Faux stays registered and
// comes last, so that any provider with credentials is preferred.
func (rt *Runtime) setupCatalog() {
	rt.prov = &provState{
		auth:       auth.NewResolver(authFile(rt.paths.AgentDir), rt.log),
		modelsPath: modelsFile(rt.paths.AgentDir),
	}
	rt.prov.auth.SetKeyless(faux.ProviderID, true)
	c := llm.NewCatalog()
	c.RegisterAPI(faux.API, faux.New())
	c.RegisterAPI(anthropic.API, anthropic.New())
	c.RegisterAPI(openai.APICompletions, openai.NewCompletions())
	c.RegisterAPI(openai.APIResponses, openai.NewResponses())
	c.RegisterAPI(google.API, google.New())
	c.RegisterAPI(llm.APIVirtual, llm.ProviderFunc(rt.routeVirtual))
	c.RegisterAPI(llm.APIExtension, llm.ProviderFunc(rt.streamFromExtension))
	c.Credential = rt.prov.auth.APIKey
	c.Usable = rt.prov.auth.Usable
	rt.catalog = c
	rt.reloadModels(true)
}

// setupExtensions discovers and starts extensions in the background.
// trusted is the start-up trust decision for rt.Cwd().
func (rt *Runtime) setupExtensions(trusted bool) {
	rt.ext.lastLevel = rt.thinking
	rt.ext.bus.Log = rt.log
	rt.ext.bus.OnError = rt.reportExtensionError
	rt.ext.ready = make(chan struct{})
	rt.ext.started = make(chan struct{})
	plugins := &grpcext.Runtime{Log: rt.log, HostVersion: rt.opts.HostVersion, FlagValues: rt.opts.ExtensionFlags}
	runtimes := append([]extensions.Runtime{plugins, rt.scriptRuntime(plugins)}, rt.opts.ExtensionRuntimes...)
	rt.ext.mgr = extensions.NewManager(extensions.Config{
		Bus: rt.ext.bus, Host: &extHost{rt: rt}, Runtimes: runtimes, Log: rt.log,
		AgentDir: rt.agentDir(), Cwd: rt.Cwd(), Trust: rt.opts.Trust, StartTrusted: &trusted,
		OnError: rt.reportExtensionError,
	})
	rt.SetCommandProvider(extCommands{rt: rt})
	rt.SetResourceDiscoverer(rt.resourcesDiscover)
	rt.installSessionHooks()
	rt.installCompactionHooks()
	rt.OnReload(rt.reloadExtensions)
	go func() {
		// The discovery needs the packages' extensions: it waits for
		// their resolution, in the background.
		rt.ext.mgr.Start(rt.discoverExtensions())
		_ = rt.ext.mgr.Wait(context.Background())
		// The user's and the command line's extensions may decide the
		// project's trust before the project's own extensions load.
		askedTrust := !rt.opts.LoadOnly && rt.askProjectTrust(rt.baseCtx)
		rt.applyExtensionRegistrations()
		if rt.opts.LoadOnly {
			close(rt.ext.ready)
			close(rt.ext.started)
			return
		}
		// session_start is queued before anything can reach the
		// extensions: each extension sees it before any later event or
		// call (as in pi, where it is the first event), and
		// resources_discover follows it.
		rt.ext.bus.Notify(hooks.SessionStart, hooks.SessionStartEvent{Reason: "startup"})
		close(rt.ext.ready)
		if askedTrust || rt.ext.bus.Has(hooks.ResourcesDiscover) {
			// (a project trusted by project_trust supplies its
			// skills, templates and system prompt files now)
			rt.RediscoverResources(rt.baseCtx, "startup")
		}
		rt.ext.bus.Flush(extReadyLimit)
		close(rt.ext.started)
	}()
}

// setupMCP prepares the MCP part. The servers are launched shortly after
// the client's first command has been answered (StartMCP), or after
// mcpStartDelay, or at once when something needs them, so that launching
// them never delays the first exchange; they connect in the background.
func (rt *Runtime) setupMCP() {
	rt.mcp.ext = map[string]mcp.Server{}
	rt.mcp.startedCh = make(chan struct{})
	rt.mcp.timer = time.AfterFunc(mcpStartDelay, rt.launchMCP)
	if rt.opts.LoadOnly {
		rt.mcp.timer.Stop()
	}
	rt.mcp.mgr = mcp.NewManager(mcp.Options{
		Tools: rt.tools, Log: rt.log, Values: rt.prov.auth.Values, Cwd: rt.Cwd,
		ClientVersion: rt.opts.HostVersion,
		OnChange: func(st mcp.Status) {
			st.StderrTail = ""
			rt.InvalidateSystemPrompt()
			rt.Emit(events.MCPServerChanged{Server: st})
		},
		ToolTimeout: rt.settings.Timeouts.ToolTimeout(),
	})
	rt.OnReload(func(_ context.Context, phase string) error {
		switch phase {
		case ReloadShutdown: // extensions register their servers again as they load
			rt.mcp.mu.Lock()
			rt.mcp.ext, rt.mcp.extList = map[string]mcp.Server{}, nil
			rt.mcp.mu.Unlock()
		case ReloadStart: // the files again, with the trust decided by the reload
			rt.applyMCP()
		}
		return nil
	})
}

// initResources starts discovering the resources. The discovery runs in
// the background, so that commands that do not need resources (get_state)
// are answered at once; everything that needs them waits for it.
func (rt *Runtime) initResources() {
	rt.res.trusted = rt.opts.ProjectTrusted
	if rt.res.trusted == nil {
		rt.res.trusted = rt.projectTrusted
	}
	rt.res.ready = make(chan struct{})
	go func() {
		rt.installResources(rt.discoverResources(rt.baseCtx, "startup"))
		close(rt.res.ready)
	}()
}

// loadSettings reads the settings for opts.Cwd: the user's, and the
// project's only when the project is trusted.
func loadSettings(opts Options, trusted bool) (*config.Loaded, error) {
	paths := config.ResolvePaths(opts.Cwd)
	loaded, err := config.Load(paths, trusted, opts.SettingsOverrides)
	if err != nil {
		return nil, err
	}
	if !trusted {
		if _, err := os.Stat(paths.ProjectSettingsFile()); err == nil {
			opts.Log.Warn("project settings skipped: the project is not trusted (run with --trust-project or send trust_project; they apply from the next start)",
				"project", opts.Cwd, "settings", paths.ProjectSettingsFile())
		}
	}
	return loaded, nil
}
