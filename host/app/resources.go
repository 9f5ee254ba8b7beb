package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/resources"
)

// resourceState holds the discovered skills, templates and context files,
// and the system prompt built from them. Its mutex is independent of
// rt.mu and is never held while emitting events.
type resourceState struct {
	// ready is closed when the start-up discovery has finished; readers
	// of set wait for it.
	ready chan struct{}

	mu  sync.Mutex
	set *resources.Set

	// trusted decides whether the project's own files are used (nil:
	// trusted). It is rt.projectTrusted unless replaced (SetProjectTrust,
	// Options.ProjectTrusted).
	trusted func() bool
	// discover returns extra skill and template paths (the extension
	// host's resources_discover); nil for none.
	discover ResourceDiscoverer
	// hooks run around a reload (the extension host's session_shutdown
	// and session_start with reason "reload").
	hooks []ReloadHook
	// commands lists and completes extension commands (nil: none).
	commands CommandProvider

	gen       int    // bumped whenever set changes
	promptKey string // what the cached prompt was built from
	prompt    string
	options   resources.PromptOptions // what it was built of
}

// ResourceDiscoverer returns extra skill and template paths, for example
// from extensions. reason is "startup" or "reload".
type ResourceDiscoverer func(ctx context.Context, reason string) (skillPaths, templatePaths []string)

// Reload phases passed to reload hooks.
const (
	ReloadShutdown = "shutdown" // before the resources are discovered again
	ReloadStart    = "start"    // after
)

// ReloadHook runs around a reload. An error is logged and the reload goes
// on.
type ReloadHook func(ctx context.Context, phase string) error

// ErrReloadBusy is returned by Reload while a run is in flight.
var ErrReloadBusy = errors.New("Cannot reload while the agent is running. Wait for it to finish, or send abort first.")

// SetProjectTrust replaces the predicate that decides whether the
// project's own files are used: its skills, prompt templates, settings
// lists, SYSTEM.md and APPEND_SYSTEM.md, and the AGENTS.md / CLAUDE.md
// files of the cwd and its parents. By default the project trust rule
// decides (trust.go). It takes effect at the next Reload.
func (rt *Runtime) SetProjectTrust(trusted func() bool) {
	rt.res.mu.Lock()
	rt.res.trusted = trusted
	rt.res.mu.Unlock()
}

// SetResourceDiscoverer sets the source of extra skill and template paths
// consulted at every discovery. It takes effect at the next Reload.
func (rt *Runtime) SetResourceDiscoverer(d ResourceDiscoverer) {
	rt.res.mu.Lock()
	rt.res.discover = d
	rt.res.mu.Unlock()
}

// OnReload adds a hook that runs around every reload.
func (rt *Runtime) OnReload(h ReloadHook) {
	rt.res.mu.Lock()
	rt.res.hooks = append(rt.res.hooks, h)
	rt.res.mu.Unlock()
}

// waitResources waits for the start-up discovery.
func (rt *Runtime) waitResources() {
	if rt.res.ready != nil {
		<-rt.res.ready
	}
}

