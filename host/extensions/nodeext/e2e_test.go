package nodeext_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions/nodeext"
	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/testreq"
)

// Black-box tests of the runtime choice: the built binary over --mode rpc
// with script extensions listed in the user settings.

func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testreq.Missing(t, "node", "node is not on PATH (.ci/run installs Debian's nodejs)")
	}
}

func abs(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func start(t *testing.T, script []map[string]any, settings map[string]any, env map[string]string) *e2e.Agent {
	t.Helper()
	b, _ := json.Marshal(settings)
	return e2e.Start(t, e2e.Options{Script: script, Env: env, AgentFiles: map[string]string{"settings.json": string(b)}})
}

func statuses(t *testing.T, a *e2e.Agent) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, e := range a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any) {
		m := e.(map[string]any)
		out[filepath.Base(m["path"].(string))] = m
	}
	return out
}

var volatile = regexp.MustCompile(`"(timestamp|id|toolCallId|duration|durationMs)":("[^"]*"|[0-9.]+),?`)

// events runs the scenario of both.ts and returns its events, with ids
// and times taken out.
func events(t *testing.T, runtime string) []string {
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "shout", "arguments": map[string]any{"text": "hey", "times": 2}}}},
		{"text": "shouted"},
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "rm -rf /nothing"}}}},
		{"text": "blocked"},
	}
	a := start(t, script, map[string]any{"extensionRuntime": runtime, "extensions": []any{abs(t, "both.ts")}}, nil)
	st := statuses(t, a)["both.ts"]
	if st["state"] != "loaded" || st["runtime"] != runtime {
		t.Fatalf("%s: %v", runtime, st)
	}
	recs := a.PromptAndWait("shout")
	recs = append(recs, a.PromptAndWait("clean")...)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/count now"})
	recs = append(recs, a.WaitType(from, "extension_ui_request"))
	return comparable(recs)
}

// comparable is the part of the records two runtimes must agree on, with
// ids and times taken out.
func comparable(recs []e2e.Record) []string {
	var out []string
	for _, r := range recs {
		// agent_settled follows agent_end at its own time: it may fall in
		// the next prompt's window or in none, so it is not compared.
		if r.Type() == "response" || r.Type() == "message_update" || r.Type() == "agent_settled" {
			continue
		}
		b, _ := json.Marshal(r)
		out = append(out, volatile.ReplaceAllString(string(b), ""))
	}
	return out
}

func TestSameEventsInGojaAndNode(t *testing.T) {
	needNode(t)
	goja := events(t, "goja")
	node := events(t, "node")
	if strings.Join(goja, "\n") != strings.Join(node, "\n") {
		t.Fatalf("events differ\n--- goja\n%s\n--- node\n%s", strings.Join(goja, "\n"), strings.Join(node, "\n"))
	}
	all := strings.Join(node, "\n")
	for _, want := range []string{`HEYHEY!`, `both: no rm -rf`, `count now: 1 in unnamed`, `"working"`} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %s in\n%s", want, all)
		}
	}
}

func TestAutoPicksTheRuntime(t *testing.T) {
	needNode(t)
	a := start(t, nil, map[string]any{"extensions": []any{abs(t, "both.ts"), abs(t, "nodeonly.ts"),
		map[string]any{"path": abs(t, "basic.ts"), "runtime": "goja"}}}, nil)
	st := statuses(t, a)
	if st["both.ts"]["runtime"] != "goja" || st["nodeonly.ts"]["runtime"] != "node" {
		t.Fatalf("auto: %v", st)
	}
	// basic.ts needs Node (node:http) but its entry asks for goja: it
	// fails there, as asked.
	if st["basic.ts"]["state"] != "failed" {
		t.Fatalf("goja by entry: %v", st["basic.ts"])
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/pid"})
	if ui := a.WaitType(from, "extension_ui_request"); !strings.Contains(ui["message"].(string), "function function") {
		t.Fatalf("pid: %v", ui)
	}
}

func TestWithoutNodeANodeOnlyExtensionFailsClearly(t *testing.T) {
	a := start(t, nil, map[string]any{"extensions": []any{abs(t, "both.ts"), abs(t, "nodeonly.ts")}},
		map[string]string{"PATH": t.TempDir()})
	st := statuses(t, a)
	if st["both.ts"]["state"] != "loaded" || st["both.ts"]["runtime"] != "goja" {
		t.Fatalf("goja extension: %v", st["both.ts"])
	}
	msg, _ := st["nodeonly.ts"]["message"].(string)
	if st["nodeonly.ts"]["state"] != "failed" || !strings.Contains(msg, `the module "node:http"`) ||
		!strings.Contains(msg, "installing Node.js 20.6 or newer would run it") {
		t.Fatalf("node-only extension: %v", st["nodeonly.ts"])
	}
}

func TestNodeProcessDeathIsReportedForEveryExtensionAndRestarted(t *testing.T) {
	needNode(t)
	a := start(t, nil, map[string]any{"extensionRuntime": "node", "extensions": []any{abs(t, "nodeonly.ts"), abs(t, "nodeonly2.ts"),
		map[string]any{"path": abs(t, "both.ts"), "isolation": "process"}}}, nil)
	pid := func(cmd string) string {
		from := a.Len()
		a.MustSucceed(map[string]any{"type": "prompt", "message": "/" + cmd})
		return strings.Fields(a.WaitType(from, "extension_ui_request")["message"].(string))[1]
	}
	p1, p2 := pid("pid"), pid("pid2")
	if p1 != p2 {
		t.Fatalf("two processes for two extensions: %s %s", p1, p2)
	}
	from := a.Len()
	a.Send(map[string]any{"type": "prompt", "message": "/die"})
	seen := map[string]bool{}
	a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool {
		if r.Type() == "extension_error" && r["event"] == "crash" {
			seen[filepath.Base(r["extensionPath"].(string))] = true
		}
		return len(seen) == 2
	})
	if !seen["nodeonly.ts"] || !seen["nodeonly2.ts"] || seen["both.ts"] {
		t.Fatalf("crash reports: %v", seen)
	}
	if p := pid("pid2"); p == p1 {
		t.Fatalf("not restarted: pid %s", p)
	}
	// The isolated extension kept its own process.
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/count x"})
	if ui := a.WaitType(from, "extension_ui_request"); !strings.Contains(ui["message"].(string), "count x: 0") {
		t.Fatalf("isolated: %v", ui)
	}
}

