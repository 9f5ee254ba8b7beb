package packages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func hasProblem(c collected, part string) bool {
	for _, p := range c.problems {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}

// Symlinks leading out of a package are refused with a problem; those
// staying inside load.
func TestSymlinksOutOfPackageRefused(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, map[string]string{
		"evil.ts":           "export default function () {}\n",
		"skills/x/SKILL.md": "---\nname: x\ndescription: X\n---\nX\n",
		"prompts/out.md":    "OUT\n",
		"one/SKILL.md":      "---\nname: one\ndescription: one\n---\n",
		"themes/t.json":     "{}",
	})
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		typ   string
		want  string // the problem's part
	}{
		{"manifest entry", func(t *testing.T, root string) {
			write(t, root, map[string]string{"package.json": `{"pi": {"extensions": ["./ext.ts"]}}`})
			symlink(t, filepath.Join(outside, "evil.ts"), filepath.Join(root, "ext.ts"))
		}, TypeExtensions, "ext.ts"},
		{"skills dir", func(t *testing.T, root string) {
			symlink(t, filepath.Join(outside, "skills"), filepath.Join(root, "skills"))
		}, TypeSkills, "skills/x/SKILL.md"},
		{"conventional prompts dir", func(t *testing.T, root string) {
			symlink(t, filepath.Join(outside, "prompts"), filepath.Join(root, "prompts"))
		}, TypePrompts, "out.md"},
		{"file in a skills dir", func(t *testing.T, root string) {
			write(t, root, map[string]string{"skills/in/SKILL.md": "---\nname: in\ndescription: in\n---\n"})
			symlink(t, filepath.Join(outside, "one", "SKILL.md"), filepath.Join(root, "skills", "one", "SKILL.md"))
		}, TypeSkills, "one/SKILL.md"},
		{"extensions dir", func(t *testing.T, root string) {
			symlink(t, outside, filepath.Join(root, "extensions"))
		}, TypeExtensions, "evil.ts"},
		{"file in an extension directory", func(t *testing.T, root string) {
			write(t, root, map[string]string{"extensions/plug/package.json": `{"name": "plug"}`, "extensions/plug/index.ts": "import './lib/helper';\n"})
			symlink(t, filepath.Join(outside, "evil.ts"), filepath.Join(root, "extensions", "plug", "lib", "helper.ts"))
		}, TypeExtensions, "plug"},
		{"themes file", func(t *testing.T, root string) {
			symlink(t, filepath.Join(outside, "themes", "t.json"), filepath.Join(root, "themes", "t.json"))
		}, TypeThemes, "t.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			c := collect(root, nil)
			for _, f := range c.files[tc.typ] {
				if strings.HasSuffix(f, tc.want) {
					t.Errorf("%s loaded from outside the package", f)
				}
			}
			if !hasProblem(c, "outside the package") {
				t.Errorf("no problem reported: %v", c.problems)
			}
		})
	}
	t.Run("dot-dot in a manifest path", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "pkg")
		write(t, root, map[string]string{"package.json": `{"pi": {"extensions": ["./sub/../../evil.ts"], "prompts": ["../prompts"]}}`})
		write(t, filepath.Dir(root), map[string]string{"evil.ts": "", "prompts/p.md": "P"})
		c := collect(root, nil)
		if len(c.files[TypeExtensions])+len(c.files[TypePrompts]) != 0 || !hasProblem(c, "outside the package") {
			t.Errorf("files %v, problems %v", c.files, c.problems)
		}
	})
	t.Run("symlinks inside", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, map[string]string{
			"package.json":     `{"pi": {"extensions": ["./link.ts"], "prompts": ["./p"]}}`,
			"src/real.ts":      "",
			"src/prompts/a.md": "A",
		})
		symlink(t, filepath.Join(root, "src", "real.ts"), filepath.Join(root, "link.ts"))
		symlink(t, "src/prompts", filepath.Join(root, "p"))
		c := collect(root, nil)
		if len(c.files[TypeExtensions]) != 1 || len(c.files[TypePrompts]) != 1 || len(c.problems) != 0 {
			t.Errorf("files %v, problems %v", c.files, c.problems)
		}
	})
}

// Symlink loops in a package's directories end fast with a problem.
func TestSymlinkLoopsInPackage(t *testing.T) {
	for _, typ := range []string{TypePrompts, TypeSkills, TypeExtensions, TypeThemes} {
		t.Run(typ, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, map[string]string{typ + "/sub/a.md": "A", typ + "/sub/SKILL.md": "---\nname: sub\ndescription: s\n---\n"})
			for _, n := range []string{"l1", "l2", "l3"} {
				symlink(t, ".", filepath.Join(root, typ, n))
				symlink(t, "..", filepath.Join(root, typ, "sub", "up"+n))
			}
			start := time.Now()
			c := collect(root, nil)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("collect took %v", d)
			}
			if typ == TypePrompts && !hasProblem(c, "loop") {
				t.Errorf("no loop problem: %v", c.problems)
			}
		})
	}
}
