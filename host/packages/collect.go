package packages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/resources"
	"github.com/atomic-go/atomic/host/tools"

	"github.com/atomic-go/atomic/internal/fsutil"
	"github.com/bmatcuk/doublestar/v4"
)

// Manifest is what a package.json declares under "atomic" (ours and
// Atomic's) or, failing that, "pi" (the reference's): resource paths per
// type, relative to the package root, with globs and "!", "+", "-"
// patterns. A type that is absent (nil) contributes nothing once any type
// is listed; a package.json without either key has no manifest and the
// conventional directories are used.
type Manifest map[string][]string

// ReadManifest reads root/package.json's manifest; nil when there is none
// (no file, no key, or a key that lists no resources). version is the
// package.json "version".
func ReadManifest(root string) (m Manifest, version string) {
	data, err := fsutil.ReadRegular(filepath.Join(root, "package.json"), fsutil.MaxSettingsFile)
	if err != nil {
		return nil, ""
	}
	var pkg struct {
		Version string                     `json:"version"`
		Atomic  map[string]json.RawMessage `json:"atomic"`
		Pi      map[string]json.RawMessage `json:"pi"`
	}
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &pkg) != nil {
		return nil, ""
	}
	for _, obj := range []map[string]json.RawMessage{pkg.Atomic, pkg.Pi} {
		m := Manifest{}
		for _, t := range Types {
			var list []string
			if raw, ok := obj[t]; ok && json.Unmarshal(raw, &list) == nil {
				m[t] = append([]string{}, list...)
			}
		}
		if len(m) > 0 {
			return m, pkg.Version
		}
	}
	return nil, pkg.Version
}

// collected is what one package contributes, per type, in order.
type collected struct {
	files    map[string][]string
	problems []string
	any      bool // a manifest or a conventional directory was found
	// walked caches leaves per extension directory.
	walked map[string]string
}

// collect lists the files of a package root for each type, applying the
// manifest, then the settings entry's filter (nil for none).
func collect(root string, filter Filter) collected {
	man, _ := ReadManifest(root)
	return collectWith(root, man, filter)
}

// collectWith is collect with the manifest read already.
func collectWith(root string, man Manifest, filter Filter) collected {
	c := collected{files: map[string][]string{}}
	c.any = man != nil
	for _, t := range Types {
		pats, filtered := filter[t]
		entries, listed := man[t]
		// Which list the package offers: its manifest's, or its
		// conventional directory. As the reference does, a filtered entry
		// falls back to the directory for a type the manifest leaves out
		// (or lists empty, when the filter has patterns).
		fromManifest := listed
		if filtered && len(pats) > 0 {
			fromManifest = listed && len(entries) > 0
		}
		var offered []string
		switch {
		case filtered && len(pats) == 0:
			// [] loads none of the type.
			continue
		case fromManifest:
			offered = c.manifestFiles(root, t, entries)
		case man == nil || filter != nil:
			offered = c.conventional(root, t)
		}
		if filtered {
			offered = applyPatterns(offered, pats, root)
		}
		c.files[t] = c.confine(root, t, offered)
	}
	return c
}

// confine keeps the files that stay inside the package root once every
// symlink on their path is resolved; the others are problems (refused), as
// the tools' path rule does for the working directory. Symlinks that stay
// inside the package are fine.
func (c *collected) confine(root, typ string, files []string) []string {
	if len(files) == 0 {
		return files
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		c.problems = append(c.problems, fmt.Sprintf("package root %s cannot be resolved: %v; its %s are refused", root, err, typ))
		return nil
	}
	out := files[:0]
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f)
		rel, _ := filepath.Rel(root, f)
		switch {
		case err != nil:
			c.problems = append(c.problems, fmt.Sprintf("%s %q cannot be resolved: %v; refused", typ, rel, err))
		case !within(realRoot, real):
			c.problems = append(c.problems, fmt.Sprintf("%s %q is a symlink leading outside the package (to %s); refused", typ, rel, real))
		case typ == TypeExtensions && c.leaves(realRoot, f) != "":
			c.problems = append(c.problems, fmt.Sprintf("%s %q: its directory holds a symlink leading outside the package (%s); refused", typ, rel, c.leaves(realRoot, f)))
		default:
			out = append(out, f)
		}
	}
	return out
}

