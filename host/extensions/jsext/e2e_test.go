package jsext_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Black-box tests: the built binary over --mode rpc, with script
// extensions listed in the user settings, once in process and once with
// "isolation": "process".

var isolations = []string{"", "process"}

func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startScripts starts the agent with the given settings entries.
func startScripts(t *testing.T, script []map[string]any, args []string, entries ...map[string]any) *e2e.Agent {
	t.Helper()
	settings, _ := json.Marshal(map[string]any{"extensions": entries})
	return e2e.Start(t, e2e.Options{Args: args, Script: script, AgentFiles: map[string]string{"settings.json": string(settings)}})
}

func entry(path, isolation string, extra map[string]any) map[string]any {
	e := map[string]any{"path": path}
	if isolation != "" {
		e["isolation"] = isolation
	}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

func bashCall(cmd string) map[string]any {
	return map[string]any{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": cmd}}}}
}

func toolResults(recs []e2e.Record) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r.Type() != "message_end" {
			continue
		}
		if m, _ := r["message"].(map[string]any); m["role"] == "toolResult" {
			out = append(out, m)
		}
	}
	return out
}

func text(m map[string]any) string {
	var sb strings.Builder
	blocks, _ := m["content"].([]any)
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok {
			s, _ := bm["text"].(string)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

func extErrors(recs []e2e.Record) []e2e.Record {
	var out []e2e.Record
	for _, r := range recs {
		if r.Type() == "extension_error" {
			out = append(out, r)
		}
	}
	return out
}

func name(isolation string) string {
	if isolation == "" {
		return "in-process"
	}
	return isolation
}

func TestPiStyleTypeScriptExtension(t *testing.T) {
	for _, iso := range isolations {
		t.Run(name(iso), func(t *testing.T) {
			script := []map[string]any{
				{"toolCalls": []map[string]any{{"name": "todo_add", "arguments": map[string]any{"text": "write tests", "priority": "high"}}}},
				{"text": "added"},
				bashCall("rm -rf /tmp/nothing-here"),
				{"text": "blocked"},
				bashCall("echo deploy-now"),
				{"text": "deployed"},
				bashCall("echo deploy-again"),
				{"text": "declined"},
			}
			path := testdata(t, "pi-style.ts")
			a := startScripts(t, script, []string{"--log-level", "info"}, entry(path, iso, nil))

			ext := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
			st := ext[0].(map[string]any)
			if st["state"] != "loaded" || st["path"] != path || fmt.Sprint(st["tools"]) != "[todo_add]" || fmt.Sprint(st["commands"]) != "[todo]" {
				t.Fatalf("get_extensions: %v", ext)
			}

			// A registered tool the model calls, with a TypeBox schema and
			// streamed updates.
			recs := a.PromptAndWait("add a todo")
			res := toolResults(recs)
			if len(res) != 1 || res[0]["isError"] == true || text(res[0]) != `added "write tests" (high); 1 item(s)` {
				t.Fatalf("todo_add: %v", res)
			}
			updates := 0
			for _, r := range recs {
				if r.Type() == "tool_execution_update" {
					updates++
				}
			}
			if updates != 1 {
				t.Errorf("tool_execution_update events: %d", updates)
			}

			// A blocked tool call.
			res = toolResults(a.PromptAndWait("clean up"))
			if len(res) != 1 || res[0]["isError"] != true || text(res[0]) != "pi-style: refusing rm -rf" {
				t.Fatalf("block: %v", res)
			}

			// A confirm dialog answered through extension_ui_response; the
			// result is patched by tool_result.
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "deploy"})
			req := a.WaitType(from, "extension_ui_request")
			if req["method"] != "confirm" || req["title"] != "Deploy?" || req["message"] != "echo deploy-now" {
				t.Fatalf("ui request: %v", req)
			}
			a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
			a.WaitType(from, "agent_end")
			res = toolResults(a.Records(from))
			if len(res) != 1 || res[0]["isError"] == true || text(res[0]) != "deploy-now\n[patched by pi-style]" {
				t.Fatalf("confirmed: %v", res)
			}
			from = a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "deploy again"})
			req = a.WaitType(from, "extension_ui_request")
			a.Send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": false})
			a.WaitType(from, "agent_end")
			res = toolResults(a.Records(from))
			if len(res) != 1 || res[0]["isError"] != true || !strings.Contains(text(res[0]), "pi-style: deploy declined") {
				t.Fatalf("declined: %v", res)
			}

			// The command, its completions, and the custom entries.
			var cmd map[string]any
			for _, c := range a.MustSucceed(map[string]any{"type": "get_commands"})["data"].(map[string]any)["commands"].([]any) {
				if c.(map[string]any)["name"] == "todo" {
					cmd = c.(map[string]any)
				}
			}
			if cmd == nil || cmd["source"] != "extension" || cmd["description"] != "Show or add todos" {
				t.Fatalf("command: %v", cmd)
			}
			comp := a.MustSucceed(map[string]any{"type": "get_command_completions", "commandName": "todo", "argumentPrefix": "l"})
			if !strings.Contains(fmt.Sprint(comp["data"]), "list") {
				t.Fatalf("completions: %v", comp)
			}
			from = a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/todo add keep session"})
			note := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
				return r.Type() == "extension_ui_request" && r["method"] == "notify"
			})
			if note["message"] != "todos: write tests, keep session" {
				t.Fatalf("notify: %v", note)
			}
			entries := a.MustSucceed(map[string]any{"type": "get_entries"})
			if n := strings.Count(fmt.Sprint(entries["data"]), "todo-state"); n != 2 {
				t.Fatalf("todo-state entries: %d in %v", n, entries["data"])
			}

			// session_before_switch cancels new_session.
			r := a.MustSucceed(map[string]any{"type": "new_session"})
			if r["data"].(map[string]any)["cancelled"] != true {
				t.Fatalf("new_session: %v", r)
			}

			if errs := extErrors(a.Records(0)); len(errs) != 0 {
				t.Fatalf("extension errors: %v", errs)
			}
			// console.log went to the log (stderr), never to stdout.
			for _, line := range a.RawLines() {
				if strings.Contains(string(line), "must not reach stdout") {
					t.Fatalf("console output on stdout: %s", line)
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(a.Stderr(), "must not reach stdout") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(a.Stderr(), "must not reach stdout") {
				t.Fatalf("console output not in the log:\n%s", a.Stderr())
			}
		})
	}
}

