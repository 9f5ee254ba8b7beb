package resources

import (
	"os"
	"path/filepath"

	"github.com/atomic-go/atomic/host/config"
)

// UntrustedMessage is the message of the diagnostics that name what an
// untrusted project would have supplied.
const UntrustedMessage = "skipped: the project is not trusted (run with --trust-project or send trust_project)"

// skippedProjectFiles lists, as warnings, the project files that exist
// but are left out because the project is not trusted: the project's
// skill and prompt directories, and its SYSTEM.md and APPEND_SYSTEM.md.
// (Context files are read whatever the trust, as pi 1.6 reads them: they
// are text the user can see, not code or settings.)
func skippedProjectFiles(opts Options) []Diagnostic {
	if opts.ProjectTrusted || opts.Cwd == "" {
		return nil
	}
	var out []Diagnostic
	add := func(kind, p string) {
		out = append(out, Diagnostic{Type: DiagWarning, ResourceType: kind, Message: UntrustedMessage, Path: p})
	}
	isDir := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.IsDir()
	}
	base := config.ProjectDir(opts.Cwd)
	if !opts.NoSkills {
		dirs := []string{filepath.Join(base, "skills")}
		for _, sub := range []string{".agents", ".claude"} {
			for _, d := range projectChain(opts.Cwd, opts.Home) {
				dirs = append(dirs, filepath.Join(d, sub, "skills"))
			}
		}
		for _, d := range dirs {
			if isDir(d) {
				add(KindSkill, d)
			}
		}
	}
	if !opts.NoTemplates && isDir(filepath.Join(base, "prompts")) {
		add(KindPrompt, filepath.Join(base, "prompts"))
	}
	for _, name := range []string{"SYSTEM.md", "APPEND_SYSTEM.md"} {
		if st, err := os.Stat(filepath.Join(base, name)); err == nil && !st.IsDir() {
			add(KindSystem, filepath.Join(base, name))
		}
	}
	return out
}

// NeedsTrust reports whether the project at cwd has anything its trust
// would let in: its config directory (.atomic: settings, extensions,
// skills, prompts, SYSTEM.md, MCP servers), a skills directory of
// .agents or .claude in cwd or a parent up to the git root (home's are
// the user's), or an MCP file in cwd. A project without any needs no
// decision (project_trust is not sent for it).
func NeedsTrust(cwd, home string) bool {
	exists := func(p string, dir bool) bool {
		st, err := os.Stat(p)
		return err == nil && st.IsDir() == dir
	}
	if exists(config.ProjectDir(cwd), true) {
		return true
	}
	for _, d := range projectChain(cwd, home) {
		for _, sub := range []string{".agents", ".claude"} {
			if exists(filepath.Join(d, sub, "skills"), true) {
				return true
			}
		}
	}
	return exists(filepath.Join(cwd, ".mcp.json"), false) || exists(filepath.Join(cwd, "mcp.json"), false)
}
