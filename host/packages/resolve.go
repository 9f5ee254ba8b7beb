package packages

import (
	"context"
	"os"
	"path/filepath"

	"github.com/atomic-go/atomic/host/config"
)

// Options configure Resolve.
type Options struct {
	AgentDir, Cwd string
	// ProjectTrusted allows the project's settings packages (read, and
	// installed when missing). An untrusted project's packages are never
	// read, so opening a directory installs nothing.
	ProjectTrusted bool
	// CLI are the -e sources that name packages, in argument order
	// (scope temporary: installed into a cache, not into settings).
	CLI []string
	// Install installs missing npm and git packages (start-up and
	// reload); without it they are listed as not installed.
	Install bool
	// Offline leaves missing packages uninstalled (reported).
	Offline   bool
	Installer *Installer
}

// Ref names the package a resource comes from.
type Ref struct {
	// Source is the source as the settings (or -e) wrote it.
	Source string `json:"source"`
	Scope  string `json:"scope"`
	// Root is the package's directory.
	Root string `json:"root,omitempty"`
}

// Resource is a file (or plugin directory) a package contributes.
type Resource struct {
	Path string
	Ref  Ref
}

// Package is one configured package and what became of it.
type Package struct {
	Ref
	Kind     string `json:"kind"`
	Identity string `json:"identity"`
	// File is the settings file that lists it ("" for -e).
	File      string `json:"settings,omitempty"`
	Filtered  bool   `json:"filtered"`
	Pinned    bool   `json:"pinned"`
	Installed bool   `json:"installed"`
	Version   string `json:"version,omitempty"`
	// Resources lists the contributed paths per type.
	Resources map[string][]string `json:"resources"`
	// Error says why the package contributes nothing (not installed,
	// install failed, missing path).
	Error string `json:"error,omitempty"`
	// Shadowed names the identity of a package listed earlier that wins
	// over this one (same package in project and user settings).
	Shadowed bool `json:"shadowed,omitempty"`
}

// Resolved is the outcome of Resolve.
type Resolved struct {
	// Packages in load order: -e ones, then the project's, then the
	// user's; shadowed duplicates are listed (Shadowed) but contribute
	// nothing.
	Packages []Package
	// Resources per type, in load order, each path once.
	Extensions, Skills, Prompts, Themes []Resource
	// CLI maps each -e package source to its extension paths (empty when
	// it could not be used).
	CLI map[string][]Resource
	// Problems are failures (installs, missing paths, bad entries, paths
	// outside a package) to report; the rest loaded.
	Problems []Problem
}

// BaseDir is the directory local sources of a scope are relative to: the
// settings file's directory, or the working directory for -e.
func BaseDir(agentDir, cwd, scope string) string {
	switch scope {
	case ScopeUser:
		return agentDir
	case ScopeProject:
		return config.ProjectDir(cwd)
	}
	return cwd
}

// SettingsFile is the settings file of a scope.
func SettingsFile(agentDir, cwd, scope string) string {
	return filepath.Join(BaseDir(agentDir, cwd, scope), config.SettingsFileName)
}

// Entries lists the configured entries in load order: -e sources, the
// project's (only when trusted), the user's; with the problems of the
// settings files.
func Entries(o Options) ([]Entry, []Problem) {
	var entries []Entry
	var probs []Problem
	for _, s := range o.CLI {
		entries = append(entries, Entry{Source: s, Scope: ScopeTemporary})
	}
	scopes := []string{ScopeUser}
	if o.ProjectTrusted {
		scopes = []string{ScopeProject, ScopeUser}
	}
	for _, sc := range scopes {
		e, p := ReadEntries(SettingsFile(o.AgentDir, o.Cwd, sc), sc)
		entries = append(entries, e...)
		probs = append(probs, p...)
	}
	return entries, probs
}