func TestInfiniteLoopIsInterruptedWithinTheDeadline(t *testing.T) {
	for _, iso := range isolations {
		t.Run(name(iso), func(t *testing.T) {
			script := []map[string]any{bashCall("echo spin"), {"text": "after spin"}, bashCall("echo fine"), {"text": "done"}}
			path := testdata(t, "spin.ts")
			a := startScripts(t, script, nil, entry(path, iso, map[string]any{"timeouts": map[string]any{"tool_call": 700}}))
			start := time.Now()
			recs := a.PromptAndWait("go")
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("took %v", d)
			}
			errs := extErrors(recs)
			if len(errs) != 1 || errs[0]["extensionPath"] != path || errs[0]["event"] != "tool_call" || !strings.Contains(fmt.Sprint(errs[0]["error"]), "did not finish within 700ms") {
				t.Fatalf("extension errors: %v", errs)
			}
			res := toolResults(recs)
			if len(res) != 1 || res[0]["isError"] != true || !strings.Contains(text(res[0]), "Extension failed, blocking execution") {
				t.Fatalf("results: %v", res)
			}
			// The agent and the script keep serving.
			a.MustSucceed(map[string]any{"type": "get_state"})
			res = toolResults(a.PromptAndWait("again"))
			if len(res) != 1 || res[0]["isError"] == true || !strings.Contains(text(res[0]), "fine") {
				t.Fatalf("after: %v", res)
			}
		})
	}
}

