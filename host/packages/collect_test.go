package packages

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func rels(root string, list []string) []string {
	out := []string{}
	for _, p := range list {
		r, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(r))
	}
	sort.Strings(out)
	return out
}

func TestCollectConventionAndFilters(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"package.json":              `{"name": "p"}`,
		"extensions/a.ts":           "",
		"extensions/legacy.ts":      "",
		"extensions/dir/index.ts":   "",
		"extensions/notes.txt":      "",
		"skills/one/SKILL.md":       "",
		"skills/two/SKILL.md":       "",
		"skills/top.md":             "",
		"prompts/review.md":         "",
		"prompts/sub/deep.md":       "",
		"prompts/.hidden.md":        "",
		"themes/dark.json":          "",
		"node_modules/x/prompts.md": "",
	})
	c := collect(root, nil)
	want := map[string][]string{
		TypeExtensions: {"extensions/a.ts", "extensions/dir/index.ts", "extensions/legacy.ts"},
		TypeSkills:     {"skills/one/SKILL.md", "skills/top.md", "skills/two/SKILL.md"},
		TypePrompts:    {"prompts/review.md", "prompts/sub/deep.md"},
		TypeThemes:     {"themes/dark.json"},
	}
	for typ, w := range want {
		if got := rels(root, c.files[typ]); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %v, want %v", typ, got, w)
		}
	}
	f := Filter{
		TypeExtensions: {"extensions/*.ts", "!extensions/legacy.ts"},
		TypeSkills:     {},
		TypePrompts:    {"!**/deep.md", "+prompts/sub/deep.md", "-prompts/review.md"},
	}
	c = collect(root, f)
	want = map[string][]string{
		TypeExtensions: {"extensions/a.ts"},
		TypeSkills:     {},
		TypePrompts:    {"prompts/sub/deep.md"},
		TypeThemes:     {"themes/dark.json"},
	}
	for typ, w := range want {
		if got := rels(root, c.files[typ]); !reflect.DeepEqual(got, w) {
			t.Errorf("filtered %s: %v, want %v", typ, got, w)
		}
	}
	// A skill is matched by its directory name too.
	c = collect(root, Filter{TypeSkills: {"one"}})
	if got := rels(root, c.files[TypeSkills]); !reflect.DeepEqual(got, []string{"skills/one/SKILL.md"}) {
		t.Errorf("skill by name: %v", got)
	}
}

func TestCollectManifest(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"package.json":            `{"name": "p", "pi": {"extensions": ["./src/ext.ts"], "skills": ["./res/skills"], "prompts": ["res/prompts/*.md", "!res/prompts/old.md", "../outside/*.md", "../../etc/passwd"]}}`,
		"src/ext.ts":              "",
		"res/skills/s/SKILL.md":   "",
		"res/prompts/a.md":        "",
		"res/prompts/old.md":      "",
		"skills/ignored/SKILL.md": "",
	})
	c := collect(root, nil)
	want := map[string][]string{
		TypeExtensions: {"src/ext.ts"},
		TypeSkills:     {"res/skills/s/SKILL.md"},
		TypePrompts:    {"res/prompts/a.md"},
		TypeThemes:     {},
	}
	for typ, w := range want {
		if got := rels(root, c.files[typ]); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %v, want %v", typ, got, w)
		}
	}
	if len(c.problems) != 2 {
		t.Errorf("paths outside the package must be refused: %v", c.problems)
	}
	// "atomic" wins over "pi".
	write(t, root, map[string]string{"package.json": `{"atomic": {"skills": ["skills"]}, "pi": {"skills": ["res/skills"]}}`})
	c = collect(root, nil)
	if got := rels(root, c.files[TypeSkills]); !reflect.DeepEqual(got, []string{"skills/ignored/SKILL.md"}) {
		t.Errorf("atomic key: %v", got)
	}
}
