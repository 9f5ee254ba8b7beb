package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestAuthCommands(t *testing.T) {
	agentDir := t.TempDir()
	run := func(stdin string, env map[string]string, args ...string) e2e.Result {
		t.Helper()
		all := map[string]string{"ATOMIC_CODING_AGENT_DIR": agentDir}
		for k, v := range env {
			all[k] = v
		}
		return e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Args: append([]string{"auth"}, args...), Env: all}, stdin, time.Minute)
	}
	const key = "sk-ant-test-0123456789"
	res := run(key+"\n", nil, "login", "anthropic", "--api-key")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Saved API key for anthropic") || strings.Contains(res.Stdout+res.Stderr, key) {
		t.Fatalf("login: %+v", res)
	}
	st, err := os.Stat(filepath.Join(agentDir, "auth.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", st, err)
	}
	res = run("", nil, "check", "--provider", "anthropic", "--json")
	var got map[string]any
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &got) != nil || got["status"] != "ready" || got["authType"] != "api_key" || got["credentials"] != nil {
		t.Fatalf("check --json: %+v", res)
	}
	if res = run("", nil, "check", "--model", "claude-sonnet-4-5", "--credentials"); res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != key {
		t.Fatalf("check --model --credentials: %+v", res)
	}
	if res = run("", nil, "print-api-key", "--provider", "anthropic"); res.ExitCode != 0 || res.Stdout != key+"\n" {
		t.Fatalf("print-api-key: %+v", res)
	}
	// Not ready: status 1; an unknown provider is not ready either.
	if res = run("", nil, "check", "--provider", "openai"); res.ExitCode != 1 || strings.TrimSpace(res.Stdout) != "not_ready" {
		t.Fatalf("check openai: %+v", res)
	}
	if res = run("", nil, "check", "--provider", "nowhere", "--json"); res.ExitCode != 1 || !strings.Contains(res.Stdout, `"reason":"provider_not_found"`) {
		t.Fatalf("check unknown: %+v", res)
	}
	// The listing names where each credential comes from, never the key.
	res = run("", map[string]string{"OPENAI_API_KEY": "sk-openai-secret"}, "check")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "auth.json") || !strings.Contains(res.Stdout, "$OPENAI_API_KEY") ||
		strings.Contains(res.Stdout, key) || strings.Contains(res.Stdout, "sk-openai-secret") {
		t.Fatalf("check (all): %+v", res)
	}
	res = run("", nil, "logout", "anthropic")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Removed the stored API key") {
		t.Fatalf("logout: %+v", res)
	}
	if res = run("", nil, "logout", "anthropic"); res.ExitCode != 0 || !strings.Contains(res.Stdout, "No stored credentials") {
		t.Fatalf("logout again: %+v", res)
	}
	if res = run("", nil, "print-api-key", "--provider", "anthropic"); res.ExitCode != 1 || res.Stdout != "" {
		t.Fatalf("print-api-key without a key: %+v", res)
	}
	// Mistakes are errors, never something else.
	for _, args := range [][]string{
		{"login", "nowhere", "--api-key"},      // unknown provider
		{"login", "anthropic"},                 // no terminal, no --api-key
		{"login", "anthropic", "--no-browser"}, // account sign-in
		{"print-api-key", "--provider", "anthropic", "--json"},
		{"check", "stray"},
		{"frobnicate"},
	} {
		if res = run("", nil, args...); res.ExitCode == 0 || res.Stderr == "" || res.Stdout != "" {
			t.Errorf("auth %v: want an error, got %+v", args, res)
		}
	}
	if res = run("", nil, "login", "anthropic", "--api-key"); res.ExitCode != 1 || !strings.Contains(res.Stderr, "no key given") {
		t.Fatalf("empty key: %+v", res)
	}
}

// On a terminal, login asks for the key without echoing it.
func TestAuthLoginOnATerminal(t *testing.T) {
	agentDir := t.TempDir()
	cmd, _ := e2e.Command(t, e2e.Options{NoMode: true, Args: []string{"auth", "login", "openai"}, Env: map[string]string{"ATOMIC_CODING_AGENT_DIR": agentDir}})
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	text := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	done := make(chan struct{})
	prompted := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		once := false
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if !once && strings.Contains(text(), "API key for openai:") {
				once = true
				close(prompted)
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-prompted:
	case <-time.After(30 * time.Second):
		t.Fatalf("no prompt: %q", text())
	}
	// The prompt is written just before echo is turned off: type once
	// the terminal no longer echoes, as a person would after the prompt.
	deadline := time.Now().Add(30 * time.Second)
	for {
		tio, err := unix.IoctlGetTermios(int(ptmx.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("echo was never turned off")
		}
		time.Sleep(5 * time.Millisecond)
	}
	const key = "sk-typed-secret-42"
	if _, err := io.WriteString(ptmx, key+"\r"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("login: %v\n%s", err, text())
	}
	ptmx.Close()
	<-done
	if strings.Contains(text(), key) || !strings.Contains(text(), "Saved API key for openai") {
		t.Fatalf("terminal showed %q", text())
	}
	b, err := os.ReadFile(filepath.Join(agentDir, "auth.json"))
	if err != nil || !strings.Contains(string(b), key) {
		t.Fatalf("auth.json: %s %v", b, err)
	}
}
