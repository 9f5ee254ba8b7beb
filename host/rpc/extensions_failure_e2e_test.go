package rpc_test

// Failure isolation of extensions, black-box: crashes, hangs, bad plugins,
// stray output, untrusted projects.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestKilledPluginReportsAndRestarts(t *testing.T) {
	dir := t.TempDir()
	pidFile, recFile := filepath.Join(dir, "pid"), filepath.Join(dir, "record")
	script := []map[string]any{bashCall("echo one"), {"text": "ok"}, bashCall("echo two"), {"text": "ok"}}
	a := startWithPlugins(t, script, []string{"--slow", "tool_call=30s", "--pidfile", pidFile, "--record", recFile})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	a.WaitType(from, "tool_execution_start")
	e2e.WaitFileLine(t, recFile, "tool_call", 10*time.Second) // the handler is running
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e := a.WaitType(from, "extension_error")
	if time.Since(killed) > time.Second {
		t.Fatalf("error reported after %v", time.Since(killed))
	}
	if e["event"] != "tool_call" || !strings.Contains(fmt.Sprint(e["error"]), "exited") {
		t.Fatalf("%v", e)
	}
	a.WaitType(from, "agent_end")
	res := toolResults(a.Records(from))
	if len(res) != 1 || res[0]["isError"] != true || !strings.Contains(resultText(res[0]), "blocking execution") {
		t.Fatalf("fail closed: %v", res)
	}
	// Next turn: the plugin restarts (slow handler: 30s would exceed, so
	// the next call must complete only because the new process answers;
	// use a short prompt without tools to check the agent is fine).
	os.Remove(pidFile)
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "next"})
	a.WaitType(from, "tool_execution_start")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			if p2, _ := strconv.Atoi(strings.TrimSpace(string(b))); p2 != 0 && p2 != pid {
				syscall.Kill(p2, syscall.SIGKILL) // end the slow handler
				a.WaitType(from, "agent_end")
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("plugin was not restarted on next use")
}

func TestHungHandlerDeadlineHonoured(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	project := t.TempDir()
	pd := e2e.PluginDir(t, filepath.Join(project, "plugins"), "hang", bin, "--hang", "tool_call")
	// The project's settings give this extension a 300 ms deadline.
	e2e.WriteSettings(t, filepath.Join(project, ".atomic"), map[string]any{
		"extensions": []any{map[string]any{"path": pd, "timeouts": map[string]any{"tool_call": 300}}},
	})
	script := []map[string]any{bashCall("echo x"), {"text": "ok"}}
	a := e2e.Start(t, e2e.Options{Args: []string{"--trust-project"}, Script: script, Dir: project})
	from := a.Len()
	start := time.Now()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	e := a.WaitType(from, "extension_error")
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("deadline not honoured: %v", took)
	}
	if e["event"] != "tool_call" || !strings.Contains(fmt.Sprint(e["error"]), "300ms") {
		t.Fatalf("%v", e)
	}
	a.WaitType(from, "agent_end")
	res := toolResults(a.Records(from))
	if len(res) != 1 || res[0]["isError"] != true {
		t.Fatalf("%v", res)
	}
	// The agent keeps serving.
	a.MustSucceed(map[string]any{"type": "get_state"})
}

func TestPluginRequestedDeadline(t *testing.T) {
	script := []map[string]any{bashCall("echo x"), {"text": "ok"}}
	a := startWithPlugins(t, script, []string{"--hang", "tool_call", "--tool-call-timeout-ms", "200"})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "go"})
	e := a.WaitType(from, "extension_error")
	if !strings.Contains(fmt.Sprint(e["error"]), "200ms") {
		t.Fatalf("%v", e)
	}
	a.WaitType(from, "agent_end")
}

func TestPluginStdoutNeverReachesProtocol(t *testing.T) {
	script := []map[string]any{{"text": "hello"}}
	a := startWithPlugins(t, script, []string{"--stdout-spam", "--observe", "turn_start,message_end", "--log-flood", "20000"})
	a.PromptAndWait("hi")
	a.MustSucceed(map[string]any{"type": "get_state"})
	for _, line := range a.RawLines() {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("non-JSON line on stdout: %q", line)
		}
		if bytes.Contains(line, []byte("stdout noise")) || bytes.Contains(line, []byte(`"command":"fake"`)) {
			t.Fatalf("plugin output reached stdout: %s", line)
		}
	}
}

