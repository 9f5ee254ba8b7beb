package fault

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// Faults of an extension plugin in the middle of a hook: killed, stopped
// with SIGSTOP, flooding its stderr. Whatever the plugin does, the agent
// reports it (extension_error), fails the hook closed or goes on, and
// keeps serving.

func bashCall(cmd string) map[string]any {
	return map[string]any{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": cmd}}}}
}

// startWithPlugin starts the agent with internal/testplugin (given args)
// registered in the user's settings with the given hook timeouts (ms).
func startWithPlugin(t *testing.T, script []map[string]any, timeouts map[string]int, co e2e.ClientOptions, args ...string) *e2e.Client {
	t.Helper()
	bin := e2e.BuildPlugin(t, "./internal/testplugin")
	dir := e2e.PluginDir(t, t.TempDir(), "faulty", bin, args...)
	entry := map[string]any{"path": dir}
	if timeouts != nil {
		entry["timeouts"] = timeouts
	}
	settings, _ := json.Marshal(map[string]any{"extensions": []any{entry}})
	return e2e.StartClient(t, e2e.Options{Script: script, AgentFiles: map[string]string{"settings.json": string(settings)}}, co)
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the plugin did not write its pid to %s", file)
	return 0
}

// toolEnd returns the run's tool_execution_end records.
func toolEnds(t *testing.T, run *rpcclient.Run) []rpcclient.ToolExecution {
	var out []rpcclient.ToolExecution
	for _, ev := range run.OfType("tool_execution_end") {
		var te rpcclient.ToolExecution
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		out = append(out, te)
	}
	return out
}

func extensionErrors(t *testing.T, run *rpcclient.Run) []rpcclient.ExtensionError {
	var out []rpcclient.ExtensionError
	for _, ev := range run.OfType("extension_error") {
		var e rpcclient.ExtensionError
		if err := ev.Decode(&e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// Killed while its tool_call handler runs: reported at once, the tool call
// fails closed, and the next prompt works.
func TestPluginKilledDuringHook(t *testing.T) {
	dir := t.TempDir()
	pidFile, recFile := filepath.Join(dir, "pid"), filepath.Join(dir, "record")
	script := []map[string]any{bashCall("echo guarded"), reply("after the crash"), reply("next answer")}
	c := startWithPlugin(t, script, nil, e2e.ClientOptions{}, "--slow", "tool_call=30s", "--pidfile", pidFile, "--record", recFile)
	sub := c.Subscribe("tool_execution_start")
	defer sub.Close()
	runs := make(chan *rpcclient.Run, 1)
	go func() {
		run, err := c.PromptAndWait(context.Background(), "go")
		if err != nil {
			t.Error(err)
		}
		runs <- run
	}()
	if _, err := sub.Next(ctx(t)); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFileLine(t, recFile, "tool_call", 10*time.Second) // the handler is running
	killed := time.Now()
	if err := syscall.Kill(readPID(t, pidFile), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	run := <-runs
	if took := time.Since(killed); took > 5*time.Second {
		t.Fatalf("the run ended %v after the kill", took)
	}
	errs := extensionErrors(t, run)
	if len(errs) != 1 || errs[0].Event != "tool_call" || !strings.Contains(errs[0].Error, "exited") {
		t.Fatalf("extension errors: %+v", errs)
	}
	ends := toolEnds(t, run)
	if len(ends) != 1 || !ends[0].IsError || !strings.Contains(ends[0].Result.Content.Text(), "blocking execution") {
		t.Fatalf("the tool call did not fail closed: %+v", ends)
	}
	if run.Text() != "after the crash" {
		t.Fatalf("reply %q", run.Text())
	}
	run, err := c.PromptAndWait(ctx(t), "again")
	if err != nil || run.Text() != "next answer" {
		t.Fatalf("next prompt: %v %q", err, run.Text())
	}
}

// Stopped with SIGSTOP while its handler runs: the hook's deadline ends the
// wait (the plugin cannot answer), abort and shutdown stay prompt.
func TestPluginStoppedDuringHook(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := []map[string]any{bashCall("echo one"), reply("went on"), bashCall("echo two"), reply("unused")}
	c := startWithPlugin(t, script, map[string]int{"tool_call": 1500}, e2e.ClientOptions{}, "--slow", "tool_call=400ms", "--pidfile", pidFile)
	pid := readPIDAfterStart(t, c, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })

	sub := c.Subscribe("tool_execution_start")
	defer sub.Close()
	runs := make(chan *rpcclient.Run, 1)
	go func() {
		run, err := c.PromptAndWait(context.Background(), "one")
		if err != nil {
			t.Error(err)
		}
		runs <- run
	}()
	if _, err := sub.Next(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	var run *rpcclient.Run
	select {
	case run = <-runs:
	case <-time.After(15 * time.Second):
		t.Fatal("the run is stuck behind a stopped plugin")
	}
	t.Logf("the run ended %v after the plugin stopped", time.Since(stopped).Round(time.Millisecond))
	errs := extensionErrors(t, run)
	if len(errs) != 1 || errs[0].Event != "tool_call" || !strings.Contains(errs[0].Error, "1.5s") {
		t.Fatalf("extension errors: %+v", errs)
	}
	if ends := toolEnds(t, run); len(ends) != 1 || !ends[0].IsError {
		t.Fatalf("tool ends: %+v", ends)
	}
	if run.Text() != "went on" {
		t.Fatalf("reply %q", run.Text())
	}

	// Still stopped: a second prompt runs into it again; abort ends the
	// run promptly.
	if err := c.Prompt(ctx(t), "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Next(ctx(t)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Abort(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("abort took %v with a stopped plugin", took)
	}
	if st, err := c.GetState(ctx(t)); err != nil || st.IsStreaming {
		t.Fatalf("state after abort: %+v %v", st, err)
	}
	// And the agent shuts down without waiting for it.
	start = time.Now()
	_ = c.CloseInput()
	if code := waitExit(t, c.Client, 10*time.Second).ExitCode(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	t.Logf("shut down in %v with the plugin stopped", time.Since(start).Round(time.Millisecond))
}

// readPIDAfterStart makes sure the plugin runs (a command that lists
// extensions starts them) and returns its pid.
func readPIDAfterStart(t *testing.T, c *e2e.Client, pidFile string) int {
	t.Helper()
	exts, err := c.GetExtensions(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(exts.Extensions) != 1 || exts.Extensions[0].State != "loaded" {
		t.Fatalf("extensions: %+v", exts)
	}
	return readPID(t, pidFile)
}

// Flooding stderr (4 MB) from inside a hook: the log bridge keeps up, the
// hook answers in time, nothing reaches the protocol, and the agent's
// memory stays bounded.
func TestPluginFloodsStderrDuringHook(t *testing.T) {
	const lines = 100000
	script := []map[string]any{bashCall("echo flooded"), reply("survived the flood")}
	c := startWithPlugin(t, script, map[string]int{"tool_call": 20000}, e2e.ClientOptions{}, "--stderr-flood", "tool_call="+strconv.Itoa(lines))
	pid := c.PID()
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatal(err)
	}
	before := vm(pid, "VmRSS")
	start := time.Now()
	run, err := c.PromptAndWait(ctx(t), "flood")
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if errs := extensionErrors(t, run); len(errs) != 0 {
		t.Fatalf("extension errors: %+v", errs)
	}
	ends := toolEnds(t, run)
	if len(ends) != 1 || ends[0].IsError || strings.TrimSpace(ends[0].Result.Content.Text()) != "flooded" {
		t.Fatalf("tool: %+v", ends)
	}
	if run.Text() != "survived the flood" {
		t.Fatalf("reply %q", run.Text())
	}
	after := vm(pid, "VmHWM")
	t.Logf("%d stderr lines in a hook: run took %v, agent VmRSS %.1f MB before, peak %.1f MB", lines, took.Round(time.Millisecond),
		float64(before)/1024, float64(after)/1024)
	if after-before > 64*1024 {
		t.Errorf("the agent's memory grew by %.1f MB", float64(after-before)/1024)
	}
	// The agent's log (its stderr; never stdout, checked at cleanup) says
	// that the plugin's lines were rate limited.
	c.WaitStderr("plugin log is flooding")
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// A dialog an extension opens during a hook is answered by the Go
// client's UIHandler.
func TestPluginDialogAnsweredByClient(t *testing.T) {
	asked := make(chan rpcclient.UIRequest, 2)
	co := e2e.ClientOptions{UIHandler: func(_ context.Context, req rpcclient.UIRequest) (rpcclient.UIResponse, bool) {
		asked <- req
		return rpcclient.UIConfirm(strings.Contains(req.Message, "allowed")), true
	}}
	script := []map[string]any{bashCall("echo allowed"), bashCall("echo refused"), reply("done")}
	c := startWithPlugin(t, script, nil, co, "--confirm-bash")
	run, err := c.PromptAndWait(ctx(t), "two commands")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		req := <-asked
		if req.Method != "confirm" || req.Title != "Run bash?" {
			t.Fatalf("dialog %+v", req)
		}
	}
	ends := toolEnds(t, run)
	if len(ends) != 2 || ends[0].IsError || strings.TrimSpace(ends[0].Result.Content.Text()) != "allowed" ||
		!ends[1].IsError || !strings.Contains(ends[1].Result.Content.Text(), "declined") {
		t.Fatalf("tool ends: %+v", ends)
	}
}
