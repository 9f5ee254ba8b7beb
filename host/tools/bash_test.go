//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

func bash(t *testing.T, dir, command string, extra map[string]any) (llm.ToolResult, error) {
	t.Helper()
	args := map[string]any{"command": command}
	for k, v := range extra {
		args[k] = v
	}
	return run(t, BashTool{}, dir, args)
}

// removeFullOutput deletes a spill file named in a result's details.
func removeFullOutput(t *testing.T, res llm.ToolResult) string {
	t.Helper()
	d, ok := res.Details.(BashDetails)
	if !ok || d.FullOutputPath == "" {
		return ""
	}
	t.Cleanup(func() { os.Remove(d.FullOutputPath) })
	return d.FullOutputPath
}

// processGone reports whether pid no longer runs (it may linger as a
// zombie when nobody reaps it).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitForPid waits until a command has written a pid into file.
func waitForPid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the command did not write its pid")
	return 0
}

func TestBashOutput(t *testing.T) {
	dir := t.TempDir()
	res, err := bash(t, dir, "echo hello; echo oops >&2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ResultText(); got != "hello\noops\n" {
		t.Fatalf("got %q", got)
	}
	if res.Details != nil {
		t.Fatalf("details %#v", res.Details)
	}
	if got := mustText(t, BashTool{}, dir, map[string]any{"command": "true"}); got != "(no output)" {
		t.Fatalf("got %q", got)
	}
}

func TestBashCwdEnvStdin(t *testing.T) {
	dir := t.TempDir()
	res, err := BashTool{}.Execute(context.Background(), Call{
		Args: map[string]any{"command": `pwd; echo "$ATOMIC_TEST_VAR"; cat; echo end`},
		Cwd:  dir, Env: []string{"ATOMIC_TEST_VAR=from-call"},
	})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	lines := strings.Split(strings.TrimSuffix(res.ResultText(), "\n"), "\n")
	if !strings.HasSuffix(res.ResultText(), "end\n") || len(lines) != 3 || (lines[0] != dir && lines[0] != real) || lines[1] != "from-call" || lines[2] != "end" {
		t.Fatalf("got %q", res.ResultText())
	}
}

func TestBashMissingCwd(t *testing.T) {
	msg := mustFail(t, BashTool{}, filepath.Join(t.TempDir(), "gone"), map[string]any{"command": "true"})
	if !strings.Contains(msg, "Working directory does not exist") {
		t.Fatalf("got %q", msg)
	}
}

func TestBashSanitizes(t *testing.T) {
	got := mustText(t, BashTool{}, t.TempDir(), map[string]any{"command": `printf '\033[1;31mred\033[0m \377 ok\n'`})
	if got != "red \uFFFD ok\n" {
		t.Fatalf("got %q", got)
	}
}

func TestBashNonZeroExit(t *testing.T) {
	res, err := bash(t, t.TempDir(), "echo partial; exit 3", nil)
	if err == nil {
		t.Fatal("expected an error")
	}
	if err.Error() != "partial\n\n\nCommand exited with code 3" {
		t.Fatalf("got %q", err.Error())
	}
	var ewr *ErrorWithResult
	if !errors.As(err, &ewr) || ewr.Result.ResultText() != err.Error() || res.ResultText() != err.Error() {
		t.Fatalf("error result %#v", err)
	}
	_, err = bash(t, t.TempDir(), "exit 1", nil)
	if err == nil || err.Error() != "(no output)\n\nCommand exited with code 1" {
		t.Fatalf("got %v", err)
	}
	_, err = bash(t, t.TempDir(), "kill -9 $$", nil)
	if err == nil || !strings.HasSuffix(err.Error(), "Command exited with code 137") {
		t.Fatalf("got %v", err)
	}
}

func TestBashTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	_, err := bash(t, dir, "echo before; sleep 100 & echo $! > "+pidFile+"; wait", map[string]any{"timeout": 0.5})
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	if err == nil || err.Error() != "before\n\n\nCommand timed out after 0.5 seconds" {
		t.Fatalf("got %v", err)
	}
	waitGone(t, waitForPid(t, pidFile))

	_, err = bash(t, dir, "sleep 100", map[string]any{"timeout": 1})
	if err == nil || err.Error() != "Command timed out after 1 seconds" {
		t.Fatalf("got %v", err)
	}
}

func TestBashCancelKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res llm.ToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := BashTool{}.Execute(ctx, Call{Args: map[string]any{"command": "echo started; sleep 100 & echo $! > " + pidFile + "; wait"}, Cwd: dir})
		done <- outcome{res, err}
	}()
	pid := waitForPid(t, pidFile)
	if processGone(pid) {
		t.Fatal("child not running before cancel")
	}
	cancel()
	select {
	case o := <-done:
		if o.err == nil || o.err.Error() != "started\n\n\nCommand aborted" {
			t.Fatalf("got %v", o.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Execute did not return promptly after cancel")
	}
	waitGone(t, pid)
}

func TestBashBackgroundProcessDoesNotBlock(t *testing.T) {
	// A background job keeps the output pipe open after the shell exits;
	// the tool must still return.
	start := time.Now()
	res, err := bash(t, t.TempDir(), "sleep 100 & echo $!", nil)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(res.ResultText())); err == nil {
		defer syscall.Kill(pid, syscall.SIGKILL)
	} else {
		t.Fatalf("got %q", res.ResultText())
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestBashStreamingUpdates(t *testing.T) {
	var mu sync.Mutex
	var updates []string
	call := Call{
		Args: map[string]any{"command": "echo one; sleep 1; echo two"},
		Cwd:  t.TempDir(),
		OnUpdate: func(r llm.ToolResult) {
			mu.Lock()
			updates = append(updates, r.ResultText())
			mu.Unlock()
		},
	}
	res, err := BashTool{}.Execute(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if res.ResultText() != "one\ntwo\n" {
		t.Fatalf("got %q", res.ResultText())
	}
	mu.Lock()
	defer mu.Unlock()
	sawPartial := false
	for _, u := range updates {
		if u == "one\n" {
			sawPartial = true
		}
	}
	if !sawPartial {
		t.Fatalf("no partial update with only the first line: %q", updates)
	}
	if len(updates) == 0 || updates[len(updates)-1] != "one\ntwo\n" {
		t.Fatalf("last update %q", updates)
	}
	// Updates are throttled: far fewer than one per millisecond.
	if len(updates) > 60 {
		t.Fatalf("%d updates", len(updates))
	}
}

func TestBashLargeOutputSpillsToFile(t *testing.T) {
	res, err := bash(t, t.TempDir(), `awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "%d abcdefghijklmnopqrstuvwxyz\n", i }'`, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := removeFullOutput(t, res)
	if path == "" {
		t.Fatalf("no full output file: %#v", res.Details)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	var want strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&want, "%d abcdefghijklmnopqrstuvwxyz\n", i)
	}
	if got := readFile(t, path); got != want.String() {
		t.Errorf("full output file has %d bytes, want %d", len(got), want.Len())
	}
	d := res.Details.(BashDetails)
	tr := d.Truncation
	if tr == nil || tr.TruncatedBy != "bytes" || tr.TotalLines != 100000 || tr.OutputBytes > DefaultMaxBytes {
		t.Fatalf("truncation %+v", tr)
	}
	first := 100000 - tr.OutputLines + 1
	text := res.ResultText()
	notice := fmt.Sprintf("\n\n[Showing lines %d-100000 of 100000 (50.0KB limit). Full output: %s]", first, path)
	if !strings.HasSuffix(text, "\n100000 abcdefghijklmnopqrstuvwxyz"+notice) || !strings.HasPrefix(text, strconv.Itoa(first)+" abc") {
		t.Fatalf("text starts %q ends %q", text[:20], text[len(text)-150:])
	}
}

func TestBashVeryLargeOutputCounts(t *testing.T) {
	// Beyond the in-memory tail: totals must still cover the whole output.
	res, err := bash(t, t.TempDir(), "seq 1 1000000", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := removeFullOutput(t, res)
	d := res.Details.(BashDetails)
	if d.Truncation.TotalLines != 1000000 || d.Truncation.TotalBytes != 6888895 {
		t.Fatalf("truncation %+v", d.Truncation)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 6888896 {
		t.Fatalf("file %v %v", fi, err)
	}
	if !strings.Contains(res.ResultText(), "\n999999\n1000000\n\n[Showing lines ") {
		t.Fatalf("tail %q", res.ResultText()[len(res.ResultText())-200:])
	}
}

func TestBashTruncatedByLines(t *testing.T) {
	res, err := bash(t, t.TempDir(), "seq 1 3000", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := removeFullOutput(t, res)
	if path == "" {
		t.Fatal("no full output file")
	}
	if !strings.HasSuffix(res.ResultText(), "\n3000\n\n[Showing lines 1001-3000 of 3000. Full output: "+path+"]") {
		t.Fatalf("tail %q", res.ResultText()[len(res.ResultText())-120:])
	}
	if !strings.HasPrefix(res.ResultText(), "1001\n") {
		t.Fatalf("head %q", res.ResultText()[:20])
	}
}

func TestBashLongLine(t *testing.T) {
	res, err := bash(t, t.TempDir(), "head -c 100000 /dev/zero | tr '\\0' a; echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := removeFullOutput(t, res)
	want := "\n\n[Showing last 50.0KB of line 1 (line is 97.7KB). Full output: " + path + "]"
	text := res.ResultText()
	if !strings.HasSuffix(text, want) || text != strings.Repeat("a", DefaultMaxBytes)+want {
		t.Fatalf("tail %q", text[len(text)-100:])
	}
}

func TestBashNonZeroExitWithTruncation(t *testing.T) {
	res, err := bash(t, t.TempDir(), "seq 1 3000; exit 2", nil)
	if err == nil || !strings.HasSuffix(err.Error(), "]\n\nCommand exited with code 2") {
		t.Fatalf("got %v", err)
	}
	if removeFullOutput(t, res) == "" {
		t.Fatal("details lost on error")
	}
}

func TestUserShell(t *testing.T) {
	t.Setenv("SHELL", "/usr/bin/fish")
	if sh := UserShell(); filepath.Base(sh) != "bash" && filepath.Base(sh) != "sh" {
		t.Fatalf("got %q", sh)
	}
	t.Setenv("SHELL", "/bin/sh")
	if sh := UserShell(); sh != "/bin/sh" {
		t.Fatalf("got %q", sh)
	}
	t.Setenv("SHELL", "")
	if sh := UserShell(); sh == "" {
		t.Fatal("empty shell")
	}
}

func TestRunShellResult(t *testing.T) {
	out, err := RunShell(context.Background(), ShellRequest{Command: "printf 'a\\nb\\nc\\n'; exit 4", Cwd: t.TempDir(), MaxLines: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(out.FullOutputPath)
	if out.ExitCode != 4 || out.Output != "b\nc" || !out.Truncation.Truncated || out.Truncation.TotalLines != 3 {
		t.Fatalf("got %+v", out)
	}
	if out.FullOutputPath == "" || readFile(t, out.FullOutputPath) != "a\nb\nc\n" {
		t.Fatalf("full output %q", out.FullOutputPath)
	}
}