// discoverResources runs the discovery without touching the runtime.
func (rt *Runtime) discoverResources(ctx context.Context, reason string) *resources.Set {
	rt.res.mu.Lock()
	trustedFn, discover := rt.res.trusted, rt.res.discover
	rt.res.mu.Unlock()
	trusted := trustedFn == nil || trustedFn()

	paths := rt.paths
	if paths.AgentDir == "" {
		paths = config.ResolvePaths(rt.opts.Cwd)
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		home = filepath.Clean(home)
	}
	opts := resources.Options{
		Cwd: rt.Cwd(), AgentDir: paths.AgentDir, Home: home, ProjectTrusted: trusted,
		NoSkills: rt.opts.NoSkills, NoTemplates: rt.opts.NoPromptTemplates, NoContextFiles: rt.opts.NoContextFiles,
		BuiltinCacheDir: builtinCacheDir(paths.AgentDir),
	}
	for _, p := range rt.opts.Skills {
		opts.SkillPaths = append(opts.SkillPaths, config.ExpandPath(p, rt.opts.Cwd))
	}
	for _, p := range rt.opts.PromptTemplates {
		opts.TemplatePaths = append(opts.TemplatePaths, config.ExpandPath(p, rt.opts.Cwd))
	}
	var skipped []resources.Diagnostic
	for _, layer := range []struct{ file, scope string }{
		{paths.ProjectSettingsFile(), resources.ScopeProject},
		{paths.GlobalSettingsFile(), resources.ScopeUser},
	} {
		if layer.scope == resources.ScopeProject && !trusted {
			if _, err := os.Stat(layer.file); err == nil {
				skipped = append(skipped, resources.Diagnostic{Type: resources.DiagWarning, ResourceType: resources.KindSettings,
					Message: resources.UntrustedMessage, Path: layer.file})
			}
			continue
		}
		for key, dst := range map[string]*[]resources.PathEntry{"skills": &opts.SettingsSkills, "prompts": &opts.SettingsTemplates} {
			list, err := config.PathList(layer.file, key)
			if err != nil {
				rt.log.Warn("settings problem", "path", layer.file, "problem", err.Error())
			}
			for _, p := range list {
				*dst = append(*dst, resources.PathEntry{Path: p, Scope: layer.scope})
			}
		}
	}
	pkgs := rt.packagesNow()
	addPackageResources(&opts, pkgs)
	if discover != nil {
		skills, templates := discover(ctx, reason)
		for _, p := range skills {
			opts.ExtensionSkills = append(opts.ExtensionSkills, resources.PathEntry{Path: config.ExpandPath(p, rt.opts.Cwd), Scope: resources.ScopeTemporary})
		}
		for _, p := range templates {
			opts.ExtensionTemplates = append(opts.ExtensionTemplates, resources.PathEntry{Path: config.ExpandPath(p, rt.opts.Cwd), Scope: resources.ScopeTemporary})
		}
	}
	set := resources.Load(opts)
	set.Diagnostics = append(skipped, set.Diagnostics...)
	for _, d := range set.Diagnostics {
		if d.Message == resources.UntrustedMessage {
			continue // logged once by warnSkipped
		}
		attrs := []any{"type", d.Type, "resource", d.ResourceType, "path", d.Path, "problem", d.Message}
		rt.log.Warn("resource problem", attrs...)
	}
	rt.warnSkipped(opts.Cwd, set.Diagnostics)
	// Package problems were logged once by their resolution.
	set.Diagnostics = append(set.Diagnostics, packageDiagnostics(pkgs)...)
	rt.log.Debug("resources loaded", "reason", reason, "skills", len(set.Skills), "templates", len(set.Templates),
		"contextFiles", len(set.ContextFiles), "trusted", trusted)
	return set
}

// builtinCacheDir is where the built-in skills are written for the model
// to read.
func builtinCacheDir(agentDir string) string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "atomic")
	}
	if agentDir != "" {
		return filepath.Join(agentDir, "cache")
	}
	return ""
}

func (rt *Runtime) installResources(set *resources.Set) {
	rt.res.mu.Lock()
	rt.res.set = set
	rt.res.gen++
	rt.res.mu.Unlock()
}

func (rt *Runtime) resourceSet() *resources.Set {
	rt.waitResources()
	rt.res.mu.Lock()
	defer rt.res.mu.Unlock()
	return rt.res.set
}

// Reload discovers skills, templates, context files and the system prompt
// files again, without restarting. It refuses while a run is in flight
// (ErrReloadBusy) rather than waiting, so a client is never blocked by a
// long run.
func (rt *Runtime) Reload(ctx context.Context) error {
	if rt.IsStreaming() {
		return ErrReloadBusy
	}
	rt.waitResources()
	// Packages first (changed package settings, missing installs tried
	// again), for the trust decision as it is now: the extensions and
	// resources discovered next use them.
	<-rt.startPackages(rt.reloadTrust()).done
	rt.res.mu.Lock()
	hooks := append([]ReloadHook(nil), rt.res.hooks...)
	rt.res.mu.Unlock()
	for _, h := range hooks {
		if err := h(ctx, ReloadShutdown); err != nil {
			rt.log.Warn("reload hook failed", "phase", ReloadShutdown, "err", err)
		}
	}
	rt.RediscoverResources(ctx, "reload")
	for _, h := range hooks {
		if err := h(ctx, ReloadStart); err != nil {
			rt.log.Warn("reload hook failed", "phase", ReloadStart, "err", err)
		}
	}
	return nil
}

// RediscoverResources runs the discovery again and installs the result,
// without the reload hooks. The extension host calls it once its
// extensions are loaded (reason "startup"), so that the paths their
// resources_discover handlers return are used from the start.
func (rt *Runtime) RediscoverResources(ctx context.Context, reason string) {
	rt.waitResources()
	rt.installResources(rt.discoverResources(ctx, reason))
}

