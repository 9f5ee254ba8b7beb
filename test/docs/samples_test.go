// Package docs runs the code samples of README.md and docs/*.md: every
// fenced block names its language, and each kind is checked the way a
// reader would use it (settings loaded, extensions loaded by the built
// binary, Go built, command lines parsed by atomic itself, RPC
// transcripts replayed).
package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/mcp"
	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/evanw/esbuild/pkg/api"
)

// sample is one fenced block.
type sample struct {
	file string
	line int
	lang string
	text string
}

func (s sample) String() string { return fmt.Sprintf("%s:%d (%s)", s.file, s.line, s.lang) }

// kinds are the languages a block may have; text is for output, paths
// and diagrams, which are not run; mermaid is the package diagram that
// test/arch generates and checks.
var kinds = map[string]bool{"sh": true, "bash": true, "json": true, "jsonl": true, "ts": true, "go": true,
	"markdown": true, "text": true, "imports": true, "transcript": true, "mermaid": true}

func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// samples reads every fenced block of README.md and docs/*.md.
func samples(t *testing.T) []sample {
	t.Helper()
	r := root(t)
	files, _ := filepath.Glob(filepath.Join(r, "docs", "*.md"))
	files = append([]string{filepath.Join(r, "README.md")}, files...)
	var out []sample
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(r, f)
		var cur *sample
		var body []string
		for i, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimSpace(line)
			if !strings.HasPrefix(trimmed, "```") {
				if cur != nil {
					body = append(body, line)
				}
				continue
			}
			if cur == nil {
				cur = &sample{file: rel, line: i + 1, lang: strings.TrimPrefix(trimmed, "```")}
				body = nil
				continue
			}
			cur.text = strings.Join(body, "\n")
			out = append(out, *cur)
			cur = nil
		}
		if cur != nil {
			t.Errorf("%s: the block opened here is never closed", cur)
		}
	}
	if len(out) < 40 {
		t.Fatalf("only %d samples found", len(out))
	}
	return out
}

