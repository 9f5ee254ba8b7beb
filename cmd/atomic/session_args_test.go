package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// sessionFiles lists the session files under the agent directory.
func sessionFiles(t *testing.T, agentDir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	return files
}

func sessionID(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	_, rest, _ := strings.Cut(first, `"id":"`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// --session takes a session id or its prefix (pi 1.6), --session-id opens
// or creates the session with that id, --fork copies one into a new
// session; each error is clear.
func TestSessionArguments(t *testing.T) {
	home := t.TempDir()
	agentDir := filepath.Join(home, ".atomic", "agent")
	dir, other := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "ATOMIC_CODING_AGENT_DIR": agentDir}
	run := func(cwd string, args ...string) e2e.Result {
		return e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: cwd, Env: env, Args: args}, "", limit)
	}
	if r := run(dir, "-p", "first"); r.ExitCode != 0 {
		t.Fatalf("first run: %d %s", r.ExitCode, r.Stderr)
	}
	files := sessionFiles(t, agentDir)
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	id := sessionID(t, files[0])

	if r := run(dir, "--session", id[:8], "-p", "second"); r.ExitCode != 0 {
		t.Fatalf("--session <prefix>: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "second") || len(sessionFiles(t, agentDir)) != 1 {
		t.Fatalf("--session <prefix> did not continue the session: %v", sessionFiles(t, agentDir))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("--session <id> made a file in the working directory: %v", entries)
	}

	if r := run(dir, "--session", "nosuch", "-p", "x"); r.ExitCode != 1 || !strings.Contains(r.Stderr, "No session found matching 'nosuch'") {
		t.Fatalf("unknown id: %d %q", r.ExitCode, r.Stderr)
	}
	if r := run(other, "--session", id, "-p", "x"); r.ExitCode != 1 || !strings.Contains(r.Stderr, "--fork "+id) {
		t.Fatalf("another directory's session: %d %q", r.ExitCode, r.Stderr)
	}

	if r := run(other, "--fork", id[:8], "-p", "forked"); r.ExitCode != 0 {
		t.Fatalf("--fork: %d %s", r.ExitCode, r.Stderr)
	}
	var forked string
	for _, f := range sessionFiles(t, agentDir) {
		if f != files[0] {
			forked = f
		}
	}
	b, _ := os.ReadFile(forked)
	if forked == "" || !strings.Contains(string(b), "first") || !strings.Contains(string(b), "forked") || !strings.Contains(string(b), files[0]) {
		t.Fatalf("the fork %s does not hold the session it came from:\n%s", forked, b)
	}

	if r := run(dir, "--session-id", "my-task.1", "-p", "tagged"); r.ExitCode != 0 || !strings.Contains(r.Stderr, "creating a new session with that id") {
		t.Fatalf("--session-id (new): %d %q", r.ExitCode, r.Stderr)
	}
	if r := run(dir, "--session-id", "my-task.1", "-p", "again"); r.ExitCode != 0 || strings.Contains(r.Stderr, "creating a new session") {
		t.Fatalf("--session-id (existing): %d %q", r.ExitCode, r.Stderr)
	}
	n := 0
	for _, f := range sessionFiles(t, agentDir) {
		if sessionID(t, f) == "my-task.1" {
			n++
			if b, _ := os.ReadFile(f); !strings.Contains(string(b), "tagged") || !strings.Contains(string(b), "again") {
				t.Fatalf("--session-id did not reopen the session:\n%s", b)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d sessions with the id", n)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--session-id", "-bad", "-p", "x"}, "invalid session id"},
		{[]string{"--fork", id, "--no-session", "-p", "x"}, "--fork cannot be combined"},
		{[]string{"--session-id", "a", "-c", "-p", "x"}, "--session-id cannot be combined"},
		{[]string{"-r", "-p", "x"}, "--resume opens the terminal UI's session list"},
	} {
		if r := run(dir, c.args...); r.ExitCode == 0 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%v: %d %q", c.args, r.ExitCode, r.Stderr)
		}
	}
}