// leaves returns a symlink leading outside realRoot below the directory
// of the extension f (f itself when a directory; its directory when a
// file, whose neighbours it may import), or "". Each directory is walked
// once.
func (c *collected) leaves(realRoot, f string) string {
	dir := f
	if st, err := os.Stat(f); err != nil || !st.IsDir() {
		dir = filepath.Dir(f)
	}
	if c.walked == nil {
		c.walked = map[string]string{}
	}
	if v, ok := c.walked[dir]; ok {
		return v
	}
	v := leavesRoot(realRoot, dir)
	c.walked[dir] = v
	return v
}

// leavesRoot returns a symlink below the directory dir (not in
// node_modules or dot directories) whose target is outside realRoot, or
// "". The walk is bounded.
func leavesRoot(realRoot, dir string) string {
	found := ""
	fsutil.Walk(dir, fsutil.WalkOptions{MaxDepth: 8, MaxEntries: 5000, Skip: func(_ string, d fs.DirEntry) bool {
		return d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), "."))
	}}, func(p string, d fs.DirEntry) {
		if found != "" || d.Type()&fs.ModeSymlink == 0 {
			return
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && !within(realRoot, real) {
			found = p + " -> " + real
		}
	})
	return found
}

// within reports whether path is root or below it (both resolved).
func within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// conventional lists the conventional directory of a type.
func (c *collected) conventional(root, typ string) []string {
	dir := filepath.Join(root, typ)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		c.any = true
		return c.dirFiles(dir, typ)
	}
	return nil
}

// manifestFiles lists the files a manifest's entries for one type name.
func (c *collected) manifestFiles(root, typ string, entries []string) []string {
	var all []string
	for _, e := range entries {
		if isOverride(e) {
			continue
		}
		if outside(root, strings.TrimPrefix(e, "./")) {
			c.problems = append(c.problems, fmt.Sprintf("%s %q is outside the package; refused", typ, e))
			continue
		}
		if hasGlob(e) {
			all = append(all, c.pathFiles(globPaths(root, e), typ)...)
			continue
		}
		p := filepath.Join(root, e)
		if _, err := os.Stat(p); err != nil {
			c.problems = append(c.problems, fmt.Sprintf("%s %q does not exist", typ, e))
			continue
		}
		all = append(all, c.pathFiles([]string{p}, typ)...)
	}
	var overrides []string
	for _, e := range entries {
		if isOverride(e) {
			overrides = append(overrides, e)
		}
	}
	if len(overrides) > 0 {
		all = applyPatterns(all, overrides, root)
	}
	return dedupe(all)
}

// outside reports whether the relative path rel leaves root.
func outside(root, rel string) bool {
	if filepath.IsAbs(rel) {
		return true
	}
	r, err := filepath.Rel(root, filepath.Join(root, rel))
	return err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// globPaths expands a glob relative to root; paths with a dot segment are
// left out (list such paths without a glob).
func globPaths(root, pattern string) []string {
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	matches, err := doublestar.Glob(os.DirFS(root), pattern)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range matches {
		dot := false
		for _, seg := range strings.Split(m, "/") {
			if strings.HasPrefix(seg, ".") {
				dot = true
			}
		}
		if !dot {
			out = append(out, filepath.Join(root, filepath.FromSlash(m)))
		}
	}
	sort.Strings(out)
	return out
}

// pathFiles turns manifest paths into files: files stay, directories are
// listed by the rule of their type.
func (c *collected) pathFiles(paths []string, typ string) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.IsDir():
			out = append(out, c.dirFiles(p, typ)...)
		default:
			out = append(out, p)
		}
	}
	return out
}

// dirFiles lists a directory's resources of a type: skills by the skills
// rule (host/resources), extensions by the extensions-directory rule
// (host/extensions), prompts (*.md) and themes (*.json) recursively.
func (c *collected) dirFiles(dir, typ string) []string {
	switch typ {
	case TypeSkills:
		return resources.SkillFiles(dir)
	case TypeExtensions:
		return extensions.EntryPaths(dir)
	case TypePrompts:
		return c.walkFiles(dir, ".md")
	}
	return c.walkFiles(dir, ".json")
}

