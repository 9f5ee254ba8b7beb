// Command permission-gate is a first-party atomic extension: it asks the
// user before dangerous bash commands (rm -rf, sudo, force pushes, piping
// downloads into a shell, …) and before write or edit calls outside the
// project, and blocks them when the user says no, does not answer in time,
// or there is no user (print and json modes).
//
// Build it and load it with -e, or put the binary in
// ~/.atomic/agent/extensions/. Patterns are configurable (see Config).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/atomic-go/atomic/sdk"
)

func main() {
	sdk.Serve(newExtension())
}

func newExtension() *sdk.Extension {
	ext := sdk.New("permission-gate", "1.0.0")
	ext.RegisterFlag(sdk.Flag{Name: "permission-gate-config", Type: "string", Description: "configuration file of the permission gate"})
	var (
		once sync.Once
		g    *gate
		gerr error
	)
	ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		once.Do(func() { g, gerr = configure(ctx) })
		if gerr != nil {
			// A broken configuration fails closed: the agent blocks the
			// call and reports the error.
			return nil, gerr
		}
		return g.check(ctx, ev)
	})
	return ext
}

func configure(ctx *sdk.Context) (*gate, error) {
	explicit, _ := ctx.Flag("permission-gate-config")
	agentDir := os.Getenv("ATOMIC_CODING_AGENT_DIR")
	if agentDir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			agentDir = filepath.Join(home, ".atomic", "agent")
		}
	}
	c, path, err := loadConfig(explicit, filepath.Join(ctx.Cwd, ".atomic", "permission-gate.json"), filepath.Join(agentDir, "permission-gate.json"))
	if err != nil {
		return nil, err
	}
	if explicit != "" && path == "" {
		return nil, fmt.Errorf("permission-gate: cannot read %s", explicit)
	}
	return compile(c)
}
