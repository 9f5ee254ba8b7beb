package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// ContextFileNames are the names of context files, in order of preference:
// in each directory the first that exists is used.
var ContextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// loadContextFiles returns the context files of agentDir and, when
// includeProject, of every directory from the file system root down to
// cwd, in that order.
func loadContextFiles(agentDir, cwd string, includeProject bool) ([]ContextFile, []Diagnostic) {
	dirs := []string{agentDir}
	if includeProject {
		var chain []string
		for d := filepath.Clean(cwd); ; {
			chain = append(chain, d)
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
		for i := len(chain) - 1; i >= 0; i-- {
			dirs = append(dirs, chain[i])
		}
	}
	var files []ContextFile
	var diags []Diagnostic
	seen := map[string]bool{}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		for _, name := range ContextFileNames {
			p := filepath.Join(dir, name)
			st, err := os.Stat(p)
			if err != nil {
				continue
			}
			if !st.Mode().IsRegular() {
				// A directory of that name is skipped quietly (as pi
				// does); a FIFO or a device is reported, never opened.
				if !st.IsDir() && !seen[p] {
					seen[p] = true
					diags = append(diags, Diagnostic{Type: DiagWarning, ResourceType: KindContext, Message: "skipped: " + fmt.Sprintf("%s is %s, not a regular file", p, fsutil.Kind(st.Mode())), Path: p})
				}
				continue
			}
			if !seen[p] {
				seen[p] = true
				content, err := readText(p)
				if err != nil {
					diags = append(diags, Diagnostic{Type: DiagError, ResourceType: KindContext, Message: "cannot read: " + errText(err), Path: p})
				} else {
					files = append(files, ContextFile{Path: p, Content: content})
				}
			}
			break
		}
	}
	return files, diags
}

// readText reads a text file of at most fsutil.MaxResourceFile bytes.
func readText(p string) (string, error) {
	r := readCandidate(candidate{path: p})
	if r.err != nil {
		return "", r.err
	}
	return strings.TrimPrefix(r.text, "\ufeff"), nil
}
