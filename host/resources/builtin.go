package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/prompts"
	"github.com/atomic-go/atomic/skills"
)

// BuiltinPrefix starts the pseudo path of a built-in resource that has no
// file on disk.
const BuiltinPrefix = "<builtin>/"

var builtinInfo = SourceInfo{Source: SourceBuiltin, Scope: ScopeUser, Origin: OriginPackage}

// builtinTemplates returns the templates embedded from prompts/templates.
func builtinTemplates() []candidate {
	entries, err := fs.ReadDir(prompts.FS, prompts.TemplatesDir)
	if err != nil {
		return nil
	}
	var out []candidate
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := fs.ReadFile(prompts.FS, path.Join(prompts.TemplatesDir, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, candidate{
			path: BuiltinPrefix + "prompts/" + e.Name(), defaultName: strings.TrimSuffix(e.Name(), ".md"),
			info: builtinInfo, text: string(data), builtin: true,
		})
	}
	return out
}

// builtinSkillFiles lists the embedded skill files as path → content.
var builtinSkillFiles = sync.OnceValue(func() map[string][]byte {
	files := map[string][]byte{}
	_ = fs.WalkDir(skills.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if data, err := fs.ReadFile(skills.FS, p); err == nil {
			files[p] = data
		}
		return nil
	})
	return files
})

// builtinSkills returns the embedded skills. So that the model can read
// them with the read tool, their files are written once to a directory
// below cacheDir named after a hash of their content; when that is not
// possible (no cacheDir, read-only disk) they keep "<builtin>/" pseudo
// paths: /skill:name still works, but they are not listed to the model.
func builtinSkills(cacheDir string) []candidate {
	files := builtinSkillFiles()
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	root := materialize(cacheDir, files, names)
	var out []candidate
	for _, p := range names {
		if path.Base(p) != SkillFileName || strings.Count(p, "/") != 1 {
			continue
		}
		dir := path.Dir(p)
		file := BuiltinPrefix + "skills/" + p
		if root != "" {
			file = filepath.Join(root, filepath.FromSlash(p))
		}
		out = append(out, candidate{path: file, defaultName: dir, info: builtinInfo, text: string(files[p]), builtin: true})
	}
	return out
}

// materialize writes files below cacheDir/builtin-skills/<hash> unless
// they are there already, and returns that directory ("" on failure).
func materialize(cacheDir string, files map[string][]byte, names []string) string {
	if cacheDir == "" || len(names) == 0 {
		return ""
	}
	h := sha256.New()
	for _, p := range names {
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write(files[p])
		h.Write([]byte{0})
	}
	root := filepath.Join(cacheDir, "builtin-skills", hex.EncodeToString(h.Sum(nil))[:16])
	if st, err := os.Stat(root); err == nil && st.IsDir() {
		return root
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return ""
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), ".tmp-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(tmp)
	for _, p := range names {
		dst := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return ""
		}
		if err := os.WriteFile(dst, files[p], 0o644); err != nil {
			return ""
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return ""
	}
	if err := os.Rename(tmp, root); err != nil {
		// Another process may have won the race.
		if st, serr := os.Stat(root); serr == nil && st.IsDir() {
			return root
		}
		return ""
	}
	return root
}
