package extensions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/config"
)

// TrustFile is where trusted projects are recorded, in the agent dir:
//
//	{"version": 1, "projects": {"/abs/project": {"fingerprint": "sha256:…", "trustedAt": "…"}}}
//
// The fingerprint covers every project extension file and the project
// settings file, so a changed or added file asks again.
const TrustFile = "trust.json"

type trustDoc struct {
	Version  int                     `json:"version"`
	Projects map[string]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	Fingerprint string `json:"fingerprint"`
	TrustedAt   string `json:"trustedAt"`
}

// Fingerprint hashes the project's extension files: for each spec its
// entry files (the executable or script, and a directory's manifest),
// path and content, plus the project settings file.
func Fingerprint(cwd string, specs []Spec, projectSettings string) string {
	var files []string
	for _, s := range specs {
		if s.Scope != ScopeProject {
			continue
		}
		files = append(files, entryFiles(s)...)
	}
	if projectSettings != "" {
		files = append(files, projectSettings)
	}
	sort.Strings(files)
	h := sha256.New()
	prev := ""
	for _, f := range files {
		if f == prev {
			continue
		}
		prev = f
		rel, err := filepath.Rel(cwd, f)
		if err != nil {
			rel = f
		}
		io.WriteString(h, rel)
		h.Write([]byte{0})
		if fh, err := os.Open(f); err == nil {
			fs := sha256.New()
			_, _ = io.Copy(fs, fh)
			fh.Close()
			h.Write(fs.Sum(nil))
		} else {
			io.WriteString(h, "missing")
		}
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func entryFiles(s Spec) []string {
	var out []string
	st, err := os.Stat(s.Path)
	if err != nil {
		return []string{s.Path}
	}
	if s.Kind == KindScript {
		// A script imports its neighbours: every script file of its
		// directory tree is part of what runs.
		dir := s.Path
		if !st.IsDir() {
			dir = filepath.Dir(s.Path)
		}
		return append(scriptTree(dir), s.Path)
	}
	if !st.IsDir() {
		return []string{s.Path}
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
	return out
}

// Bounds of the script tree walk.
const (
	scriptTreeDepth = 4
	scriptTreeFiles = 500
)

// scriptTree lists the script and data files under dir (no dot entries,
// no node_modules), bounded.
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

// ProjectFingerprint fingerprints the project at cwd as it is on disk:
// its extension files and its settings file. The command line (-e,
// --no-extensions) does not change it, so one recorded trust holds for
// every way of starting the agent in the project.
func ProjectFingerprint(agentDir, cwd string) string {
	d := Discover(DiscoverOptions{AgentDir: agentDir, Cwd: cwd})
	return Fingerprint(cwd, d.Specs, d.ProjectSettings)
}

// DecideProjectTrust is the trust rule for everything a project supplies
// (extensions, skills, prompt templates, context files, SYSTEM.md,
// APPEND_SYSTEM.md, ./.atomic/settings.json). The project at cwd is
// trusted when
//
//   - flag is set (--trust-project): the trust is recorded too;
//   - the user's settings say defaultProjectTrust "always";
//   - trust.json records the project with its current fingerprint, unless
//     the user's settings say defaultProjectTrust "never".
//
// Otherwise ("ask", the default) it is untrusted until trust is recorded.
// The error is a failure to record the trust; the project is trusted all
// the same.
func DecideProjectTrust(agentDir, cwd string, flag bool) (bool, error) {
	switch def := UserDefaultTrust(agentDir); {
	case flag && agentDir == "":
		return true, nil
	case flag:
		return true, Trust(agentDir, cwd, ProjectFingerprint(agentDir, cwd))
	case def == "always":
		return true, nil
	case def == "never":
		return false, nil
	}
	return IsTrusted(agentDir, cwd, ProjectFingerprint(agentDir, cwd)), nil
}

// IsTrusted reports whether the project is recorded as trusted with this
// fingerprint.
func IsTrusted(agentDir, project, fingerprint string) bool {
	doc := readTrust(agentDir)
	e, ok := doc.Projects[project]
	return ok && e.Fingerprint == fingerprint
}

// Trust records the project as trusted with this fingerprint.
func Trust(agentDir, project, fingerprint string) error {
	doc := readTrust(agentDir)
	doc.Projects[project] = trustedEntry{Fingerprint: fingerprint, TrustedAt: time.Now().UTC().Format(time.RFC3339)}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(filepath.Join(agentDir, TrustFile), append(b, '\n'), 0o600)
}

func readTrust(agentDir string) trustDoc {
	doc := trustDoc{Version: 1, Projects: map[string]trustedEntry{}}
	data, err := os.ReadFile(filepath.Join(agentDir, TrustFile))
	if err != nil {
		return doc
	}
	_ = json.Unmarshal(data, &doc)
	if doc.Projects == nil {
		doc.Projects = map[string]trustedEntry{}
	}
	doc.Version = 1
	return doc
}

// UserDefaultTrust reads "defaultProjectTrust" from the user's settings
// file only: a project must not be able to trust itself through its own
// ./.atomic/settings.json.
func UserDefaultTrust(agentDir string) string {
	data, err := os.ReadFile(filepath.Join(agentDir, "settings.json"))
	if err != nil {
		return ""
	}
	var doc struct {
		DefaultProjectTrust string `json:"defaultProjectTrust"`
	}
	_ = json.Unmarshal(data, &doc)
	return doc.DefaultProjectTrust
}
