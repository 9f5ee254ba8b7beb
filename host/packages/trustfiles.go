package packages

import (
	"io/fs"
	"os"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/trust"
	"github.com/atomic-go/atomic/internal/fsutil"
)

func init() { extensions.PackageFiles = ProjectFiles }

// ProjectFiles lists what the project trust fingerprint covers of the
// project's packages: for each local package its project settings file
// lists, the package path itself and every file below it (its manifest,
// extension code, skills, prompts, themes; not .git or node_modules),
// without following symlinks (those leading out of the package are refused
// when it loads). ok is false when a package is larger than the
// fingerprint's bounds: the project is then never trusted by a record.
// npm and git packages are pinned by their settings entry, which the
// fingerprint covers already.
func ProjectFiles(agentDir, cwd string) (files []string, ok bool) {
	entries, _ := ReadEntries(SettingsFile(agentDir, cwd, ScopeProject), ScopeProject)
	in := &Installer{AgentDir: agentDir, Cwd: cwd}
	base := BaseDir(agentDir, cwd, ScopeProject)
	for _, e := range entries {
		src, err := ParseSource(e.Source)
		if err != nil || src.Kind != KindLocal {
			continue
		}
		root := in.Path(src, ScopeProject, base)
		files = append(files, root)
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			continue
		}
		probs := fsutil.Walk(root, fsutil.WalkOptions{
			MaxEntries: trust.MaxFingerprintFiles,
			Skip: func(_ string, d fs.DirEntry) bool {
				return d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules")
			},
		}, func(p string, _ fs.DirEntry) { files = append(files, p) })
		for _, p := range probs {
			if p.Limit {
				return nil, false
			}
		}
		if len(files) > trust.MaxFingerprintFiles {
			return nil, false
		}
	}
	return files, true
}
