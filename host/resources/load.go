package resources

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/atomic-go/atomic/host/config"
)

// PathEntry is a skill or template path from settings or an extension.
type PathEntry struct {
	Path  string // absolute
	Scope string // ScopeUser or ScopeProject (settings), ScopeTemporary (extensions)
}

// PackageEntry is a skill or template file a package contributes; Info
// names the package (Source is its source, Origin OriginPackage, BaseDir
// its root).
type PackageEntry struct {
	Path string
	Info SourceInfo
}

// Options say where to look for resources.
type Options struct {
	Cwd      string
	AgentDir string
	Home     string // the user's home directory ("" to skip ~/.agents and ~/.claude)
	// ProjectTrusted allows the project's files: its skills, templates,
	// settings lists, SYSTEM.md, APPEND_SYSTEM.md and the context files
	// of the cwd and its parents. When false only the user's files, the
	// command line's and the built-ins are used.
	ProjectTrusted bool

	NoSkills       bool // only --skill paths (no discovery, no settings, no built-ins)
	NoTemplates    bool // only --prompt-template paths
	NoContextFiles bool
	NoBuiltins     bool // leave out the built-in skills and templates

	SkillPaths    []string // --skill, absolute
	TemplatePaths []string // --prompt-template, absolute

	SettingsSkills    []PathEntry // "skills" of the project, then the user settings
	SettingsTemplates []PathEntry // "prompts" likewise

	ExtensionSkills    []PathEntry // added by extensions (resources_discover)
	ExtensionTemplates []PathEntry

	// PackageSkills and PackageTemplates are the files packages
	// contribute (host/packages), each with its package as source: those
	// of the command line's packages (scope temporary) come right after
	// --skill / --prompt-template, the others after the user's
	// directories.
	PackageSkills    []PackageEntry
	PackageTemplates []PackageEntry

	// BuiltinCacheDir is where the built-in skills are written so that
	// the model can read them ("" keeps them in memory only).
	BuiltinCacheDir string
}

// Set is the result of Load: every resource found, in precedence order,
// and the problems met on the way.
type Set struct {
	Skills       []Skill
	Templates    []Template
	ContextFiles []ContextFile

	// SystemFile and SystemText are the SYSTEM.md that replaces the
	// default system prompt (project, else user), if any.
	SystemFile, SystemText string
	// AppendFile and AppendText are the APPEND_SYSTEM.md appended to it.
	AppendFile, AppendText string

	Diagnostics []Diagnostic
	// Overlaps are the built-in resources that a user or project resource
	// of the same name replaces (silently: no diagnostic), for get_state's
	// resourceOverlaps.
	Overlaps []Overlap

	skillIndex    map[string]int
	templateIndex map[string]int
}

// Load discovers skills, templates, context files and the system prompt
// files. It never fails: problems are in Set.Diagnostics.
//
// Precedence, highest first (the first resource of a name wins; later ones
// are reported as collisions, except that overriding a built-in is
// silent):
//
//  1. --skill / --prompt-template paths (loaded even with --no-skills /
//     --no-prompt-templates);
//  2. the project settings' "skills" / "prompts" lists;
//  3. the project's directories: ./.atomic/skills, then .agents/skills and
//     then .claude/skills in the cwd and each parent up to the git root
//     (skills); ./.atomic/prompts (templates);
//  4. the user settings' "skills" / "prompts" lists;
//  5. the user's directories: <agentDir>/skills, ~/.agents/skills,
//     ~/.claude/skills (skills); <agentDir>/prompts (templates);
//  6. package files (host/packages), project packages before user ones;
//     command-line packages (-e npm:…) come right after 1;
//  7. paths added by extensions;
//  8. the built-ins.
func Load(opts Options) *Set {
	set := &Set{}
	set.loadSkills(opts)
	set.loadTemplates(opts)
	if !opts.NoContextFiles {
		files, diags := loadContextFiles(opts.AgentDir, opts.Cwd, true) // text, read whatever the trust (as pi 1.6)
		set.ContextFiles = files
		set.Diagnostics = append(set.Diagnostics, diags...)
	}
	set.SystemFile, set.SystemText = set.systemFile(opts, "SYSTEM.md")
	set.AppendFile, set.AppendText = set.systemFile(opts, "APPEND_SYSTEM.md")
	set.Diagnostics = append(set.Diagnostics, skippedProjectFiles(opts)...)
	return set
}

