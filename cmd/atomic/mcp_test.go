package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestMCPCommands(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/mcptest/mcptestserver")
	dir := t.TempDir()
	run := func(args ...string) e2e.Result {
		return e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: dir, Args: append([]string{"mcp"}, args...),
			AgentFiles: map[string]string{"mcp.json": readOr(t, filepath.Join(dir, "agent-mcp.json"))}}, "", time.Minute)
	}
	// Each run gets a fresh agent directory: keep the file between runs.
	save := func(res e2e.Result) e2e.Result {
		t.Helper()
		const prefix = " in "
		for _, line := range strings.Split(res.Stdout, "\n") {
			if i := strings.LastIndex(line, prefix); i >= 0 && strings.HasSuffix(line, "mcp.json") {
				b, err := os.ReadFile(line[i+len(prefix):])
				if err == nil {
					_ = os.WriteFile(filepath.Join(dir, "agent-mcp.json"), b, 0o600)
				}
			}
		}
		return res
	}
	res := save(run("add", "good", "--env", "MCP_TEST_SECRET=${NOT_SET_ANYWHERE}", "--exposure", "direct", "--", bin))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `Added MCP server "good"`) {
		t.Fatalf("add: %+v", res)
	}
	res = run("list")
	if res.ExitCode != 1 || !strings.Contains(res.Stdout, "good") || !strings.Contains(res.Stdout, "NOT_SET_ANYWHERE is not set") {
		t.Fatalf("list with a failing server: %+v", res)
	}
	res = save(run("add", "good", "--", bin))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Replaced") {
		t.Fatalf("replace: %+v", res)
	}
	res = run("list")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "connected") || !strings.Contains(res.Stdout, "deferred") {
		t.Fatalf("list: %+v", res)
	}
	if res = run("add", "x", "--url", "ftp://nowhere"); res.ExitCode == 0 || !strings.Contains(res.Stderr, "http or https") {
		t.Fatalf("bad url: %+v", res)
	}
	if res = run("add", "x"); res.ExitCode != 2 {
		t.Fatalf("no command: %+v", res)
	}
	res = run("add", "-l", "proj", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization=Bearer ${TOKEN}")
	if res.ExitCode != 0 {
		t.Fatalf("add -l: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".atomic", "mcp.json")); !strings.Contains(string(b), `"Authorization": "Bearer ${TOKEN}"`) {
		t.Fatalf("project file: %s", b)
	}
	if res = run("list"); !strings.Contains(res.Stdout, "skipped:") || strings.Contains(res.Stdout, "proj ") {
		t.Fatalf("list in an untrusted project: %+v", res)
	}
	if res = run("remove", "-l", "proj"); res.ExitCode != 0 {
		t.Fatalf("remove -l: %+v", res)
	}
	if res = run("remove", "-l", "proj"); res.ExitCode != 1 {
		t.Fatalf("remove twice: %+v", res)
	}
}

func readOr(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return `{"mcpServers": {}}`
	}
	return string(b)
}

// Eight `atomic mcp add` at once, on one file: every entry is kept (the
// edit re-reads the file under the settings lock).
func TestMCPAddConcurrentKeepsAll(t *testing.T) {
	bin := e2e.Binary(t)
	dir := t.TempDir()
	home := t.TempDir()
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			cmd := exec.Command(bin, "mcp", "add", "-l", fmt.Sprintf("s%d", i), "--", "server-binary", fmt.Sprint(i))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+filepath.Join(home, "agent"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("add s%d: %v: %s", i, err, out)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ".atomic", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.MCPServers) != n {
		t.Fatalf("%d of %d entries kept:\n%s", len(f.MCPServers), n, b)
	}
}

// `atomic mcp add` and `remove` change the entry and nothing else of the
// user's file: its byte order mark, its indentation, its other keys and
// the layout of the entries it does not touch.
func TestMCPEditKeepsTheFile(t *testing.T) {
	bin := e2e.Binary(t)
	dir := t.TempDir()
	home := t.TempDir()
	p := filepath.Join(dir, ".atomic", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "\xef\xbb\xbf{\n    \"settings\": {\"toolPrefix\": \"none\", \"list\": [1,2,   3]},\n    \"mcpServers\": {\n        \"old\": {\"command\": \"keep-me\", \"args\": [\"-x\"]}\n    }\n}\n"
	if err := os.WriteFile(p, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+filepath.Join(home, "agent"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mcp %v: %v: %s", args, err, out)
		}
	}
	run("add", "-l", "new", "--", "server-binary", "a")
	b, _ := os.ReadFile(p)
	want := "\xef\xbb\xbf{\n    \"settings\": {\"toolPrefix\": \"none\", \"list\": [1,2,   3]},\n    \"mcpServers\": {\n        \"old\": {\"command\": \"keep-me\", \"args\": [\"-x\"]},\n        \"new\": {\n"
	if !strings.HasPrefix(string(b), want) || !strings.HasSuffix(string(b), "        }\n    }\n}\n") {
		t.Fatalf("after add:\n%s", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	run("remove", "-l", "new")
	if b, _ := os.ReadFile(p); string(b) != orig {
		t.Fatalf("after remove:\n%q\nwant\n%q", b, orig)
	}
}

// -h/--help after an mcp subcommand prints the usage and edits nothing;
// after "--" it is the server command's own argument.
func TestMCPSubcommandHelp(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"add", "fs", "--help", "--", "npx", "server"}, {"remove", "docs", "-l", "-h"}, {"list", "--help"}} {
		res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: dir, Args: append([]string{"mcp"}, args...)}, "", time.Minute)
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "atomic mcp add <name>") || res.Stderr != "" {
			t.Errorf("%v: %+v", args, res)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".atomic", "mcp.json")); !os.IsNotExist(err) {
		t.Fatalf("help wrote the project file: %v", err)
	}
	res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: dir, Args: []string{"mcp", "add", "-l", "srv", "--", "some-server", "--help"}}, "", time.Minute)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `Added MCP server "srv"`) {
		t.Fatalf("--help after --: %+v", res)
	}
}
