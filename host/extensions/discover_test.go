package extensions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/trust"
)

func writeExec(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverOrderDedupeAndOptions(t *testing.T) {
	root := t.TempDir()
	cwd, agent := filepath.Join(root, "proj"), filepath.Join(root, "agent")
	cli := filepath.Join(root, "cli-plugin")
	writeExec(t, cli)
	writeExec(t, filepath.Join(cwd, ".atomic", "listed"))
	writeExec(t, filepath.Join(agent, "user-listed"))
	writeExec(t, filepath.Join(cwd, ".atomic", "extensions", "b-auto"))
	writeExec(t, filepath.Join(cwd, ".atomic", "extensions", "a-auto"))
	writeFile(t, filepath.Join(cwd, ".atomic", "extensions", "README.md"), "not an extension")
	writeFile(t, filepath.Join(cwd, ".atomic", "extensions", "script.ts"), "export default () => {}")
	writeFile(t, filepath.Join(agent, "extensions", "dir", ManifestFile), `{"command":["./run.sh","--x"]}`)
	writeExec(t, filepath.Join(agent, "extensions", "dir", "run.sh"))
	writeFile(t, filepath.Join(cwd, ".atomic", "settings.json"), `{"extensions":[{"path":"listed","timeouts":{"tool_call":1500,"default":"2s"}},"extensions/a-auto"]}`)
	writeFile(t, filepath.Join(agent, "settings.json"), `{"extensions":["user-listed","missing-one"]}`)

	d := Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd, CLI: []string{cli, cli}})
	var got []string
	for _, s := range d.Specs {
		got = append(got, s.Scope+":"+filepath.Base(s.Path))
	}
	want := "temporary:cli-plugin project:listed project:a-auto user:user-listed project:b-auto project:script.ts user:dir"
	if strings.Join(got, " ") != want {
		t.Fatalf("order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if d.Specs[1].Options.Timeouts["tool_call"] != 1500*time.Millisecond || d.Specs[1].Options.Timeouts["default"] != 2*time.Second {
		t.Fatalf("options: %+v", d.Specs[1].Options)
	}
	if d.Specs[5].Kind != KindScript {
		t.Fatal("a .ts file is a script")
	}
	last := d.Specs[6]
	if last.Command[0] != filepath.Join(agent, "extensions", "dir", "run.sh") || last.Command[1] != "--x" {
		t.Fatalf("manifest command: %v", last.Command)
	}
	if len(d.Problems) != 1 || !strings.Contains(d.Problems[0].Message, "not found") {
		t.Fatalf("problems: %+v", d.Problems)
	}

	only := Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd, CLI: []string{cli}, NoExtensions: true})
	if len(only.Specs) != 1 {
		t.Fatalf("--no-extensions kept %d", len(only.Specs))
	}
}

func TestTrustIsBoundToTheFiles(t *testing.T) {
	root := t.TempDir()
	cwd, agent := filepath.Join(root, "proj"), filepath.Join(root, "agent")
	p := filepath.Join(cwd, ".atomic", "extensions", "guard")
	writeExec(t, p)
	d := Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd})
	fp := Fingerprint(cwd, d.Specs, d.ProjectSettings)
	if isTrusted(t, agent, cwd, fp) {
		t.Fatal("trusted before asking")
	}
	if err := trust.Record(agent, cwd, fp); err != nil {
		t.Fatal(err)
	}
	if !isTrusted(t, agent, cwd, Fingerprint(cwd, Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd}).Specs, "")) {
		t.Fatal("not trusted after Trust")
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if isTrusted(t, agent, cwd, Fingerprint(cwd, Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd}).Specs, "")) {
		t.Fatal("a changed file must ask again")
	}
	writeExec(t, filepath.Join(cwd, ".atomic", "extensions", "another"))
	if Fingerprint(cwd, Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd}).Specs, "") == fp {
		t.Fatal("an added file must change the fingerprint")
	}
}

func TestProjectCannotCaptureAUserExtension(t *testing.T) {
	root := t.TempDir()
	cwd, agent := filepath.Join(root, "proj"), filepath.Join(root, "agent")
	gate := filepath.Join(agent, "extensions", "permission-gate")
	writeExec(t, gate)
	writeFile(t, filepath.Join(cwd, ".atomic", "settings.json"), `{"extensions":[{"path":"`+gate+`","disabled":true}]}`)
	d := Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd})
	if len(d.Specs) != 1 || d.Specs[0].Scope != ScopeUser || d.Specs[0].Options.Disabled {
		t.Fatalf("%+v", d.Specs)
	}
}

