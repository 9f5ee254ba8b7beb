package main_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The command line (issue 18, item 13), black-box.

func TestUnknownFlagsAreNamedInOneWarning(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--no-color", "--theme=dark", "-p", "hi"}}, "", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `"hi"`) {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "unknown flags"); n != 1 || !strings.Contains(res.Stderr, "values not shown): --no-color --theme\n") {
		t.Fatalf("stderr %q", res.Stderr)
	}
}

func TestBadFlagValuesAreErrorsWithTheChoices(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sesion", "x", "-p", "hi"}, "unknown flag --sesion: did you mean --session?"},
		{[]string{"--thinking", "ultra", "-p", "hi"}, `invalid --thinking "ultra" (use off, minimal, low, medium, high, xhigh, max)`},
		{[]string{"--tools", "read,frob", "-p", "hi"}, "unknown tool frob in --tools (built-in tools: read, bash, edit, write, grep, find, ls"},
		{[]string{"--system-prompt", "./no-such-prompt.md", "-p", "hi"}, "--system-prompt: ./no-such-prompt.md does not exist"},
		{[]string{"--append-system-prompt", "prompts/none.txt", "-p", "hi"}, "--append-system-prompt: prompts/none.txt does not exist"},
		{[]string{"--mode", "bogus"}, `unknown mode "bogus" (use rpc, acp, json, print)`},
		// Unknown short flags are errors, as in pi (issue 28, item 4).
		{[]string{"-zz", "-p", "hi"}, "unknown short flag -z in -zz"},
		{[]string{"-y", "-p", "hi"}, "unknown short flag -y in -y"},
		{[]string{"-p", "-x", "hi"}, "unknown short flag -x in -x"},
		{[]string{"-cq", "-p", "hi"}, "unknown short flag -q in -cq"},
		// A missing local -e path is an error, once (item 7).
		// In every mode, as pi 1.6 exits on an extension it cannot load.
		{[]string{"-e", "./no-such-ext.ts", "-p", "hi"}, "-e ./no-such-ext.ts: no such file or directory"},
		{[]string{"--mode", "rpc", "-e", "./no-such-ext.ts"}, "-e ./no-such-ext.ts: no such file or directory"},
	} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: c.args}, "", limit)
		if res.ExitCode != 2 || !strings.Contains(res.Stderr, c.want) || res.Stdout != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2 and %q", c.args, res.ExitCode, res.Stdout, res.Stderr, c.want)
		}
	}
	// Prompt text with spaces is text, not a path.
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--system-prompt", "You are terse.", "-p", "hi"}}, "", limit)
	if res.ExitCode != 0 {
		t.Fatalf("text system prompt: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--help"}}, "", limit)
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "Usage: atomic") || !strings.Contains(res.Stdout, "--session") || res.Stderr != "" {
		t.Fatalf("exit %d stdout %.200q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestPrintWithJSONModeGivesJSON(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-p", "--mode", "json", "hello"}}, "", limit)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	for _, l := range lines {
		if err := e2e.CheckRecordLine([]byte(l + "\n")); err != nil {
			t.Fatalf("not json mode: %v: %q", err, res.Stdout)
		}
	}
	if !strings.Contains(res.Stdout, `"type":"agent_end"`) {
		t.Fatalf("no events: %q", res.Stdout)
	}
}

// The value of an unknown flag is never shown (it may be a key: item 6).
func TestUnknownFlagValuesAreNotEchoed(t *testing.T) {
	for _, args := range [][]string{
		{"--secret-key=sk-secret-123", "-p", "hi"},
		{"--secret-key", "sk-secret-123", "-p", "hi"},
		{"--token=sk-secret-123", "--other", "sk-secret-123", "-p", "hi"},
	} {
		res := e2e.Run(t, e2e.Options{NoMode: true, Args: args}, "", limit)
		if res.ExitCode != 0 || strings.Contains(res.Stderr, "sk-secret") || !strings.Contains(res.Stderr, "--secret-key") && !strings.Contains(res.Stderr, "--token") {
			t.Errorf("%v: exit %d stderr %q", args, res.ExitCode, res.Stderr)
		}
	}
}

// -v is --version, as in pi.
func TestPiShortVersionFlag(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-v"}}, "", limit)
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) == "" {
		t.Fatalf("-v: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// --help lists the flags extensions register, as pi 1.6's does, after
// loading them and running nothing else (no session_start).
func TestHelpListsExtensionFlags(t *testing.T) {
	dir := t.TempDir()
	ext := filepath.Join(dir, "flags.ts")
	mark := filepath.Join(dir, "started")
	src := `import * as fs from "fs";
export default function (pi: any) {
  pi.registerFlag("plan", { description: "Start in plan mode", type: "boolean", default: false });
  pi.registerFlag("preset", { description: "Preset to load", type: "string", default: "fast" });
  pi.registerFlag("quiet-mode", { type: "boolean" });
  pi.on("session_start", () => { fs.writeFileSync(` + strconv.Quote(mark) + `, "x"); });
}
`
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-e", ext, "--help"}}, "", limit)
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	_, section, ok := strings.Cut(res.Stdout, "\nExtension flags:\n")
	if !ok {
		t.Fatalf("no extension flags section:\n%s", res.Stdout)
	}
	for _, want := range []string{
		"  --plan                      Start in plan mode\n",
		"  --preset <value>            Preset to load (default \"fast\")\n",
		"  --quiet-mode                registered by " + ext + "\n",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("missing %q in:\n%s", want, section)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("--help ran the extension's session_start handler")
	}
	// The warning about unknown flags leaves out those an extension
	// registered.
	run := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"-e", ext, "--plan", "--preset=slow", "--bogus=secret", "-p", "hi"}}, "", limit)
	if run.ExitCode != 0 || strings.Count(run.Stderr, "unknown flags") != 1 || !strings.Contains(run.Stderr, "(values not shown): --bogus\n") || strings.Contains(run.Stderr, "secret") {
		t.Errorf("exit %d stderr %q", run.ExitCode, run.Stderr)
	}
	plain := e2e.Run(t, e2e.Options{NoMode: true, Args: []string{"--help"}}, "", limit)
	if strings.Contains(plain.Stdout, "Extension flags:") {
		t.Errorf("a section without extensions:\n%s", plain.Stdout)
	}
}
