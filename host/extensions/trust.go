package extensions

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-go/atomic/host/trust"
)

// TrustFile is where trusted projects are recorded (see host/trust).
const TrustFile = trust.File

// Fingerprint hashes the project's extension files: for each spec its
// entry files (the executable or script, and a directory's manifest),
// path and content, plus the project files given (its settings file, its
// mcp.json; empty names are skipped).
func Fingerprint(cwd string, specs []Spec, projectFiles ...string) string {
	var files []string
	for _, s := range specs {
		if s.Scope != ScopeProject {
			continue
		}
		ef, ok := entryFiles(s)
		if !ok {
			return trust.NewUnmatchable("script-tree")
		}
		files = append(files, ef...)
	}
	for _, f := range projectFiles {
		if f != "" {
			files = append(files, f)
		}
	}
	return trust.Fingerprint(cwd, files)
}

// entryFiles lists a spec's files; ok is false when its script tree is
// past the bound (not all of it would be covered).
func entryFiles(s Spec) (out []string, ok bool) {
	st, err := os.Stat(s.Path)
	if err != nil {
		return []string{s.Path}, true
	}
	if s.Kind == KindScript {
		// A script imports its neighbours: every script file of its
		// directory tree is part of what runs.
		dir := s.Path
		if !st.IsDir() {
			dir = filepath.Dir(s.Path)
		}
		tree := scriptTree(dir)
		return append(tree, s.Path), len(tree) < scriptTreeFiles
	}
	if !st.IsDir() {
		return []string{s.Path}, true
	}
	if _, err := os.Stat(filepath.Join(s.Path, ManifestFile)); err == nil {
		out = append(out, filepath.Join(s.Path, ManifestFile))
	}
	if pkg := filepath.Join(s.Path, "package.json"); fileExists(pkg) {
		out = append(out, pkg)
	}
	for _, c := range s.Command {
		if filepath.IsAbs(c) && strings.HasPrefix(c, s.Path+string(filepath.Separator)) && fileExists(c) {
			out = append(out, c)
		}
	}
	return out, true
}

// Bounds of the script tree walk.
const (
	scriptTreeDepth = 4
	scriptTreeFiles = 500
)

// scriptTree lists the script and data files under dir (no dot entries,
// no node_modules), bounded: it stops at scriptTreeFiles files.
func scriptTree(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel(dir, p); rel != "." && strings.Count(rel, string(filepath.Separator)) >= scriptTreeDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if isScript(p) || strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".tsx") || strings.HasSuffix(p, ".jsx") {
			out = append(out, p)
		}
		if len(out) >= scriptTreeFiles {
			return filepath.SkipAll
		}
		return nil
	})
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// PackageFiles lists the files of the project's packages (those its
// settings file lists) that the fingerprint covers; ok false when they
// could not all be listed within bounds (the fingerprint then matches no
// record). host/packages sets it (this package cannot import that one).
var PackageFiles func(agentDir, cwd string) (files []string, ok bool)

// ProjectFingerprint fingerprints the project at cwd as it is on disk:
// its extension files, its settings file, its MCP files (.atomic/mcp.json,
// .mcp.json, mcp.json) and the files of its packages (PackageFiles). The
// command line (-e, --no-extensions) does not change it, so one recorded
// trust holds for every way of starting the agent in the project.
func ProjectFingerprint(agentDir, cwd string) string {
	d := Discover(DiscoverOptions{AgentDir: agentDir, Cwd: cwd})
	files := []string{d.ProjectSettings, projectMCPFile(cwd)}
	for _, name := range []string{".mcp.json", "mcp.json"} {
		if p := filepath.Join(cwd, name); fileExists(p) {
			files = append(files, p)
		}
	}
	if PackageFiles != nil {
		pf, ok := PackageFiles(agentDir, cwd)
		if !ok {
			return trust.NewUnmatchable("packages")
		}
		files = append(files, pf...)
	}
	return Fingerprint(cwd, d.Specs, files...)
}

// DecideProjectTrust is host/trust's rule (trust.Decide) for the project
// at cwd, with its fingerprint taken from the project's extension files
// and settings file as discovery finds them.
func DecideProjectTrust(agentDir, cwd string, flag trust.Flag) (bool, error) {
	return trust.Decide(agentDir, cwd, flag, func() string { return ProjectFingerprint(agentDir, cwd) })
}
