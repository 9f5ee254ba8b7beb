package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// RunBuiltin runs a built-in relative to its cwd, validates the
// arguments as the model's are and refuses names that are not built-ins.
func TestRunBuiltin(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := RunBuiltin(ctx, "read", map[string]any{"path": "a.txt"}, dir, nil, nil)
	if err != nil || !strings.Contains(res.ResultText(), "alpha") {
		t.Fatalf("read: %q %v", res.ResultText(), err)
	}
	var updates int
	res, err = RunBuiltin(ctx, "bash", map[string]any{"command": "echo $X"}, dir, []string{"X=env-ok"}, func(llm.ToolResult) { updates++ })
	if err != nil || strings.TrimSpace(res.ResultText()) != "env-ok" || updates == 0 {
		t.Fatalf("bash: %q %v (%d updates)", res.ResultText(), err, updates)
	}
	if _, err := RunBuiltin(ctx, "read", map[string]any{}, dir, nil, nil); err == nil {
		t.Fatal("read without a path was not refused")
	}
	if _, err := RunBuiltin(ctx, "nope", nil, dir, nil, nil); err == nil || !strings.Contains(err.Error(), "not a built-in tool") {
		t.Fatalf("unknown tool: %v", err)
	}
	infos := BuiltinFactoryInfos()
	if len(infos) != len(Builtins()) || infos["read"].Description == "" || !strings.Contains(string(infos["bash"].Parameters), `"command"`) {
		t.Fatalf("infos: %+v", infos)
	}
	if _, ok := BuiltinFactoryInfo("nope"); ok {
		t.Fatal("info for an unknown tool")
	}
}
