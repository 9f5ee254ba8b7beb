package app

import (
	"context"
	"sync"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/host/extensions/nodeext"
)

// ScriptServeCommand is the hidden first argument that makes the atomic
// binary serve one script extension in a child process ("isolation":
// "process"); cmd/atomic hands it to ServeScriptChild.
const ScriptServeCommand = jsext.ServeCommand

// ServeScriptChild runs the child side of an isolated script extension
// and returns the exit status.
func ServeScriptChild(args []string) int { return jsext.ServeChild(args) }

// scriptRuntime runs .js and .ts extensions in goja (in process, or
// through the plugin runtime for "isolation": "process") or in Node, as
// the extensionRuntime setting and each extension's entry choose.
func (rt *Runtime) scriptRuntime(plugins *grpcext.Runtime) extensions.Runtime {
	goja := &jsext.Runtime{
		Log: rt.log, HostVersion: rt.opts.HostVersion, AgentDir: rt.paths.AgentDir,
		FlagValues: rt.opts.ExtensionFlags, Process: plugins,
		Offline: rt.offline(),
	}
	node := &nodeext.Runtime{
		Log: rt.log, HostVersion: rt.opts.HostVersion, AgentDir: rt.paths.AgentDir,
		Plugins: plugins, OnError: rt.reportExtensionError, Offline: rt.offline(),
	}
	return &nodeext.Chooser{Goja: goja, Node: node, Default: rt.settings.ExtensionRuntime}
}

// shutdownState carries an extension's request to end the agent
// (ctx.shutdown()).
type shutdownState struct {
	once sync.Once
	ch   chan struct{}
}

// ShutdownRequested is closed when an extension asked the agent to exit
// (after the run in flight finished); front ends end their input loop.
func (rt *Runtime) ShutdownRequested() <-chan struct{} { return rt.shutdown.ch }

// RequestShutdown implements extensions.ShutdownRequester.
func (h *extHost) RequestShutdown() {
	rt := h.rt
	_ = rt.WaitIdle(context.Background())
	rt.shutdown.once.Do(func() { close(rt.shutdown.ch) })
}

var _ extensions.ShutdownRequester = (*extHost)(nil)