// walkFiles lists the files with suffix below dir, honouring .gitignore,
// .ignore and .fdignore files, without dot entries and node_modules.
// Symlinks are followed, but never back into a directory on the current
// path (a loop), and the walk is bounded in depth and entries; what it
// leaves out is a problem.
func (c *collected) walkFiles(dir, suffix string) []string {
	var out []string
	entries := 0
	var walk func(d, real string, ign tools.IgnoreMatcher, onPath map[string]bool, depth int)
	walk = func(d, real string, ign tools.IgnoreMatcher, onPath map[string]bool, depth int) {
		if onPath[real] {
			c.problems = append(c.problems, fmt.Sprintf("%s: symbolic link loop (leads back to %s); skipped", d, real))
			return
		}
		if depth > maxWalkDepth {
			c.problems = append(c.problems, fmt.Sprintf("%s: more than %d directories deep; not searched further", d, maxWalkDepth))
			return
		}
		items, err := os.ReadDir(d)
		if err != nil {
			return
		}
		onPath[real] = true
		defer delete(onPath, real)
		ign = ign.Enter(d)
		for _, it := range items {
			if entries++; entries > fsutil.DefaultWalkEntries {
				if entries == fsutil.DefaultWalkEntries+1 {
					c.problems = append(c.problems, fmt.Sprintf("%s: more than %d entries; the rest is left out", dir, fsutil.DefaultWalkEntries))
				}
				return
			}
			name := it.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			p := filepath.Join(d, name)
			childReal := filepath.Join(real, name)
			isDir := it.IsDir()
			if it.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(p)
				if err != nil {
					continue
				}
				if isDir = st.IsDir(); isDir {
					if childReal, err = filepath.EvalSymlinks(p); err != nil {
						continue
					}
				}
			}
			if ign.Ignored(p, isDir) {
				continue
			}
			if isDir {
				walk(p, childReal, ign, onPath, depth+1)
			} else if strings.HasSuffix(name, suffix) {
				out = append(out, p)
			}
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	walk(dir, real, tools.IgnoreMatcher{}, map[string]bool{}, 0)
	return out
}

// maxWalkDepth bounds the directories walkFiles enters.
const maxWalkDepth = 16

func isOverride(p string) bool {
	return strings.HasPrefix(p, "!") || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-")
}

func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// applyPatterns selects from all (files of a package) with patterns:
// plain patterns include their matches (all files when there are none),
// "!pattern" excludes matches, "+path" adds an exact path back and
// "-path" removes an exact path, in that order.
func applyPatterns(all, patterns []string, root string) []string {
	var inc, exc, force, drop []string
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "+"):
			force = append(force, p[1:])
		case strings.HasPrefix(p, "-"):
			drop = append(drop, p[1:])
		case strings.HasPrefix(p, "!"):
			exc = append(exc, p[1:])
		default:
			inc = append(inc, p)
		}
	}
	keep := map[string]bool{}
	for _, f := range all {
		keep[f] = len(inc) == 0 || matchAny(f, inc, root)
		if keep[f] && matchAny(f, exc, root) {
			keep[f] = false
		}
		if !keep[f] && matchExact(f, force, root) {
			keep[f] = true
		}
		if keep[f] && matchExact(f, drop, root) {
			keep[f] = false
		}
	}
	var out []string
	for _, f := range all {
		if keep[f] {
			out = append(out, f)
		}
	}
	return out
}

// forms are the names a file can be matched by: its path relative to the
// package root, its base name and its absolute path; for a SKILL.md also
// those of its directory (a skill is named by its directory).
func forms(file, root string) []string {
	rel, _ := filepath.Rel(root, file)
	out := []string{filepath.ToSlash(rel), filepath.Base(file), filepath.ToSlash(file)}
	if filepath.Base(file) == resources.SkillFileName {
		dir := filepath.Dir(file)
		rd, _ := filepath.Rel(root, dir)
		out = append(out, filepath.ToSlash(rd), filepath.Base(dir), filepath.ToSlash(dir))
	}
	return out
}

func matchAny(file string, patterns []string, root string) bool {
	if len(patterns) == 0 {
		return false
	}
	fs := forms(file, root)
	for _, p := range patterns {
		p = filepath.ToSlash(filepath.Clean(p))
		for _, f := range fs {
			if ok, _ := doublestar.Match(p, f); ok {
				return true
			}
		}
	}
	return false
}

func matchExact(file string, patterns []string, root string) bool {
	if len(patterns) == 0 {
		return false
	}
	fs := forms(file, root)
	for _, p := range patterns {
		p = filepath.ToSlash(filepath.Clean(strings.TrimPrefix(p, "./")))
		for i, f := range fs {
			if i == 1 || i == 4 {
				continue // base names do not count for exact paths
			}
			if p == f {
				return true
			}
		}
	}
	return false
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, p := range list {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
