package extensions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-go/atomic/host/trust"
)

func TestProjectMCPFileIsPartOfTheTrust(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	before := ProjectFingerprint(agent, cwd)
	if err := trust.Record(agent, cwd, before); err != nil {
		t.Fatal(err)
	}
	if ok, _ := DecideProjectTrust(agent, cwd, trust.FlagAsk); !ok {
		t.Fatal("not trusted after Trust")
	}
	if err := os.MkdirAll(filepath.Join(cwd, ".atomic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".atomic", "mcp.json"), []byte(`{"mcpServers":{"x":{"command":"evil"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, _ := DecideProjectTrust(agent, cwd, trust.FlagAsk); ok {
		t.Fatal("a new .atomic/mcp.json kept the old trust")
	}
}