func TestEverySampleHasAKind(t *testing.T) {
	for _, s := range samples(t) {
		if !kinds[s.lang] {
			t.Errorf("%s: a block needs one of the languages %v", s, keys(kinds))
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// JSON samples decode; settings, mcp.json and models.json samples load
// without a problem in the loader of the file they show.
func TestJSONSamples(t *testing.T) {
	for _, s := range samples(t) {
		switch s.lang {
		case "jsonl":
			for _, l := range strings.Split(strings.TrimSpace(s.text), "\n") {
				if !json.Valid([]byte(l)) {
					t.Errorf("%s: not a JSON line: %s", s, l)
				}
			}
		case "json":
			text := strings.TrimSpace(s.text)
			if strings.HasPrefix(text, `"`) { // a member shown alone
				text = "{" + text + "}"
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				// Several records, one per line (protocol examples).
				for _, l := range strings.Split(text, "\n") {
					if err := json.Unmarshal([]byte(l), &v); err != nil {
						t.Errorf("%s: not JSON: %v\n%s", s, err, s.text)
						break
					}
				}
				continue
			}
			// A member shown alone that starts or reaches a server is an
			// mcp.json entry.
			if len(v) == 1 && !strings.HasPrefix(strings.TrimSpace(s.text), "{") {
				for _, e := range v {
					if m, ok := e.(map[string]any); ok && (m["command"] != nil || m["url"] != nil) {
						v = map[string]any{"mcpServers": v}
						b, _ := json.Marshal(v)
						text = string(b)
					}
				}
			}
			checkFile(t, s, text, v)
		}
	}
}

// checkFile loads a JSON sample as the file it shows.
func checkFile(t *testing.T, s sample, text string, v map[string]any) {
	dir := t.TempDir()
	switch {
	case v["mcpServers"] != nil:
		// A sample whose servers have no command or url is a project
		// override: it is loaded over a user file that has those servers.
		user, project := text, ""
		if servers, ok := v["mcpServers"].(map[string]any); ok && isOverride(servers) {
			stub := map[string]any{}
			for name := range servers {
				stub[name] = map[string]any{"command": "true"}
			}
			b, _ := json.Marshal(map[string]any{"mcpServers": stub})
			user, project = string(b), text
		}
		cwd := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(user), 0o600); err != nil {
			t.Fatal(err)
		}
		if project != "" {
			if err := os.MkdirAll(filepath.Dir(mcp.ProjectFile(cwd)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(mcp.ProjectFile(cwd), []byte(project), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if l := mcp.Load(dir, cwd, project != ""); len(l.Errors) > 0 {
			t.Errorf("%s: mcp.json problems: %v", s, l.Errors)
		}
	case v["providers"] != nil:
		if _, err := llm.ParseModelsConfig([]byte(text)); err != nil {
			t.Errorf("%s: models.json: %v", s, err)
		}
	case v["agent_servers"] != nil, v["type"] != nil, v["id"] != nil, v["name"] != nil && v["pi"] != nil:
		// An editor's configuration, a protocol record, a package manifest.
	default:
		if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		loaded, err := config.Load(config.Paths{AgentDir: dir, ProjectDir: filepath.Join(dir, "none"), Cwd: dir}, false, nil)
		if err != nil {
			t.Errorf("%s: settings: %v", s, err)
			return
		}
		for _, d := range loaded.Diagnostics {
			t.Errorf("%s: settings problem: %s", s, d.Message)
		}
	}
}

// isOverride reports whether no server entry says how to start or reach
// the server.
func isOverride(servers map[string]any) bool {
	for _, e := range servers {
		m, _ := e.(map[string]any)
		if m["command"] != nil || m["url"] != nil || m["type"] != nil {
			return false
		}
	}
	return len(servers) > 0
}

// TypeScript samples compile, and an extension (export default) loads in
// the built binary without an error.
func TestTypeScriptSamples(t *testing.T) {
	for _, s := range samples(t) {
		if s.lang != "ts" {
			continue
		}
		res := api.Transform(s.text, api.TransformOptions{Loader: api.LoaderTS, Format: api.FormatCommonJS})
		for _, e := range res.Errors {
			t.Errorf("%s: %s (line %d)", s, e.Text, e.Location.Line)
		}
		if !strings.Contains(s.text, "export default") {
			continue
		}
		dir := t.TempDir()
		ext := filepath.Join(dir, "sample.ts")
		if err := os.WriteFile(ext, []byte(s.text), 0o600); err != nil {
			t.Fatal(err)
		}
		a := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--no-session", "-e", ext}})
		resp := a.MustSucceed(map[string]any{"type": "get_extensions"})
		b, _ := json.Marshal(resp["data"])
		if !bytes.Contains(b, []byte("sample.ts")) || bytes.Contains(b, []byte(`"error":"`)) {
			t.Errorf("%s: the extension did not load: %s\nstderr: %s", s, b, a.Stderr())
		}
		a.CloseStdin()
		a.Wait(20 * time.Second)
	}
}

// Go samples: a whole file (package main) builds against this module; a
// fragment parses as statements once its "…" placeholders are dropped.
func TestGoSamples(t *testing.T) {
	for _, s := range samples(t) {
		if s.lang != "go" {
			continue
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "main.go")
		src := s.text
		whole := strings.HasPrefix(strings.TrimSpace(src), "package ")
		if !whole {
			src = "package x\n\nfunc _() {\n" + strings.ReplaceAll(src, "…", "") + "\n}\n"
		}
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		// A whole file is built in this module (file arguments resolve
		// imports through the module of the working directory).
		cmd := exec.Command("go", "build", "-o", os.DevNull, file)
		if !whole {
			cmd = exec.Command("gofmt", "-e", file)
		}
		cmd.Dir = root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", s, err, out)
		}
	}
}

// atomicLine matches a command line that runs atomic.
var atomicLine = regexp.MustCompile(`^(?:\S+\s*\|\s*)?(?:\./|~/\S*/)?atomic(?:\s+(.*))?$`)

// Shell samples: every atomic command line is read by atomic's own flag
// parser (the line with --help appended: a typo or an unknown short flag
// fails, nothing runs); other lines are parsed by bash -n.
func TestShellSamples(t *testing.T) {
	bin := e2e.Binary(t)
	home := t.TempDir()
	for _, s := range samples(t) {
		if s.lang != "sh" && s.lang != "bash" {
			continue
		}
		check := exec.Command("bash", "-n")
		check.Stdin = strings.NewReader(s.text)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("%s: bash -n: %v\n%s", s, err, out)
		}
		for _, line := range strings.Split(s.text, "\n") {
			cmdline, _, _ := strings.Cut(line, " #")
			cmdline = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cmdline), "$ "))
			m := atomicLine.FindStringSubmatch(cmdline)
			if m == nil {
				continue
			}
			args, err := shellWords(m[1])
			if err != nil {
				t.Errorf("%s: %s: %v", s, cmdline, err)
				continue
			}
			if i := indexOf(args, "--"); i >= 0 {
				args = args[:i] // what follows is a server's command line
			}
			cmd := exec.Command(bin, append(args, "--help")...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+filepath.Join(home, "agent"), "ATOMIC_OFFLINE=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("%s: atomic %s: %v\n%s", s, strings.Join(args, " "), err, stderr.String())
			}
		}
	}
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

// shellWords splits a command line as bash would for the quoting our
// samples use (single and double quotes, no expansions).
func shellWords(s string) ([]string, error) {
	out, err := exec.Command("bash", "-c", `for a in `+s+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		return nil, err
	}
	var words []string
	for _, w := range strings.Split(string(out), "\x00") {
		if w != "" {
			words = append(words, w)
		}
	}
	return words, nil
}

// Transcripts (→ a command, ← what comes back) are replayed against the
// built binary on the offline model: the commands are sent in order and
// the record types shown come back in that order.
func TestTranscripts(t *testing.T) {
	typeRe := regexp.MustCompile(`"type":"([a-z_]+)"`)
	for _, s := range samples(t) {
		if s.lang != "transcript" {
			continue
		}
		a := e2e.Start(t, e2e.Options{Args: []string{"--no-session"}})
		var want []string
		for _, line := range strings.Split(s.text, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "→"):
				var cmd map[string]any
				if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "→"))), &cmd); err != nil {
					t.Fatalf("%s: a command that is not JSON: %s", s, line)
				}
				a.Send(cmd)
			case strings.HasPrefix(line, "←"):
				// Consecutive records of one type are awaited as one: how
				// many come (output chunks, say) is not fixed.
				if m := typeRe.FindStringSubmatch(line); m != nil && (len(want) == 0 || want[len(want)-1] != m[1]) {
					want = append(want, m[1])
				}
			}
		}
		next := 0 // want[next] is the type awaited
		if len(want) > 0 {
			a.WaitFrom(0, 20*time.Second, func(r e2e.Record) bool {
				if r.Type() == want[next] {
					next++
				}
				return next == len(want)
			})
		}
		a.CloseStdin()
		a.Wait(20 * time.Second)
	}
}
