package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/tools"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMergesUserAndTrustedProject(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	write(t, UserFile(agent), `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "server-fs", "."], "env": {"TOKEN": "${T}"}},
		"docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS}"}, "toolExposure": {"search": "direct", "get_*": "hidden", "*": "deferred"}},
		"old": {"type": "sse", "url": "https://example.com/sse"},
		"bad name": {"command": "x"},
		"neither": {"args": ["x"]},
		"zz": {"command": "x", "timeout": -1}
	}}`)
	write(t, ProjectFile(cwd), `{"mcpServers": {
		"fs": {"enabled": false, "exposure": "direct"},
		"docs": {"url": "http://localhost:1/mcp"},
		"proj": {"command": "./tool"},
		"ghost": {"enabled": false},
		"fs2": {"enabled": false, "command": "x", "env": {"A": "1"}}
	}}`)
	l := Load(agent, cwd, false)
	if len(l.Servers) != 2 || l.ProjectFile != "" {
		t.Fatalf("untrusted: %+v", l.Servers)
	}
	errs := strings.Join(l.Errors, "\n")
	for _, want := range []string{"legacy SSE transport is not supported", `invalid server name "bad name"`, `"neither": needs either "command"`, "timeout must be a positive number"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors lack %q:\n%s", want, errs)
		}
	}
	docs, _ := l.Find("docs")
	if got := []string{docs.Config.ToolExposureOf("search"), docs.Config.ToolExposureOf("get_x"), docs.Config.ToolExposureOf("other")}; strings.Join(got, ",") != "direct,hidden,deferred" {
		t.Errorf("tool exposure %v", got)
	}
	l = Load(agent, cwd, true)
	fs, _ := l.Find("fs")
	if fs.Config.IsEnabled() || fs.Config.Exposure != tools.ExposureDirect || fs.Config.Env["TOKEN"] != "${T}" || fs.Override == "" || fs.Scope != ScopeUser {
		t.Errorf("override: %+v", fs)
	}
	docs, _ = l.Find("docs")
	if docs.Config.URL != "http://localhost:1/mcp" || docs.Config.Headers != nil || docs.Scope != ScopeProject {
		t.Errorf("project replacement: %+v", docs)
	}
	if _, ok := l.Find("proj"); !ok {
		t.Error("project server missing")
	}
	if !strings.Contains(strings.Join(l.Errors, "\n"), `"ghost" needs "command" or "url", or a user server to override`) {
		t.Errorf("errors: %v", l.Errors)
	}
}

func TestNameClashAndToolNames(t *testing.T) {
	agent := t.TempDir()
	write(t, UserFile(agent), `{"mcpServers": {"my-srv": {"command": "a"}, "my_srv": {"command": "b"}}}`)
	l := Load(agent, t.TempDir(), false)
	if len(l.Servers) != 1 || !strings.Contains(strings.Join(l.Errors, ""), `conflicts with "my-srv"`) {
		t.Fatalf("%+v %v", l.Servers, l.Errors)
	}
	if got := ToolName("my-srv", "get.thing", nil); got != "mcp__my_srv__get_thing" {
		t.Errorf("name %q", got)
	}
	long := ToolName("s", strings.Repeat("x", 80), nil)
	if len(long) != 64 || long == ToolName("s", strings.Repeat("x", 81), nil) {
		t.Errorf("long names %q", long)
	}
	if got := ToolName("s", "a-b", func(string) bool { return true }); !strings.HasPrefix(got, "mcp__s__a_b_") || len(got) != len("mcp__s__a_b_")+8 {
		t.Errorf("taken name %q", got)
	}
}

func TestAddRemoveKeepOtherContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "mcp.json")
	if replaced, err := AddServer(path, "a", map[string]any{"command": "x"}); err != nil || replaced {
		t.Fatal(replaced, err)
	}
	write(t, path, "{\n    \"other\": {\"keep\": true},\n    \"mcpServers\": {\"z\": {\"url\": \"https://z/mcp\"}, \"a\": {\"command\": \"x\"}}\n}\n")
	if replaced, err := AddServer(path, "a", map[string]any{"command": "y"}); err != nil || !replaced {
		t.Fatal(replaced, err)
	}
	if _, err := AddServer(path, "b", map[string]any{"type": "sse", "url": "https://b/sse"}); err == nil {
		t.Fatal("an sse server was added")
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	if !strings.Contains(text, `"keep": true`) || !strings.Contains(text, "\n    \"mcpServers\"") || strings.Index(text, `"z"`) > strings.Index(text, `"a"`) || !strings.Contains(text, `"y"`) {
		t.Fatalf("file after add:\n%s", text)
	}
	if removed, err := RemoveServer(path, "z"); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if removed, _ := RemoveServer(path, "z"); removed {
		t.Fatal("removed twice")
	}
	l := Load(filepath.Dir(path), t.TempDir(), false)
	if len(l.Servers) != 1 || l.Servers[0].Name != "a" || l.Servers[0].Config.Command != "y" {
		t.Fatalf("%+v %v", l.Servers, l.Errors)
	}
	write(t, path, "not json")
	if _, err := AddServer(path, "c", map[string]any{"command": "x"}); err == nil {
		t.Fatal("a broken file was replaced")
	}
	if b, _ := os.ReadFile(path); string(b) != "not json" {
		t.Fatal("the broken file changed")
	}
}