func (set *Set) systemFile(opts Options, name string) (string, string) {
	var dirs []string
	if opts.ProjectTrusted && opts.Cwd != "" {
		dirs = append(dirs, config.ProjectDir(opts.Cwd))
	}
	if opts.AgentDir != "" {
		dirs = append(dirs, opts.AgentDir)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		text, err := readText(p)
		if err != nil {
			set.Diagnostics = append(set.Diagnostics, Diagnostic{Type: DiagError, ResourceType: KindSystem, Message: "cannot read: " + errText(err), Path: p})
			continue
		}
		return p, text
	}
	return "", ""
}

func (set *Set) loadSkills(opts Options) {
	s := newScanner(KindSkill)
	var cands []candidate
	cli := SourceInfo{Source: SourceCLI, Scope: ScopeTemporary, Origin: OriginTopLevel}
	for _, p := range opts.SkillPaths {
		s.skillRoot(p, cli, true, false, &cands)
	}
	pkgs := func(temporary bool) {
		for _, e := range opts.PackageSkills {
			if (e.Info.Scope == ScopeTemporary) == temporary {
				s.skillRoot(e.Path, e.Info, true, false, &cands)
			}
		}
	}
	pkgs(true)
	if !opts.NoSkills {
		settingsRoots := func(scope string) {
			for _, e := range opts.SettingsSkills {
				if e.Scope == scope && (scope != ScopeProject || opts.ProjectTrusted) {
					s.skillRoot(e.Path, SourceInfo{Source: SourceLocal, Scope: scope, Origin: OriginTopLevel}, true, false, &cands)
				}
			}
		}
		settingsRoots(ScopeProject)
		if opts.ProjectTrusted && opts.Cwd != "" {
			auto := SourceInfo{Source: SourceAuto, Scope: ScopeProject, Origin: OriginTopLevel}
			base := config.ProjectDir(opts.Cwd)
			s.skillRoot(filepath.Join(base, "skills"), withBase(auto, base), true, true, &cands)
			chain := projectChain(opts.Cwd, opts.Home)
			for _, sub := range []string{".agents", ".claude"} {
				for _, d := range chain {
					base := filepath.Join(d, sub)
					s.skillRoot(filepath.Join(base, "skills"), withBase(auto, base), false, true, &cands)
				}
			}
		}
		settingsRoots(ScopeUser)
		auto := SourceInfo{Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel}
		if opts.AgentDir != "" {
			s.skillRoot(filepath.Join(opts.AgentDir, "skills"), withBase(auto, opts.AgentDir), true, true, &cands)
		}
		if opts.Home != "" {
			for _, sub := range []string{".agents", ".claude"} {
				base := filepath.Join(opts.Home, sub)
				s.skillRoot(filepath.Join(base, "skills"), withBase(auto, base), false, true, &cands)
			}
		}
		pkgs(false)
		for _, e := range opts.ExtensionSkills {
			s.skillRoot(e.Path, SourceInfo{Source: SourceExt, Scope: ScopeTemporary, Origin: OriginTopLevel}, true, false, &cands)
		}
		if !opts.NoBuiltins {
			cands = append(cands, builtinSkills(opts.BuiltinCacheDir)...)
		}
	}
	set.Diagnostics = append(set.Diagnostics, s.diags...)
	files := loadAll(KindSkill, cands, func(c candidate, text string) (Skill, []Diagnostic, bool) {
		return parseSkill(text, c.path, c.defaultName, c.info)
	})
	set.skillIndex = map[string]int{}
	winners := map[string]string{}
	seen := map[fileID]bool{}
	for i, c := range cands {
		f := &files[i]
		if f.err != nil {
			set.Diagnostics = append(set.Diagnostics, Diagnostic{Type: DiagError, ResourceType: KindSkill, Message: "cannot read: " + errText(f.err), Path: c.path})
			continue
		}
		if seen[f.id] {
			continue // the same file reached again through a link
		}
		seen[f.id] = true
		set.Diagnostics = append(set.Diagnostics, f.diags...)
		if !f.ok {
			continue
		}
		sk := f.val
		if winner, taken := winners[sk.Name]; taken {
			if !c.builtin {
				set.Diagnostics = append(set.Diagnostics, collision(KindSkill, sk.Name, winner, c.path))
			} else {
				set.Overlaps = append(set.Overlaps, Overlap{ResourceType: KindSkill, Name: sk.Name, Bundled: sk.Info, Inherited: set.Skills[set.skillIndex[sk.Name]].Info})
			}
			continue
		}
		winners[sk.Name] = c.path
		set.skillIndex[sk.Name] = len(set.Skills)
		set.Skills = append(set.Skills, sk)
	}
}

