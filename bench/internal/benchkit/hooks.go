package benchkit

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/host/extensions/nodeext"
	"github.com/atomic-go/atomic/host/hooks"
)

// FakeHost is enough extensions.Host for an extension that only answers
// hooks: HandlerContext returns a fixed context (cwd "/", mode "rpc", a
// UI, session "bench"); every other method is nil and panics if called.
type FakeHost struct{ extensions.Host }

// HandlerContext returns the fixed handler context.
func (FakeHost) HandlerContext() extensions.HandlerContext {
	return extensions.HandlerContext{Cwd: "/", Mode: "rpc", HasUI: true, SessionID: "bench"}
}

// ToolCallLatency times bus.ToolCall with a bash tool call ("ls -la"):
// warmup unmeasured calls, then calls measured ones. It returns the p50
// and p99 in microseconds and fails if a call is blocked.
func ToolCallLatency(bus *hooks.Bus, warmup, calls int) (p50, p99 float64) {
	ev := hooks.ToolCallEvent{ToolCallID: "call_1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	for range warmup {
		bus.ToolCall(context.Background(), ev)
	}
	ds := make([]time.Duration, calls)
	for i := range ds {
		start := time.Now()
		d := bus.ToolCall(context.Background(), ev)
		ds[i] = time.Since(start)
		if d.Block {
			Check(fmt.Errorf("unexpected block: %s", d.Reason))
		}
	}
	slices.Sort(ds)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	return us(ds[len(ds)/2]), us(ds[len(ds)*99/100])
}

// LoadScript loads one script extension in the runtime named ("goja", with
// isolation "process" in a child started from the atomic binary bin, or
// "node") and returns a hook bus holding it, and a function that closes
// it.
func LoadScript(runtime, path, isolation, bin string) (*hooks.Bus, func()) {
	log := slog.New(slog.DiscardHandler)
	var rt extensions.Runtime = &jsext.Runtime{Log: log, Executable: bin, Process: &grpcext.Runtime{Log: log}}
	cleanup := func() {}
	if runtime == "node" {
		dir, err := os.MkdirTemp("", "atomic-bench-node-")
		Check(err)
		cleanup = func() { os.RemoveAll(dir) }
		rt = &nodeext.Runtime{Log: log, Plugins: &grpcext.Runtime{Log: log}, CacheDir: dir}
	}
	spec := extensions.Spec{Path: path, Kind: extensions.KindScript, Dir: filepath.Dir(path), Options: extensions.Options{Isolation: isolation}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ext, err := rt.Load(ctx, spec, FakeHost{})
	Check(err)
	bus := hooks.New()
	bus.Add(ext)
	return bus, func() { ext.Close(); cleanup() }
}