// Resolve reads the configured packages, installs the missing ones (with
// Install), and lists what each contributes. It never fails as a whole: a
// package that cannot be used is a problem and contributes nothing.
func Resolve(ctx context.Context, o Options) Resolved {
	in := o.Installer
	if in == nil {
		in = &Installer{AgentDir: o.AgentDir, Cwd: o.Cwd}
	}
	entries, probs := Entries(o)
	res := Resolved{Problems: probs, CLI: map[string][]Resource{}}
	for _, s := range o.CLI {
		res.CLI[s] = nil
	}
	seenID := map[string]bool{}
	seenPath := map[string]bool{}
	for _, e := range entries {
		pkg, files := resolveEntry(ctx, o, in, e, seenID)
		res.Packages = append(res.Packages, pkg)
		if pkg.Error != "" {
			res.Problems = append(res.Problems, Problem{Source: e.Source, Scope: e.Scope, Path: e.File, Message: pkg.Error})
		}
		for _, msg := range files.problems {
			res.Problems = append(res.Problems, Problem{Source: e.Source, Scope: e.Scope, Path: pkg.Root, Message: msg})
		}
		for _, t := range Types {
			for _, p := range files.files[t] {
				key := t + "\x00" + p
				if seenPath[key] {
					continue
				}
				seenPath[key] = true
				r := Resource{Path: p, Ref: pkg.Ref}
				switch t {
				case TypeExtensions:
					res.Extensions = append(res.Extensions, r)
					if e.Scope == ScopeTemporary {
						res.CLI[e.Source] = append(res.CLI[e.Source], r)
					}
				case TypeSkills:
					res.Skills = append(res.Skills, r)
				case TypePrompts:
					res.Prompts = append(res.Prompts, r)
				case TypeThemes:
					res.Themes = append(res.Themes, r)
				}
			}
		}
	}
	return res
}

func resolveEntry(ctx context.Context, o Options, in *Installer, e Entry, seen map[string]bool) (Package, collected) {
	pkg := Package{Ref: Ref{Source: e.Source, Scope: e.Scope}, File: e.File, Filtered: e.Filter != nil, Resources: withAllTypes(nil)}
	src, err := ParseSource(e.Source)
	if err != nil {
		pkg.Error = err.Error()
		return pkg, collected{}
	}
	base := BaseDir(o.AgentDir, o.Cwd, e.Scope)
	pkg.Kind, pkg.Pinned = src.Kind, src.Pinned()
	pkg.Identity = src.Identity(base)
	if seen[pkg.Identity] {
		pkg.Shadowed = true
		return pkg, collected{}
	}
	seen[pkg.Identity] = true
	root := in.Path(src, e.Scope, base)
	pkg.Root = root
	var man Manifest
	switch src.Kind {
	case KindLocal:
		st, err := os.Stat(root)
		if err != nil {
			pkg.Error = "path does not exist: " + root
			return pkg, collected{}
		}
		if err := bareRepositoryError(root); err != nil {
			pkg.Error = err.Error()
			return pkg, collected{}
		}
		pkg.Installed = true
		man, pkg.Version = ReadManifest(root)
		if !st.IsDir() {
			// A file is one extension.
			pkg.Ref.Root = filepath.Dir(root)
			c := collected{files: map[string][]string{TypeExtensions: {root}}}
			pkg.Resources = withAllTypes(c.files)
			return pkg, c
		}
	default:
		ok, m, version := quickInstalled(src, root)
		if !ok || !src.Accepts(version) {
			switch {
			case !o.Install:
				pkg.Error = "not installed (run atomic install " + e.Source + ", or start the agent)"
				if ok {
					pkg.Error = "installed version " + version + " does not match " + src.Version
				}
				return pkg, collected{}
			case o.Offline:
				pkg.Error = "not installed: offline"
				return pkg, collected{}
			}
			if err := in.InstallMissing(ctx, src, e.Scope, base); err != nil {
				pkg.Error = "cannot install " + e.Source + ": " + err.Error()
				return pkg, collected{}
			}
			ok, m, version = quickInstalled(src, root)
			if !ok {
				pkg.Error = "cannot install " + e.Source + ": not found after installing"
				return pkg, collected{}
			}
		}
		pkg.Installed, pkg.Version, man = true, version, m
	}
	c := collectWith(root, man, e.Filter)
	if src.Kind == KindLocal && !c.any && e.Filter == nil {
		// A directory without a manifest or conventional directories is
		// one extension.
		c.files[TypeExtensions] = []string{root}
	}
	pkg.Resources = withAllTypes(c.files)
	return pkg, c
}

// withAllTypes returns the package's files by type with every type
// present, an empty list where the package has none, so that a listing
// (atomic list --json) shows [] rather than null or nothing.
func withAllTypes(files map[string][]string) map[string][]string {
	out := make(map[string][]string, len(Types))
	for _, t := range Types {
		out[t] = []string{}
	}
	for t, l := range files {
		if l != nil {
			out[t] = l
		}
	}
	return out
}

// quickInstalled checks an npm or git install without running anything
// (start-up cost): the presence of package.json (npm) or .git (git); it
// returns the manifest and the package.json version.
func quickInstalled(src Source, root string) (bool, Manifest, string) {
	if src.Kind == KindGit {
		if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
			return false, nil, ""
		}
		m, v := ReadManifest(root)
		return true, m, v
	}
	m, v := ReadManifest(root)
	if m == nil && v == "" && !fileExists(filepath.Join(root, "package.json")) {
		return false, nil, ""
	}
	return true, m, v
}
