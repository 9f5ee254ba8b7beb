package packages_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A package with symlinks leading out of it, a prompts directory with
// three symlinks to itself, a loop in its skills and extensions
// directories, and FIFOs as its package.json, a prompt and a SKILL.md:
// `atomic list` ends, get_commands answers, nothing from outside is
// listed and the refusals are resource diagnostics.
func TestHostilePackageLinksAndFIFOs(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "outside")
	writeFiles(t, outside, map[string]string{
		"skills/outskill/SKILL.md": "---\nname: outskill\ndescription: from outside\n---\nOUT\n",
		"out.md":                   "---\ndescription: outside\n---\nOUT\n",
	})
	pkg := filepath.Join(e.dir, "hostile")
	writeFiles(t, pkg, map[string]string{
		"prompts/inside.md":          "---\ndescription: inside\n---\nIN\n",
		"skills/inskill/SKILL.md":    "---\nname: inskill\ndescription: inside\n---\nIN\n",
		"extensions/sub/placeholder": "",
	})
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(pkg, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"l1", "l2", "l3"} {
		link(".", "prompts/"+n)
		link("..", "skills/inskill/"+n)
		link("..", "extensions/sub/"+n)
	}
	link(filepath.Join(outside, "out.md"), "prompts/outlink.md")
	link(filepath.Join(outside, "skills", "outskill"), "skills/outskill")
	for _, f := range []string{"package.json", "prompts/fifo.md", "skills/fifoskill/SKILL.md"} {
		os.MkdirAll(filepath.Dir(filepath.Join(pkg, f)), 0o755)
		if err := syscall.Mkfifo(filepath.Join(pkg, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, e.agentDir, map[string]string{"settings.json": `{"packages": [` + quote(pkg) + `]}`})

	start := time.Now()
	list := e.mustRun("list")
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("atomic list took %v", d)
	}
	if strings.Contains(list.stdout, "outlink") || strings.Contains(list.stdout, "outskill") {
		t.Errorf("list names what is outside the package:\n%s", list.stdout)
	}

	a := e.start()
	cmds := commands(t, a)
	for _, want := range []string{"inside", "skill:inskill"} {
		if _, ok := cmds[want]; !ok {
			t.Errorf("%s missing from get_commands", want)
		}
	}
	for _, bad := range []string{"outlink", "skill:outskill"} {
		if _, ok := cmds[bad]; ok {
			t.Errorf("%s from outside the package listed", bad)
		}
	}
	var refused bool
	for _, d := range diagnostics(t, a) {
		if m, _ := d["message"].(string); strings.Contains(m, "outside the package") {
			refused = true
		}
	}
	if !refused {
		t.Error("no diagnostic for the symlinks leading out of the package")
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