func TestScriptThatExhaustsMemoryIsKilledInItsChildProcess(t *testing.T) {
	script := []map[string]any{bashCall("echo hog"), {"text": "after hog"}, bashCall("echo fine"), {"text": "done"}}
	path := testdata(t, "hog.ts")
	a := startScripts(t, script, nil, entry(path, "process", map[string]any{"memoryLimitMB": 64}))
	recs := a.PromptAndWait("go")
	errs := extErrors(recs)
	if len(errs) != 1 || errs[0]["extensionPath"] != path || !strings.Contains(fmt.Sprint(errs[0]["error"]), "memory limit of 64 MiB") {
		t.Fatalf("extension errors: %v", errs)
	}
	res := toolResults(recs)
	if len(res) != 1 || res[0]["isError"] != true {
		t.Fatalf("results: %v", res)
	}
	a.MustSucceed(map[string]any{"type": "get_state"})
	// The child is restarted on its next use.
	res = toolResults(a.PromptAndWait("again"))
	if len(res) != 1 || res[0]["isError"] == true || !strings.Contains(text(res[0]), "fine") {
		t.Fatalf("after: %v", res)
	}
}

// TestInProcessScriptThatAllocatesIsStopped: a tool_call handler that
// allocates without bound in the agent's own process is interrupted at
// its memory budget with an extension_error, while a watchdog on
// /proc/<pid>/status holds the agent under a cap (a regression kills the
// agent and fails the test instead of taking the machine).
func TestInProcessScriptThatAllocatesIsStopped(t *testing.T) {
	script := []map[string]any{bashCall("echo hog"), {"text": "after hog"}, bashCall("echo fine"), {"text": "done"}}
	path := testdata(t, "hog.ts")
	a := startScripts(t, script, nil, entry(path, "", map[string]any{"memoryLimitMB": 64}))
	const capKiB = 600 << 10
	over := watchRSS(t, a, capKiB)
	recs := a.PromptAndWait("go")
	if kib := over(); kib > 0 {
		t.Fatalf("the agent reached %d MiB (cap %d MiB)", kib>>10, capKiB>>20)
	}
	errs := extErrors(recs)
	if len(errs) != 1 || errs[0]["extensionPath"] != path || errs[0]["event"] != "tool_call" || !strings.Contains(fmt.Sprint(errs[0]["error"]), "too much memory") {
		t.Fatalf("extension errors: %v", errs)
	}
	res := toolResults(recs)
	if len(res) != 1 || res[0]["isError"] != true || !strings.Contains(text(res[0]), "Extension failed, blocking execution") {
		t.Fatalf("results: %v", res)
	}
	a.MustSucceed(map[string]any{"type": "get_state"})
	res = toolResults(a.PromptAndWait("again"))
	if len(res) != 1 || res[0]["isError"] == true || !strings.Contains(text(res[0]), "fine") {
		t.Fatalf("after: %v", res)
	}
}

// watchRSS kills the agent when its resident memory passes capKiB; the
// returned function reports the size seen then (0 while under the cap).
func watchRSS(t *testing.T, a *e2e.Agent, capKiB int64) func() int64 {
	t.Helper()
	var seen atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	pid := a.Process().Pid
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if kib := statusKiB(pid, "VmRSS"); kib > capKiB {
				seen.Store(kib)
				_ = a.Process().Kill()
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})
	return seen.Load
}

// statusKiB reads a /proc/<pid>/status field in KiB (-1 when unreadable).
func statusKiB(pid int, field string) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field+":" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return -1
}

// TestScriptCannotWriteIntoTheProtocolStream: descriptor paths are
// refused in the script (in process and in an isolated child) and nothing
// reaches the client.
func TestScriptCannotWriteIntoTheProtocolStream(t *testing.T) {
	for _, iso := range isolations {
		t.Run(name(iso), func(t *testing.T) {
			script := []map[string]any{bashCall("echo hi"), {"text": "done"}}
			a := startScripts(t, script, nil, entry(testdata(t, "fdwrite.ts"), iso, nil))
			recs := a.PromptAndWait("go")
			res := toolResults(recs)
			if len(res) != 1 || strings.Contains(text(res[0]), "written") || strings.Count(text(res[0]), "EACCES") != 6 {
				t.Fatalf("results: %v", res)
			}
			for _, r := range a.Records(0) {
				if r.Type() == "injected" {
					t.Fatalf("a script wrote into the protocol stream: %v", r)
				}
			}
		})
	}
}