func TestUntrustedProjectExtensionsAreSkipped(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	project := t.TempDir()
	e2e.PluginDir(t, filepath.Join(project, ".atomic", "extensions"), "guard", bin, "--block-bash", "echo", "--command", "guarded")
	script := []map[string]any{bashCall("echo untrusted-ran"), {"text": "ok"}, bashCall("echo trusted-ran"), {"text": "ok"}}
	a := e2e.Start(t, e2e.Options{Script: script, Dir: project})
	st := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)
	exts := st["extensions"].([]any)
	if st["projectTrusted"] != false || len(exts) != 1 || exts[0].(map[string]any)["state"] != "skipped" || exts[0].(map[string]any)["scope"] != "project" {
		t.Fatalf("get_extensions: %v", st)
	}
	if !strings.Contains(fmt.Sprint(exts[0]), "trust") {
		t.Fatalf("no diagnostic: %v", exts[0])
	}
	res := toolResults(a.PromptAndWait("go"))
	if len(res) != 1 || res[0]["isError"] == true {
		t.Fatalf("untrusted extension ran: %v", res)
	}
	if cmds := extensionCommands(t, a); len(cmds) != 0 {
		t.Fatalf("untrusted commands listed: %v", cmds)
	}
	r := a.MustSucceed(map[string]any{"type": "trust_project"})
	if r["data"].(map[string]any)["loaded"] != float64(1) {
		t.Fatalf("trust_project: %v", r)
	}
	res = toolResults(a.PromptAndWait("again"))
	if len(res) != 1 || res[0]["isError"] != true {
		t.Fatalf("trusted extension did not run: %v", res)
	}
	// Trust is recorded, bound to the files: a new agent with the same
	// agent dir would trust it; a changed file would not (unit-tested).
	if _, err := os.Stat(filepath.Join(a.AgentDir, "trust.json")); err != nil {
		t.Fatal(err)
	}
}

func TestBadPluginsAreDiagnosedAndAgentServes(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	dir := t.TempDir()
	garbage := e2e.PluginDir(t, dir, "garbage", bin, "--garbage")
	early := e2e.PluginDir(t, dir, "early", bin, "--exit-early")
	version := e2e.PluginDir(t, dir, "version", bin, "--bad-version")
	notExec := filepath.Join(dir, "plain")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	// A missing -e path ends start-up (cmd/atomic tests it); an empty
	// plugin directory is served and reported.
	missing := filepath.Join(dir, "missing")
	if err := os.Mkdir(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	malformed := e2e.PluginDir(t, dir, "malformed", bin, "--malformed")
	script := []map[string]any{bashCall("echo x"), {"text": "ok"}}
	a := e2e.Start(t, e2e.Options{Script: script, Args: []string{"-e", garbage, "-e", early, "-e", version, "-e", notExec, "-e", missing, "-e", malformed}})
	st := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
	states := map[string]string{}
	for _, x := range st {
		m := x.(map[string]any)
		states[filepath.Base(fmt.Sprint(m["path"]))] = fmt.Sprint(m["state"], ": ", m["message"])
	}
	for name, want := range map[string]string{
		"garbage": "failed: plugin failed to start", "early": "failed: plugin failed to start",
		"version": "incompatible API version", "plain": "not executable", "missing": "a directory without atomic-plugin.json", "malformed": "loaded",
	} {
		if !strings.Contains(states[name], want) {
			t.Errorf("%s: want %q, got %q", name, want, states[name])
		}
	}
	loadErrs := 0
	for _, r := range a.Records(0) {
		if r.Type() == "extension_error" && r["event"] == "load" {
			loadErrs++
		}
	}
	if loadErrs != 5 {
		t.Errorf("want 5 load errors, got %d", loadErrs)
	}
	recs := a.PromptAndWait("go")
	errs := extErrors(recs)
	if len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0]["error"]), "malformed result") {
		t.Fatalf("malformed result: %v", errs)
	}
	if res := toolResults(recs); len(res) != 1 || res[0]["isError"] != true {
		t.Fatalf("malformed result must block: %v", res)
	}
}

func TestPluginsDoNotOutliveAKilledAgent(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	a := startWithPlugins(t, nil, []string{"--pidfile", pidFile, "--observe", "turn_end"})
	a.MustSucceed(map[string]any{"type": "get_extensions"}) // started
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err := a.Process().Kill(); err != nil {
		t.Fatal(err)
	}
	a.Wait(5 * time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the plugin outlived the agent")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestProjectCannotTrustItself(t *testing.T) {
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	project := t.TempDir()
	e2e.PluginDir(t, filepath.Join(project, ".atomic", "extensions"), "evil", bin, "--command", "evil")
	e2e.WriteSettings(t, filepath.Join(project, ".atomic"), map[string]any{"defaultProjectTrust": "always"})
	a := e2e.Start(t, e2e.Options{Dir: project})
	st := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)
	if st["projectTrusted"] != false {
		t.Fatalf("the project trusted itself through its own settings: %v", st)
	}
}

func TestHungCommandDoesNotBlockTheAgent(t *testing.T) {
	a := startWithPlugins(t, []map[string]any{{"text": "still here"}}, []string{"--command", "hello"})
	start := time.Now()
	// As in pi 1.6 the prompt of a command is answered when the command
	// has finished, so this one is not answered while it hangs; the agent
	// serves everything else meanwhile.
	a.Send(map[string]any{"id": "hung", "type": "prompt", "message": "/hello hang"})
	a.MustSucceed(map[string]any{"type": "get_state"})
	recs := a.PromptAndWait("are you there?")
	if time.Since(start) > 5*time.Second {
		t.Fatal("a hung command held up the agent")
	}
	if len(recs) == 0 {
		t.Fatal("no run")
	}
	if got := a.Responses("hung"); len(got) != 0 {
		t.Fatalf("the hung command's prompt was answered: %v", got)
	}
}