func TestScriptDiscoveryAndTrust(t *testing.T) {
	root := t.TempDir()
	cwd, agent := filepath.Join(root, "proj"), filepath.Join(root, "agent")
	ext := filepath.Join(cwd, ".atomic", "extensions")
	writeFile(t, filepath.Join(ext, "a.js"), "export default () => {}")
	writeFile(t, filepath.Join(ext, "b.ts"), "import { x } from './lib/x'; export default () => {}")
	writeFile(t, filepath.Join(ext, "lib", "x.ts"), "export const x = 1")
	writeFile(t, filepath.Join(ext, "pkg", "index.ts"), "export default () => {}")
	writeFile(t, filepath.Join(ext, "pkg", "helper.ts"), "export const h = 1")
	writeFile(t, filepath.Join(ext, "jsdir", "index.js"), "export default () => {}")
	writeFile(t, filepath.Join(ext, "notes.txt"), "ignored")
	writeFile(t, filepath.Join(cwd, ".atomic", "settings.json"), `{"extensions":[{"path":"extensions/b.ts","isolation":"process","memoryLimitMB":128}]}`)
	cli := filepath.Join(root, "cli.ts")
	writeFile(t, cli, "export default () => {}")

	d := Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd, CLI: []string{cli}})
	var got []string
	for _, s := range d.Specs {
		got = append(got, s.Scope+":"+s.Kind+":"+filepath.Base(s.Path))
	}
	want := "temporary:script:cli.ts project:script:b.ts project:script:a.js project:script:jsdir project:script:pkg"
	if strings.Join(got, " ") != want {
		t.Fatalf("order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if o := d.Specs[1].Options; o.Isolation != "process" || o.MemoryLimitMB != 128 {
		t.Fatalf("options %+v", o)
	}
	if c := d.Specs[4].Command; len(c) != 1 || c[0] != filepath.Join(ext, "pkg", "index.ts") {
		t.Fatalf("index entry %v", c)
	}

	// A script's helper files are part of the project's fingerprint.
	fp := Fingerprint(cwd, d.Specs, d.ProjectSettings)
	writeFile(t, filepath.Join(ext, "lib", "x.ts"), "export const x = 2")
	if Fingerprint(cwd, Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd}).Specs, d.ProjectSettings) == fp {
		t.Fatal("a changed imported file must change the fingerprint")
	}
	fp = Fingerprint(cwd, Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd}).Specs, d.ProjectSettings)
	writeFile(t, filepath.Join(ext, "pkg", "helper.ts"), "export const h = 2")
	if Fingerprint(cwd, Discover(DiscoverOptions{AgentDir: agent, Cwd: cwd}).Specs, d.ProjectSettings) == fp {
		t.Fatal("a changed file of a script directory must change the fingerprint")
	}
}

// A directory given with -e is taken as a package, as pi does: a manifest
// that lists no extensions (a package of skills) loads nothing without an
// error, the conventional extensions/ directory is scanned, and
// package.json's entry point ("exports" ".", "main") is the script.
func TestExplicitPackageDirectories(t *testing.T) {
	root := t.TempDir()
	skills := filepath.Join(root, "skills-only")
	writeFile(t, filepath.Join(skills, "package.json"), `{"name":"s","pi":{"skills":["skills"]}}`)
	conv := filepath.Join(root, "conventional")
	writeFile(t, filepath.Join(conv, "package.json"), `{"name":"c"}`)
	writeFile(t, filepath.Join(conv, "extensions", "one.ts"), "export default () => {}")
	writeFile(t, filepath.Join(conv, "extensions", "two", "index.js"), "export default () => {}")
	mainDir := filepath.Join(root, "main")
	writeFile(t, filepath.Join(mainDir, "package.json"), `{"name":"m","type":"module","main":"./dist/index.js","exports":{".":{"import":"./dist/index.js","types":"./dist/index.d.ts"}}}`)
	writeFile(t, filepath.Join(mainDir, "dist", "index.js"), "export default () => {}")
	escape := filepath.Join(root, "escape")
	writeFile(t, filepath.Join(escape, "package.json"), `{"name":"e","main":"../main/dist/index.js"}`)
	empty := filepath.Join(root, "empty")
	writeFile(t, filepath.Join(empty, "README.md"), "nothing")

	d := Discover(DiscoverOptions{AgentDir: filepath.Join(root, "agent"), Cwd: filepath.Join(root, "cwd"), CLI: []string{skills, conv, mainDir, escape, empty}})
	var got []string
	for _, s := range d.Specs {
		rel, _ := filepath.Rel(root, s.Entry())
		got = append(got, rel)
	}
	want := "conventional/extensions/one.ts conventional/extensions/two/index.js main/dist/index.js"
	if strings.Join(got, " ") != want {
		t.Fatalf("specs:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if len(d.Problems) != 2 || !strings.Contains(d.Problems[0].Message+d.Problems[1].Message, "escape") || !strings.Contains(d.Problems[0].Message+d.Problems[1].Message, "empty") {
		t.Fatalf("problems: %+v", d.Problems)
	}
}