// TestToolsRegisteredAfterLoadAndTerminate: tools a script registers from
// session_start reach the model, and a terminating tool result (or a
// terminating tool_call block) ends the run without another model call.
func TestToolsRegisteredAfterLoadAndTerminate(t *testing.T) {
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "late_tool", "arguments": map[string]any{}}}},
		{"text": "after late"},
		{"toolCalls": []map[string]any{{"name": "final_answer", "arguments": map[string]any{"answer": "42"}}}},
		bashCall("echo stop-here"),
		{"text": "third"},
	}
	a := startScripts(t, script, nil, entry(testdata(t, "late-tools.ts"), "", nil))
	deadline := time.Now().Add(20 * time.Second)
	for {
		ext := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
		if len(ext) == 1 && strings.Contains(fmt.Sprint(ext[0].(map[string]any)["tools"]), "final_answer") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tools were never registered: %v", ext)
		}
		time.Sleep(20 * time.Millisecond)
	}
	res := toolResults(a.PromptAndWait("one"))
	if len(res) != 1 || res[0]["isError"] == true || text(res[0]) != "late ok" {
		t.Fatalf("late tool: %v", res)
	}
	if n := len(a.FauxRequests()); n != 2 {
		t.Fatalf("%d model requests after the first prompt", n)
	}
	res = toolResults(a.PromptAndWait("two"))
	if len(res) != 1 || text(res[0]) != "final: 42" {
		t.Fatalf("final tool: %v", res)
	}
	if n := len(a.FauxRequests()); n != 3 {
		t.Fatalf("terminate did not end the run: %d model requests", n)
	}
	res = toolResults(a.PromptAndWait("three"))
	if len(res) != 1 || text(res[0]) != "stopped" {
		t.Fatalf("blocked: %v", res)
	}
	if n := len(a.FauxRequests()); n != 4 {
		t.Fatalf("a terminating block did not end the run: %d model requests", n)
	}
}

func TestBadScriptsAreLoadDiagnostics(t *testing.T) {
	for _, iso := range isolations {
		t.Run(name(iso), func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, src string) string {
				p := filepath.Join(dir, name)
				if err := writeFile(p, src); err != nil {
					t.Fatal(err)
				}
				return p
			}
			bad := map[string]string{
				write("syntax.ts", "export default function (pi) {\n  pi.on('x', () => {\n"):                 "syntax.ts:3:",
				write("noexport.ts", "export const x = 1;\n"):                                                "does not export a factory function",
				write("throws.ts", "export default function () {\n  throw new Error('nope');\n}\n"):          "nope (throws.ts:2:",
				write("missing.ts", "import x from 'not-a-package';\nexport default function () { x(); }\n"): `Cannot find module "not-a-package"`,
			}
			good := write("good.ts", "export default function (pi: any) { pi.registerCommand('hello', { handler: async () => {} }); }\n")
			var entries []map[string]any
			for p := range bad {
				entries = append(entries, entry(p, iso, nil))
			}
			entries = append(entries, entry(good, iso, nil))
			a := startScripts(t, nil, nil, entries...)
			exts := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
			seen := 0
			for _, x := range exts {
				st := x.(map[string]any)
				p, _ := st["path"].(string)
				if want, ok := bad[p]; ok {
					seen++
					if st["state"] != "failed" || !strings.Contains(fmt.Sprint(st["message"]), want) {
						t.Errorf("%s: %v (want %q)", filepath.Base(p), st, want)
					}
				}
				if p == good && st["state"] != "loaded" {
					t.Errorf("good script: %v", st)
				}
			}
			if seen != len(bad) {
				t.Fatalf("statuses: %v", exts)
			}
			loadErrs := 0
			for _, e := range extErrors(a.Records(0)) {
				if e["event"] == "load" {
					loadErrs++
				}
			}
			if loadErrs != len(bad) {
				t.Fatalf("load errors: %v", extErrors(a.Records(0)))
			}
			a.MustSucceed(map[string]any{"type": "get_state"})
		})
	}
}

func TestShutdownFromAScript(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bye.ts")
	if err := writeFile(p, `export default function (pi: any) {
  pi.registerCommand("bye", { handler: async (_args: string, ctx: any) => { ctx.shutdown(); } });
}`); err != nil {
		t.Fatal(err)
	}
	a := startScripts(t, nil, nil, entry(p, "", nil))
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/bye"})
	if code := a.Wait(15 * time.Second); code != 0 {
		t.Fatalf("exit code %d\n%s", code, a.Stderr())
	}
}
