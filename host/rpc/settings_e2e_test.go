package rpc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// toolNamesOffered lists the tools of the nth model request.
func toolNamesOffered(t *testing.T, a *e2e.Agent, n int) []string {
	t.Helper()
	reqs := a.FauxRequests()
	if len(reqs) <= n {
		t.Fatalf("%d model requests, want more than %d", len(reqs), n)
	}
	b, _ := json.Marshal(reqs[n]["tools"])
	var tools []struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(b, &tools)
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	sort.Strings(out)
	return out
}

// shellPath and shellCommandPrefix (pi's settings) run the bash tool's
// commands and the RPC bash command.
func TestShellSettings(t *testing.T) {
	dir := t.TempDir()
	sh := filepath.Join(dir, "mysh")
	if err := os.WriteFile(sh, []byte("#!/bin/sh\necho via-mysh\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"shellPath": sh, "shellCommandPrefix": "export ATOMIC_T=prefixed"})
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"settings.json": string(settings)},
		Script: []map[string]any{
			{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo got-$ATOMIC_T"}}}},
			{"text": "done"},
		},
	})
	recs := a.PromptAndWait("run it")
	end := ofType(recs, "tool_execution_end")
	if len(end) != 1 {
		t.Fatalf("tool ends: %d", len(end))
	}
	out := messageText(obj(end[0], "result"))
	if !strings.Contains(out, "via-mysh") || !strings.Contains(out, "got-prefixed") {
		t.Fatalf("bash tool output %q: not run by shellPath with shellCommandPrefix", out)
	}
	d := a.MustSucceed(map[string]any{"type": "bash", "command": "echo got-$ATOMIC_T"})["data"].(map[string]any)
	if o, _ := d["output"].(string); !strings.Contains(o, "via-mysh") || !strings.Contains(o, "got-prefixed") {
		t.Fatalf("RPC bash output %q: not run by shellPath with shellCommandPrefix", o)
	}
}

// A shellPath that does not exist is an error the model sees, as pi's.
func TestShellPathMissing(t *testing.T) {
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"settings.json": `{"shellPath": "/nonexistent/shell"}`},
		Script: []map[string]any{
			{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "true"}}}},
			{"text": "done"},
		},
	})
	end := ofType(a.PromptAndWait("run it"), "tool_execution_end")
	if len(end) != 1 || end[0]["isError"] != true || !strings.Contains(messageText(obj(end[0], "result")), "Custom shell path not found: /nonexistent/shell") {
		t.Fatalf("tool end: %v", end)
	}
}

// defaultTools as pi 1.6 reads it: +name adds to the defaults, -name
// removes, plain names replace them, [] leaves no built-in tool; --tools
// with only modifiers changes that selection.
func TestDefaultToolsModifiers(t *testing.T) {
	for _, c := range []struct {
		setting string
		args    []string
		want    string
	}{
		{`["+grep"]`, nil, "bash,edit,grep,read,write"},
		{`["-bash", "+ls"]`, nil, "edit,ls,read,write"},
		{`["read", "+grep"]`, nil, "grep,read"},
		{`[]`, nil, ""},
		{`["+grep"]`, []string{"--tools", "-edit,+find"}, "bash,find,grep,read,write"},
		{`["+grep"]`, []string{"--tools", "read"}, "read"},
	} {
		t.Run(c.setting+strings.Join(c.args, " "), func(t *testing.T) {
			a := e2e.Start(t, e2e.Options{
				Args:       c.args,
				AgentFiles: map[string]string{"settings.json": `{"defaultTools": ` + c.setting + `}`},
				Script:     []map[string]any{{"text": "ok"}},
			})
			a.PromptAndWait("hi")
			if got := strings.Join(toolNamesOffered(t, a, 0), ","); got != c.want {
				t.Fatalf("tools offered %q, want %q", got, c.want)
			}
		})
	}
}

// Every pi 1.6 setting atomic does not act on is named once, and so is
// an unknown key; retry.maxAgentDelayMs (pi's name) is read.
func TestSettingsKeysWarned(t *testing.T) {
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"settings.json": `{"$schema": "x", "cacheWarming": "idle", "hideThinkingBlock": true, "compaction": {"keepRecentTokens": 100, "enabled": true}, "retry": {"maxAgentDelayMs": 5}, "shelPath": "/bin/sh", "httpIdleTimeoutMs": "soon"}`},
	})
	a.MustSucceed(map[string]any{"type": "get_state"})
	errOut := a.WaitStderr("cacheWarming", "compaction.keepRecentTokens", "shelPath", "httpIdleTimeoutMs must be")
	for _, k := range []string{"cacheWarming", "compaction.keepRecentTokens", "unknown setting shelPath", "httpIdleTimeoutMs must be"} {
		if n := strings.Count(errOut, k); n != 1 {
			t.Errorf("%q named %d times in stderr:\n%s", k, n, errOut)
		}
	}
	for _, k := range []string{"maxAgentDelayMs", "$schema", "compaction.enabled", "hideThinkingBlock"} {
		if strings.Contains(errOut, k) {
			t.Errorf("%q warned about:\n%s", k, errOut)
		}
	}
}