// resourceOverlaps returns the built-in resources replaced by others of
// the same name, as the latest finished discovery found them; it never
// waits for a discovery in progress (get_state does not wait).
func (rt *Runtime) resourceOverlaps() []resources.Overlap {
	rt.res.mu.Lock()
	defer rt.res.mu.Unlock()
	out := []resources.Overlap{}
	if rt.res.set != nil {
		out = append(out, rt.res.set.Overlaps...)
	}
	return out
}

// ResourceDiagnostics returns the problems found by the latest discovery.
func (rt *Runtime) ResourceDiagnostics() []resources.Diagnostic {
	set := rt.resourceSet()
	if set == nil {
		return []resources.Diagnostic{}
	}
	return append([]resources.Diagnostic{}, set.Diagnostics...)
}

// InvalidateSystemPrompt makes the next run rebuild the system prompt
// (for changes the cache key does not see, such as a tool's new snippet).
func (rt *Runtime) InvalidateSystemPrompt() {
	rt.res.mu.Lock()
	rt.res.promptKey = ""
	rt.res.mu.Unlock()
}

// cachedSystemPrompt returns the system prompt for the active tools and
// the current resources. It is cached and rebuilt only when the active
// tools, the resources or the date change.
func (rt *Runtime) cachedSystemPrompt() string {
	rt.waitResources()
	active := rt.tools.Active()
	now := time.Now()
	names := make([]string, len(active))
	for i, t := range active {
		names[i] = t.Name()
	}
	rt.res.mu.Lock()
	defer rt.res.mu.Unlock()
	cwd := rt.Cwd() // the session's working directory (sessions.go)
	key := fmt.Sprintf("%d|%s|%s|%s", rt.res.gen, now.Format("2006-01-02"), strings.Join(names, ","), cwd)
	if key == rt.res.promptKey {
		return rt.res.prompt
	}
	set := rt.res.set
	if set == nil {
		set = &resources.Set{}
	}
	custom := rt.opts.SystemPrompt
	if custom == "" {
		custom = set.SystemText
	}
	appendText := rt.opts.AppendSystemPrompt
	if appendText == "" {
		appendText = set.AppendText
	}
	rt.res.options = resources.OptionsFor(resources.SystemPromptInput{
		Tools: active, Cwd: cwd, Custom: custom, Append: appendText,
		ContextFiles: set.ContextFiles, Skills: set.Skills,
	})
	rt.res.prompt = resources.BuildFromOptions(rt.res.options, 0, now)
	rt.res.promptKey = key
	return rt.res.prompt
}

// promptOptions is the system prompt's structured inputs as JSON (pi's
// BuildSystemPromptOptions), a copy the caller may change.
func (rt *Runtime) promptOptions() json.RawMessage {
	rt.cachedSystemPrompt()
	rt.res.mu.Lock()
	defer rt.res.mu.Unlock()
	b, err := json.Marshal(rt.res.options)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// promptFromOptions builds the system prompt from options an extension
// changed (before_agent_start's systemPromptOptions); a change of the
// selected tools changes the active tools, as pi.setActiveTools does.
func (rt *Runtime) promptFromOptions(raw json.RawMessage) (string, error) {
	var o resources.PromptOptions
	if err := json.Unmarshal(raw, &o); err != nil {
		return "", fmt.Errorf("systemPromptOptions: %w", err)
	}
	if o.SelectedTools != nil {
		names := make([]string, 0, len(rt.tools.Active()))
		for _, t := range rt.tools.Active() {
			names = append(names, t.Name())
		}
		if !slices.Equal(names, o.SelectedTools) {
			rt.tools.SetActive(o.SelectedTools)
		}
	}
	return resources.BuildFromOptions(o, 0, time.Now()), nil
}

// expandInput applies /skill:name and /template expansion to a prompt,
// steering or follow-up message.
func (rt *Runtime) expandInput(text string) string {
	out, exp := rt.resourceSet().Expand(text)
	if exp.Kind != "" {
		rt.log.Debug("expanded slash command", "kind", exp.Kind, "name", exp.Name, "path", exp.Path)
	}
	if exp.UnterminatedQuote {
		rt.log.Warn("unterminated quote in slash command arguments; it runs to the end of the message",
			"command", "/"+exp.Name, "path", exp.Path)
	}
	return out
}

// builtinCommand runs the built-in slash commands that prompt accepts
// (/reload). handled is false for anything else.
func (rt *Runtime) builtinCommand(text string) (handled bool, err error) {
	if strings.TrimSpace(text) == "/reload" {
		return true, rt.Reload(rt.baseCtx)
	}
	return false, nil
}
