package packages_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// cliDirWant is pi 1.6's get_commands for -e ./pkgm -e ./pkgc in
// testdata/cli-dir (its own commands; $DIR is that directory): pkgm
// names its extension, skills and prompts in a package.json "pi"
// manifest, pkgc has the conventional directories.
const cliDirWant = `{"name":"pkgm-cmd","description":"from pkgm","source":"extension","sourceInfo":{"path":"$DIR/pkgm/src/ext.ts","source":"cli","scope":"temporary","origin":"top-level"}}
{"name":"pkgc-cmd","description":"from pkgc","source":"extension","sourceInfo":{"path":"$DIR/pkgc/extensions/c.ts","source":"cli","scope":"temporary","origin":"top-level"}}
{"name":"audit","description":"Audit it","source":"prompt","sourceInfo":{"path":"$DIR/pkgm/pr/audit.md","source":"$DIR/pkgm","scope":"temporary","origin":"package","baseDir":"$DIR/pkgm"}}
{"name":"fix","description":"Fix it","source":"prompt","sourceInfo":{"path":"$DIR/pkgc/prompts/fix.md","source":"$DIR/pkgc","scope":"temporary","origin":"package","baseDir":"$DIR/pkgc"}}
{"name":"skill:hello","description":"Say hello","source":"skill","sourceInfo":{"path":"$DIR/pkgm/sk/hello/SKILL.md","source":"cli","scope":"temporary","origin":"top-level"}}
{"name":"skill:greet","description":"Greet","source":"skill","sourceInfo":{"path":"$DIR/pkgc/skills/greet/SKILL.md","source":"cli","scope":"temporary","origin":"top-level"}}`

// packageCommands are get_commands' commands that come from dir, with
// the fields pi 1.6 writes (ours also give location and path), dir
// written $DIR.
func packageCommands(t *testing.T, a *e2e.Agent, dir string) []string {
	t.Helper()
	var out []string
	for _, c := range a.MustSucceed(map[string]any{"type": "get_commands"})["data"].(map[string]any)["commands"].([]any) {
		m := c.(map[string]any)
		if si, _ := m["sourceInfo"].(map[string]any); si == nil || !strings.HasPrefix(si["path"].(string), dir+"/") {
			continue
		}
		delete(m, "location")
		delete(m, "path")
		b, _ := json.Marshal(m)
		out = append(out, strings.ReplaceAll(string(b), dir, "$DIR"))
	}
	return out
}

// TestCLIPackageDirectoryReadsTheWholeManifest: -e <package directory>
// contributes the extensions, skills and prompts its manifest (or its
// conventional directories) names, as pi 1.6's -e does, and the same
// directories installed through the settings contribute the same
// commands.
func TestCLIPackageDirectoryReadsTheWholeManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/cli-dir")); err != nil {
		t.Fatal(err)
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"-e", "./pkgm", "-e", "./pkgc"}})
	var want []string
	for _, l := range strings.Split(cliDirWant, "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m) // keys in order, as packageCommands writes them
		want = append(want, string(b))
	}
	if got := strings.Join(packageCommands(t, a, dir), "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("-e: got\n%s\nwant (pi 1.6)\n%s", got, strings.Join(want, "\n"))
	}

	settings, _ := json.Marshal(map[string]any{"packages": []string{filepath.Join(dir, "pkgm"), filepath.Join(dir, "pkgc")}})
	b := e2e.Start(t, e2e.Options{Dir: dir, AgentFiles: map[string]string{"settings.json": string(settings)}})
	names := func(l []string) []string {
		var out []string
		for _, s := range l {
			var m map[string]any
			_ = json.Unmarshal([]byte(s), &m)
			out = append(out, m["name"].(string))
		}
		return out
	}
	cli, installed := names(strings.Split(cliDirWant, "\n")), names(packageCommands(t, b, dir))
	if strings.Join(cli, " ") != strings.Join(installed, " ") {
		t.Fatalf("installed through the settings: %v, with -e: %v", installed, cli)
	}
}
