package app

import (
	"log/slog"
	"os"
	"sync"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/resources"
)

// trustState is the project trust decision the runtime works with. One
// rule (extensions.DecideProjectTrust) covers everything a project
// supplies: its extensions, skills, prompt templates, context files of the
// cwd and its parents, SYSTEM.md, APPEND_SYSTEM.md and settings file.
type trustState struct {
	mu sync.Mutex
	// cwd is the project the decision is for (the extension manager's
	// project once it exists); ok is the decision.
	cwd string
	ok  bool
	// warned holds the projects whose skipped files were logged already.
	warned map[string]bool
}

// decideStartTrust makes the start-up decision for the launch directory,
// before anything of the project is read (settings, resources,
// extensions). --trust-project records the trust.
func decideStartTrust(agentDir, cwd string, flag bool, log *slog.Logger) bool {
	ok, err := extensions.DecideProjectTrust(agentDir, cwd, flag)
	if err != nil {
		log.Warn("cannot record project trust", "project", cwd, "err", err)
	}
	return ok
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

// setTrust records the decision for a project.
func (rt *Runtime) setTrust(cwd string, ok bool) {
	rt.trust.mu.Lock()
	rt.trust.cwd, rt.trust.ok = cwd, ok
	rt.trust.mu.Unlock()
}

// projectTrusted decides whether the current working directory's project
// may supply resources. A session in another directory (switch_session)
// is judged by the same rule, without --trust-project, which names only
// the project the agent was started in.
func (rt *Runtime) projectTrusted() bool {
	cwd := rt.Cwd()
	rt.trust.mu.Lock()
	known, ok := rt.trust.cwd == cwd, rt.trust.ok
	rt.trust.mu.Unlock()
	if known {
		return ok
	}
	ok, _ = extensions.DecideProjectTrust(rt.agentDir(), cwd, false)
	return ok
}

func (rt *Runtime) agentDir() string {
	if rt.paths.AgentDir != "" {
		return rt.paths.AgentDir
	}
	return config.ResolvePaths(rt.opts.Cwd).AgentDir
}

// warnSkipped logs, once per project, what an untrusted project's
// resources would have supplied. The same entries are resource
// diagnostics (get_resource_diagnostics).
func (rt *Runtime) warnSkipped(cwd string, diags []resources.Diagnostic) {
	var paths []string
	for _, d := range diags {
		if d.Message == resources.UntrustedMessage {
			paths = append(paths, d.Path)
		}
	}
	if len(paths) == 0 {
		return
	}
	rt.trust.mu.Lock()
	if rt.trust.warned == nil {
		rt.trust.warned = map[string]bool{}
	}
	done := rt.trust.warned[cwd]
	rt.trust.warned[cwd] = true
	rt.trust.mu.Unlock()
	if !done {
		rt.log.Warn("project files skipped: the project is not trusted (run with --trust-project or send trust_project)",
			"project", cwd, "skipped", paths)
	}
}
