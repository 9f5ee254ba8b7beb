package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// A first word that looks like a subcommand and is not one is an error,
// never a prompt to the model (issue 28, item 1); "--" or prose sends it.
func TestCommandLikeWordsAreNotPrompts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"instal", "./x"}, `unknown command "instal": did you mean atomic install?`},
		{[]string{"lst"}, `did you mean atomic list?`},
		{[]string{"updte"}, `did you mean atomic update?`},
		{[]string{"uninstal", "npm:x"}, `did you mean atomic uninstall?`},
		{[]string{"mpc"}, ""}, // two edits from mcp: a prompt (checked below)
		{[]string{"config"}, `"config" is not an atomic command (commands: install, remove, list, update, mcp, auth, help`},
		{[]string{"login", "anthropic"}, `atomic auth login <provider>`},
		{[]string{"version"}, "the version is atomic --version"},
		{[]string{"models", "--provider", "openai"}, `"models" is not an atomic command`},
	} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: c.args}, "", limit)
		if c.want == "" {
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, "You said") {
				t.Errorf("%v: exit %d stdout %q stderr %q; want a prompt", c.args, res.ExitCode, res.Stdout, res.Stderr)
			}
			continue
		}
		if res.ExitCode != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, c.want) || strings.Count(res.Stderr, "\n") != 1 {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2 and one line with %q", c.args, res.ExitCode, res.Stdout, res.Stderr, c.want)
		}
	}
	// Still prompts: after --, prose, a word that is no command.
	for _, args := range [][]string{{"--", "lst"}, {"--", "instal", "./x"}, {"list the files here"}, {"config", "the linter please"}, {"hello"}, {"-p", "lst"}, {"help", "me", "fix", "it"}} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: args}, "", limit)
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "You said") {
			t.Errorf("%v: exit %d stdout %q stderr %q; want a prompt", args, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}

// Package subcommands say what is wrong with their flags and arguments
// (item 2); every help goes to stdout and lists the subcommands (item 16).
func TestSubcommandErrorsAndHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--jsn"}, "atomic list: unknown flag: --jsn (see atomic list --help)"},
		{[]string{"install", "npm:pi-aliases", "-x"}, "atomic install: unknown shorthand flag: 'x' in -x"},
		{[]string{"install"}, "atomic install: give one source, got 0 arguments"},
		{[]string{"remove", "a", "b"}, "atomic remove: give one source, got 2 arguments"},
		{[]string{"update", "a", "b"}, "atomic update: give at most one source"},
		{[]string{"list", "extra"}, `atomic list: unexpected argument "extra"`},
		{[]string{"mcp"}, "atomic mcp: give a command"},
		{[]string{"--log-level", "loud", "-p", "hi"}, `invalid log level "loud" (use debug, info, warn, error)`},
	} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: c.args}, "", limit)
		if res.ExitCode != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2 and %q", c.args, res.ExitCode, res.Stdout, res.Stderr, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Commands:", "atomic install ", "atomic mcp ", "--offline", "do not install missing packages"}},
		{[]string{"help"}, []string{"Usage: atomic", "Commands:"}},
		{[]string{"list", "--help"}, []string{"atomic list [--json]", "--local"}},
		{[]string{"install", "-h"}, []string{"atomic install <source>"}},
		{[]string{"mcp", "--help"}, []string{"atomic mcp add <name>"}},
	} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: c.args}, "", limit)
		if res.ExitCode != 0 || res.Stderr != "" {
			t.Errorf("%v: exit %d stderr %q; want exit 0, help on stdout", c.args, res.ExitCode, res.Stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(res.Stdout, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", c.args, w, res.Stdout)
			}
		}
	}
}

// atomic list --json gives every resource type as an array (item 20).
func TestListJSONHasArrays(t *testing.T) {
	pkg := t.TempDir()
	for name, body := range map[string]string{"package.json": `{"name":"p","pi":{"skills":["skills"]}}`, "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(pkg, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	settings, _ := json.Marshal(map[string]any{"packages": []string{pkg}})
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"list", "--json"}, AgentFiles: map[string]string{"settings.json": string(settings)}}, "", limit)
	var out struct {
		Packages []struct {
			Resources map[string]json.RawMessage `json:"resources"`
		} `json:"packages"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || len(out.Packages) != 1 {
		t.Fatalf("list --json: %v %q %q", err, res.Stdout, res.Stderr)
	}
	for _, typ := range []string{"extensions", "skills", "prompts", "themes"} {
		if v := string(out.Packages[0].Resources[typ]); v == "" || v == "null" || v[0] != '[' {
			t.Errorf("%s: %q in %s", typ, v, res.Stdout)
		}
	}
}
