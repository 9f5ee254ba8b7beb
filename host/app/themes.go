package app

import (
	"path/filepath"
	"sort"
)

// ThemeFiles lists the theme files that packages and the project supply
// (the user's own, <agentDir>/themes, the terminal UI reads itself): the
// resolved packages' themes, then the project's .atomic/themes/*.json
// when the project is trusted. It waits for the package resolution.
func (rt *Runtime) ThemeFiles() []string {
	var out []string
	for _, r := range rt.packagesNow().Themes {
		out = append(out, r.Path)
	}
	if rt.projectTrusted() {
		files, _ := filepath.Glob(filepath.Join(rt.Cwd(), ".atomic", "themes", "*.json"))
		sort.Strings(files)
		out = append(out, files...)
	}
	return out
}
