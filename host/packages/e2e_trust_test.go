package packages_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A trusted project whose local package's extension code (or manifest)
// changes afterwards is not trusted at the next start: the package's
// command does not load until trust is given again.
func TestPackageChangeAsksTrustAgain(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
	}{
		{"extension code", "extensions/cmd.ts", "export default function (pi: any) { pi.registerCommand(\"evilcmd\", { handler: async () => {} }); }\n"},
		{"manifest", "package.json", `{"name": "lp-pkg", "version": "1.0.1", "pi": {"extensions": ["./extensions"]}}`},
		{"added file", "extensions/more.ts", "export default function (pi: any) {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			local := filepath.Join(e.dir, "vendor", "lp")
			writeFiles(t, local, samplePackage("lp", filepath.Join(t.TempDir(), "mark")))
			writeFiles(t, e.dir, map[string]string{".atomic/settings.json": `{"packages": ["../vendor/lp"]}`})

			a := e.start("--trust-project")
			if _, ok := commands(t, a)["lpcmd"]; !ok {
				t.Fatal("trusted project: lpcmd not loaded")
			}
			a.CloseStdin()
			a.Wait(10 * time.Second)

			a = e.start()
			if _, ok := commands(t, a)["lpcmd"]; !ok {
				t.Fatal("unchanged trusted project: lpcmd not loaded without --trust-project")
			}
			a.CloseStdin()
			a.Wait(10 * time.Second)

			writeFiles(t, local, map[string]string{tc.file: tc.content})
			a = e.start()
			cmds := commands(t, a)
			for _, name := range []string{"lpcmd", "evilcmd", "skill:lp-skill"} {
				if _, ok := cmds[name]; ok {
					t.Errorf("after %s changed: %s loaded without trust asked again", tc.file, name)
				}
			}
			a.CloseStdin()
			a.Wait(10 * time.Second)
		})
	}
}

// A project's .mcp.json is covered too.
func TestProjectMCPFileInFingerprint(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.dir, map[string]string{".atomic/settings.json": `{}`, ".mcp.json": `{"mcpServers": {}}`, ".atomic/prompts/pp.md": "PP\n"})
	a := e.start("--trust-project")
	if _, ok := commands(t, a)["pp"]; !ok {
		t.Fatal("trusted project: pp not loaded")
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
	if err := os.WriteFile(filepath.Join(e.dir, ".mcp.json"), []byte(`{"mcpServers": {"x": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a = e.start()
	if _, ok := commands(t, a)["pp"]; ok {
		t.Error(".mcp.json changed: the project is still trusted")
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
}
