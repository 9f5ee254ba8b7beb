package jsext

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
)

// loadIsolated starts a script in a child process of the agent (the
// ServeCommand) and loads it through the plugin runtime like any plugin:
// the child has a memory limit, and a crash (or a script killed for using
// too much memory) never harms the agent; the plugin runtime restarts it
// on its next use and disables it after repeated crashes.
func (rt *Runtime) loadIsolated(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	if rt.Process == nil {
		return nil, errors.New(`"isolation": "process" is not available in this build (no plugin runtime)`)
	}
	exe := rt.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("cannot find the atomic binary for process isolation: %w", err)
		}
	}
	limit := rt.scriptMemoryLimit(spec)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	errFile := filepath.Join(os.TempDir(), fmt.Sprintf("atomic-jsext-%d-%s.err", os.Getpid(), hex.EncodeToString(rnd[:])))
	loadTimeout := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		loadTimeout = time.Until(dl) - 500*time.Millisecond
		if loadTimeout < time.Second {
			loadTimeout = time.Second
		}
	}
	child := spec
	child.Kind = extensions.KindPlugin
	child.Command = []string{exe, ServeCommand,
		fmt.Sprintf("--memory-limit-mb=%d", limit>>20), "--error-file=" + errFile,
		"--load-timeout=" + loadTimeout.String(), "--agent-dir=" + rt.AgentDir, "--host-version=" + rt.HostVersion,
		entryFile(spec)}
	if rt.Offline {
		child.Command = append(child.Command[:len(child.Command)-1], "--offline", entryFile(spec))
	}
	if cwd := host.HandlerContext().Cwd; cwd != "" {
		child.Dir = cwd // the script's process.cwd() is the session's, as in process
	}
	ext, err := rt.Process.Load(ctx, child, host)
	if err != nil {
		if msg := readReason(errFile); msg != "" {
			err = errors.New(msg)
		}
		os.Remove(errFile)
		return nil, err
	}
	return &isolated{Extension: ext, errFile: errFile}, nil
}

func readReason(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// isolated is a script served by a child process: the plugin, with the
// child's own account of why it died added to errors.
type isolated struct {
	extensions.Extension
	errFile string
}

// Unwrap implements extensions.Wrapper.
func (i *isolated) Unwrap() extensions.Extension { return i.Extension }

func (i *isolated) explain(err error) error {
	if err == nil {
		return nil
	}
	if reason := readReason(i.errFile); reason != "" && strings.Contains(err.Error(), "exited") {
		return fmt.Errorf("%v: %s", err, reason)
	}
	return err
}

// Handlers implements hooks.HandlerSet (the plugin's).
func (i *isolated) Handlers(event string) int {
	if hs, ok := i.Extension.(hooks.HandlerSet); ok {
		return hs.Handlers(event)
	}
	return -1
}

// HandleOne implements hooks.HandlerSet, with the child's account of a
// death added as Handle does.
func (i *isolated) HandleOne(ctx context.Context, ev *hooks.Event, n int) (json.RawMessage, error) {
	hs, ok := i.Extension.(hooks.HandlerSet)
	if !ok {
		return i.Handle(ctx, ev)
	}
	raw, err := hs.HandleOne(ctx, ev, n)
	return raw, i.explain(err)
}

// Handle implements hooks.Subscriber.
func (i *isolated) Handle(ctx context.Context, ev *hooks.Event) (json.RawMessage, error) {
	raw, err := i.Extension.Handle(ctx, ev)
	return raw, i.explain(err)
}

// HandleBatch implements hooks.BatchSubscriber.
func (i *isolated) HandleBatch(ctx context.Context, evs []*hooks.Event) []error {
	errs := hooks.HandleBatch(ctx, i.Extension, evs)
	for k := range errs {
		errs[k] = i.explain(errs[k])
	}
	return errs
}

// Timeout implements hooks.TimeoutProvider.
func (i *isolated) Timeout(event string) time.Duration {
	if tp, ok := i.Extension.(hooks.TimeoutProvider); ok {
		return tp.Timeout(event)
	}
	return 0
}

// RunCommand implements extensions.Extension.
func (i *isolated) RunCommand(ctx context.Context, name, args string) error {
	return i.explain(i.Extension.RunCommand(ctx, name, args))
}

// ExecuteTool implements extensions.Extension.
func (i *isolated) ExecuteTool(ctx context.Context, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	res, err := i.Extension.ExecuteTool(ctx, name, callID, args, update)
	return res, i.explain(err)
}

// StreamProvider implements extensions.ProviderStreamer.
func (i *isolated) StreamProvider(ctx context.Context, provider string, request map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	s, ok := extensions.As[extensions.ProviderStreamer](i.Extension)
	if !ok {
		return llm.ToolResult{}, fmt.Errorf("provider %s: the extension cannot stream", provider)
	}
	res, err := s.StreamProvider(ctx, provider, request, update)
	return res, i.explain(err)
}

// Close implements extensions.Extension.
func (i *isolated) Close() error {
	err := i.Extension.Close()
	os.Remove(i.errFile)
	return err
}
