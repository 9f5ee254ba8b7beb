package packages

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Ops are the package commands (atomic install, remove, update) for one
// agent directory and working directory.
type Ops struct {
	AgentDir, Cwd string
	Installer     *Installer
}

func (o Ops) installer() *Installer {
	if o.Installer != nil {
		return o.Installer
	}
	return &Installer{AgentDir: o.AgentDir, Cwd: o.Cwd}
}

// settingsSource is how a source given on the command line is written
// into the settings of scope: npm and git sources as given; a local path
// relative to the project's .atomic directory (project scope), or
// absolute (user scope, unless it is inside the agent directory).
func (o Ops) settingsSource(src Source, scope string) string {
	if src.Kind != KindLocal {
		return strings.TrimSpace(src.Raw)
	}
	abs := src.Resolve(o.Cwd)
	base := BaseDir(o.AgentDir, o.Cwd, scope)
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return abs
	}
	inside := rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	if scope == ScopeProject || inside {
		return filepath.ToSlash(rel)
	}
	return abs
}

// sameAs returns the predicate "names the same package as src (given on
// the command line)" for the entries of a scope's settings.
func (o Ops) sameAs(src Source, scope string) func(string) bool {
	id := src.Identity(o.Cwd)
	base := BaseDir(o.AgentDir, o.Cwd, scope)
	return func(existing string) bool {
		e, err := ParseSource(existing)
		return err == nil && e.Identity(base) == id
	}
}

// Install installs a source into a scope and adds it to the scope's
// settings (after a successful install only). It returns the source as
// written into the settings and whether they changed.
func (o Ops) Install(ctx context.Context, source, scope string) (string, bool, error) {
	src, err := ParseSource(source)
	if err != nil {
		return "", false, err
	}
	if err := o.installer().Install(ctx, src, scope, o.Cwd); err != nil {
		return "", false, err
	}
	written := o.settingsSource(src, scope)
	changed, err := AddToSettings(SettingsFile(o.AgentDir, o.Cwd, scope), written, o.sameAs(src, scope))
	return written, changed, err
}

// Remove removes a source's entries from a scope's settings and its
// installed files. It fails when the scope's settings do not list it.
func (o Ops) Remove(ctx context.Context, source, scope string) error {
	src, err := ParseSource(source)
	if err != nil {
		return err
	}
	file := SettingsFile(o.AgentDir, o.Cwd, scope)
	removed, err := RemoveFromSettings(file, o.sameAs(src, scope))
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("no package matching %s in %s", strings.TrimSpace(source), file)
	}
	return o.installer().Remove(ctx, src, scope)
}

// UpdateResult is the outcome of updating one configured package.
type UpdateResult struct {
	Source, Scope string
	Change
	Err error
}

// Update updates the configured packages of the scopes (all of them, or
// the one matching target): unpinned npm packages to the newest matching
// version, unpinned git packages to their upstream branch; pinned and
// local ones are skipped.
func (o Ops) Update(ctx context.Context, target string, scopes []string) ([]UpdateResult, error) {
	var match func(string, string) bool
	if target != "" {
		src, err := ParseSource(target)
		if err != nil {
			return nil, err
		}
		id := src.Identity(o.Cwd)
		match = func(existing, scope string) bool {
			e, err := ParseSource(existing)
			return err == nil && e.Identity(BaseDir(o.AgentDir, o.Cwd, scope)) == id
		}
	}
	var out []UpdateResult
	for _, scope := range scopes {
		entries, probs := ReadEntries(SettingsFile(o.AgentDir, o.Cwd, scope), scope)
		if len(probs) > 0 {
			return out, fmt.Errorf("%s: %s", probs[0].Path, probs[0].Message)
		}
		for _, e := range entries {
			if match != nil && !match(e.Source, scope) {
				continue
			}
			r := UpdateResult{Source: e.Source, Scope: scope}
			src, err := ParseSource(e.Source)
			if err != nil {
				r.Err = err
			} else {
				r.Change, r.Err = o.installer().Update(ctx, src, scope)
			}
			out = append(out, r)
		}
	}
	if target != "" && len(out) == 0 {
		return nil, fmt.Errorf("no configured package matches %s", target)
	}
	return out, nil
}
