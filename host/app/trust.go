package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/resources"
	"github.com/atomic-go/atomic/host/trust"
)

// trustState is the project trust decision the runtime works with. One
// rule (host/trust, applied by extensions.DecideProjectTrust) covers everything a project
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

// set records the decision for a project.
func (t *trustState) set(cwd string, ok bool) {
	t.mu.Lock()
	t.cwd, t.ok = cwd, ok
	t.mu.Unlock()
}

// decided returns the decision recorded for cwd, if it is the project
// the decision is for.
func (t *trustState) decided(cwd string) (ok, known bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ok, t.cwd == cwd
}

// firstWarning reports whether cwd's skipped files were not logged yet,
// and marks them logged.
func (t *trustState) firstWarning(cwd string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.warned == nil {
		t.warned = map[string]bool{}
	}
	first := !t.warned[cwd]
	t.warned[cwd] = true
	return first
}

// decideStartTrust makes the start-up decision for the launch directory,
// before anything of the project is read (settings, resources,
// extensions). --trust-project records the trust.
func decideStartTrust(agentDir, cwd string, flag trust.Flag, log *slog.Logger) bool {
	ok, err := extensions.DecideProjectTrust(agentDir, cwd, flag)
	if err != nil {
		log.Warn("project trust", "project", cwd, "err", err)
	}
	return ok
}

// reloadTrust decides trust again for the current working directory,
// as the reload's extension discovery does (a changed project file asks
// again), for the packages resolved before it.
func (rt *Runtime) reloadTrust() bool {
	if rt.opts.ProjectTrusted != nil {
		return rt.opts.ProjectTrusted()
	}
	cwd := rt.Cwd()
	if mgr := rt.ext.mgr; mgr != nil && mgr.Cwd() == cwd && mgr.Approved() && rt.trustFlag(cwd) != trust.FlagDeny {
		return true // trusted for this process (project_trust without remember)
	}
	return decideStartTrust(rt.agentDir(), cwd, rt.trustFlag(cwd), rt.log)
}

// askProjectTrust sends project_trust at start-up, once the user's and
// the command line's (-e) extensions have loaded and before the
// project's, when the rule left the project untrusted without a word
// from the command line (--trust-project, -a, -na) and the project has
// something its trust would let in (resources.NeedsTrust). The first
// "yes" or "no" decides; a "yes" trusts the project as trust_project does
// (its extensions, MCP servers, skills, templates and system prompt files;
// its settings file and packages from the next start), recorded in
// trust.json with remember, for this process only without. Anything else
// leaves it untrusted. It reports whether the answer trusted the project.
func (rt *Runtime) askProjectTrust(ctx context.Context) bool {
	mgr := rt.ext.mgr
	cwd := mgr.Cwd()
	if mgr.Trusted() || rt.trustFlag(cwd) != trust.FlagAsk || !rt.ext.bus.Has(hooks.ProjectTrust) {
		return false
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		home = filepath.Clean(home)
	}
	if !resources.NeedsTrust(cwd, home) {
		return false
	}
	r, ok := rt.ext.bus.ProjectTrust(ctx, hooks.ProjectTrustEvent{Cwd: cwd})
	if !ok || r.Trusted != hooks.TrustYes {
		rt.log.Info("project_trust: the project stays untrusted", "project", cwd, "decided", ok)
		return false
	}
	var err error
	if r.Remember {
		_, err = mgr.TrustProject(ctx)
	} else {
		_, err = mgr.ApproveProject(ctx)
	}
	if err != nil {
		rt.log.Warn("project trust", "project", cwd, "err", err)
	}
	rt.setTrust(cwd, true)
	rt.applyMCP()
	return true
}

// setTrust records the decision for a project.
func (rt *Runtime) setTrust(cwd string, ok bool) {
	rt.trust.set(cwd, ok)
}

// trustFlag is the command line's word for the project at cwd:
// --trust-project names only the project the agent was started in; -a and
// -na speak for every project of the process.
func (rt *Runtime) trustFlag(cwd string) trust.Flag {
	if f := rt.opts.Trust; f != trust.FlagRecord || cwd == rt.opts.Cwd {
		return f
	}
	return trust.FlagAsk
}

// projectTrusted decides whether the current working directory's project
// may supply resources. A session in another directory (switch_session)
// is judged by the same rule (trustFlag).
func (rt *Runtime) projectTrusted() bool {
	cwd := rt.Cwd()
	if ok, known := rt.trust.decided(cwd); known {
		return ok
	}
	ok, err := extensions.DecideProjectTrust(rt.agentDir(), cwd, rt.trustFlag(cwd))
	if err != nil {
		rt.log.Warn("project trust", "project", cwd, "err", err)
	}
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
	if rt.trust.firstWarning(cwd) {
		rt.log.Warn("project files skipped: the project is not trusted (run with --trust-project or send trust_project)",
			"project", cwd, "skipped", paths)
	}
}

// DecideProjectTrust applies the project trust rule for commands that
// run without a session (atomic install -l): flag (--trust-project)
// trusts and records.
func DecideProjectTrust(agentDir, cwd string, flag trust.Flag) (bool, error) {
	return extensions.DecideProjectTrust(agentDir, cwd, flag)
}

// RecordProjectChange re-records a trusted project's fingerprint after
// the user changed its settings file through a command (atomic install
// -l), so that the user's own edit does not make the project untrusted.
// Nothing is recorded when trust comes from defaultProjectTrust
// "always".
func RecordProjectChange(agentDir, cwd string) error {
	if def, _ := trust.UserDefault(agentDir); def == trust.DefaultAlways {
		return nil
	}
	return trust.Record(agentDir, cwd, extensions.ProjectFingerprint(agentDir, cwd))
}