func (set *Set) loadTemplates(opts Options) {
	s := newScanner(KindPrompt)
	var cands []candidate
	cli := SourceInfo{Source: SourceCLI, Scope: ScopeTemporary, Origin: OriginTopLevel}
	for _, p := range opts.TemplatePaths {
		s.templateRoot(p, cli, false, &cands)
	}
	pkgs := func(temporary bool) {
		for _, e := range opts.PackageTemplates {
			if (e.Info.Scope == ScopeTemporary) == temporary {
				s.templateRoot(e.Path, e.Info, false, &cands)
			}
		}
	}
	pkgs(true)
	if !opts.NoTemplates {
		settingsRoots := func(scope string) {
			for _, e := range opts.SettingsTemplates {
				if e.Scope == scope && (scope != ScopeProject || opts.ProjectTrusted) {
					s.templateRoot(e.Path, SourceInfo{Source: SourceLocal, Scope: scope, Origin: OriginTopLevel}, false, &cands)
				}
			}
		}
		settingsRoots(ScopeProject)
		if opts.ProjectTrusted && opts.Cwd != "" {
			base := config.ProjectDir(opts.Cwd)
			s.templateRoot(filepath.Join(base, "prompts"), SourceInfo{Source: SourceAuto, Scope: ScopeProject, Origin: OriginTopLevel, BaseDir: base}, true, &cands)
		}
		settingsRoots(ScopeUser)
		if opts.AgentDir != "" {
			s.templateRoot(filepath.Join(opts.AgentDir, "prompts"), SourceInfo{Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel, BaseDir: opts.AgentDir}, true, &cands)
		}
		pkgs(false)
		for _, e := range opts.ExtensionTemplates {
			s.templateRoot(e.Path, SourceInfo{Source: SourceExt, Scope: ScopeTemporary, Origin: OriginTopLevel}, false, &cands)
		}
		if !opts.NoBuiltins {
			cands = append(cands, builtinTemplates()...)
		}
	}
	set.Diagnostics = append(set.Diagnostics, s.diags...)
	files := loadAll(KindPrompt, cands, func(c candidate, text string) (Template, []Diagnostic, bool) {
		return parseTemplate(text, c.path, c.defaultName, c.info)
	})
	set.templateIndex = map[string]int{}
	winners := map[string]string{}
	seen := map[fileID]bool{}
	for i, c := range cands {
		f := &files[i]
		if f.err != nil {
			set.Diagnostics = append(set.Diagnostics, Diagnostic{Type: DiagError, ResourceType: KindPrompt, Message: "cannot read: " + errText(f.err), Path: c.path})
			continue
		}
		if seen[f.id] {
			continue // the same file reached again through a link
		}
		seen[f.id] = true
		set.Diagnostics = append(set.Diagnostics, f.diags...)
		if !f.ok {
			continue
		}
		t := f.val
		if winner, taken := winners[t.Name]; taken {
			if !c.builtin {
				set.Diagnostics = append(set.Diagnostics, collision(KindPrompt, "/"+t.Name, winner, c.path))
			} else {
				set.Overlaps = append(set.Overlaps, Overlap{ResourceType: KindPrompt, Name: t.Name, Bundled: t.Info, Inherited: set.Templates[set.templateIndex[t.Name]].Info})
			}
			continue
		}
		winners[t.Name] = c.path
		set.templateIndex[t.Name] = len(set.Templates)
		set.Templates = append(set.Templates, t)
	}
}

func withBase(info SourceInfo, base string) SourceInfo {
	info.BaseDir = base
	return info
}

func collision(kind, name, winner, loser string) Diagnostic {
	return Diagnostic{
		Type: DiagCollision, ResourceType: kind, Path: loser,
		Message:   fmt.Sprintf("name %q is already taken by %s; this one is ignored", name, winner),
		Collision: &Collision{Name: name, WinnerPath: winner, LoserPath: loser},
	}
}

// projectChain returns cwd and its parents up to the root of the git work
// tree that holds cwd (or up to the file system root outside one),
// leaving out home (whose .agents and .claude are the user's).
func projectChain(cwd, home string) []string {
	var chain []string
	for d := filepath.Clean(cwd); ; {
		if d != home {
			chain = append(chain, d)
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return chain
		}
		parent := filepath.Dir(d)
		if parent == d {
			return chain
		}
		d = parent
	}
}

// Skill returns the skill of a name.
func (set *Set) Skill(name string) (Skill, bool) {
	if i, ok := set.skillIndex[name]; ok {
		return set.Skills[i], true
	}
	return Skill{}, false
}

// Template returns the template of a name.
func (set *Set) Template(name string) (Template, bool) {
	if i, ok := set.templateIndex[name]; ok {
		return set.Templates[i], true
	}
	return Template{}, false
}