func noExtensionErrors(t *testing.T, a *e2e.Agent) {
	t.Helper()
	for _, r := range a.Records(0) {
		if r.Type() == "extension_error" {
			t.Fatalf("extension_error: %v", r)
		}
	}
}

// With auto, an extension goja cannot load (a built-in module required
// through createRequire(import.meta.url), which the import graph does not
// show) loads in Node with no error for the user, get_extensions says why,
// and the next start loads it in Node without trying goja (the file is
// evaluated once more, not twice).
func TestAutoFallsBackToNodeAndRemembers(t *testing.T) {
	needNode(t)
	ext := nodeext.CopyTestdata(t, "fallback.ts")
	env := map[string]string{"XDG_CACHE_HOME": t.TempDir()}
	settings := map[string]any{"extensions": []any{ext}}
	a := start(t, nil, settings, env)
	st := statuses(t, a)["fallback.ts"]
	reason, _ := st["runtimeReason"].(string)
	if st["state"] != "loaded" || st["runtime"] != "node" || !strings.Contains(reason, `the module "node:worker_threads"`) {
		t.Fatalf("first start: %v", st)
	}
	if n := nodeext.Evaluations(t, ext); n != 2 {
		t.Fatalf("first start evaluated the extension %d times, want 2 (goja, then Node)", n)
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/wt"})
	if ui := a.WaitType(from, "extension_ui_request"); ui["message"] != "worker function" {
		t.Fatalf("wt: %v", ui)
	}
	noExtensionErrors(t, a)
	a.CloseStdin()
	a.Wait(30 * time.Second)

	b := start(t, nil, settings, env)
	st = statuses(t, b)["fallback.ts"]
	reason, _ = st["runtimeReason"].(string)
	if st["state"] != "loaded" || st["runtime"] != "node" || !strings.Contains(reason, "remembered") {
		t.Fatalf("second start: %v", st)
	}
	if n := nodeext.Evaluations(t, ext); n != 3 {
		t.Fatalf("after the second start the extension was evaluated %d times, want 3 (Node only)", n)
	}
	noExtensionErrors(t, b)
}

// Of two extensions that fail to load in goja, the one whose factory
// throws fails as it failed there (Node is not tried: it is evaluated
// once), the one that lacks a module goja lacks loads in Node.
func TestAutoDoesNotRetryAThrownError(t *testing.T) {
	needNode(t)
	ext, other := nodeext.CopyTestdata(t, "ownfault.ts"), nodeext.CopyTestdata(t, "fallback.ts")
	a := start(t, nil, map[string]any{"extensions": []any{ext, other}}, map[string]string{"XDG_CACHE_HOME": t.TempDir()})
	all := statuses(t, a)
	st := all["ownfault.ts"]
	if msg, _ := st["message"].(string); st["state"] != "failed" || !strings.Contains(msg, "my own fault") || strings.Contains(msg, "Node") {
		t.Fatalf("own fault: %v", st)
	}
	if n := nodeext.Evaluations(t, ext); n != 1 {
		t.Fatalf("evaluated %d times, want 1", n)
	}
	if st := all["fallback.ts"]; st["state"] != "loaded" || st["runtime"] != "node" {
		t.Fatalf("missing capability: %v", st)
	}
}

// Without Node, the goja error is reported with what goja lacks and that
// Node would run it.
func TestWithoutNodeAFallbackExtensionFailsClearly(t *testing.T) {
	ext := nodeext.CopyTestdata(t, "fallback.ts")
	a := start(t, nil, map[string]any{"extensions": []any{ext}}, map[string]string{"PATH": t.TempDir()})
	st := statuses(t, a)["fallback.ts"]
	msg, _ := st["message"].(string)
	if st["state"] != "failed" || !strings.Contains(msg, `Cannot find module "node:worker_threads"`) ||
		!strings.Contains(msg, "installing Node.js 20.6 or newer would run it") {
		t.Fatalf("fallback without Node: %v", st)
	}
}
