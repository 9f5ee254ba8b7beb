// Package jsext runs extensions written as JavaScript or TypeScript files
// in the style of the reference product (`export default function (pi) {
// pi.on(...) }`) on embedded goja runtimes, one per script, each on its own
// event loop so that async handlers and promises work.
//
// TypeScript (and modern JavaScript with ES modules) is transformed to
// CommonJS in process by esbuild, with inline source maps so that error
// positions name the original lines; the output is cached by content hash.
// Imports of the reference packages (`@mariozechner/pi-coding-agent`,
// `@mariozechner/pi-ai`, `@sinclair/typebox`, … and their Atomic names)
// resolve to built-in modules, Node's path, os, fs, events, util, crypto and
// child_process to small built-in versions, relative imports to the
// script's own files.
//
// Handlers run with the hook bus's deadline: a script stuck in JavaScript
// when a deadline passes is interrupted (and the call reported), and a
// script interrupted repeatedly is disabled. With "isolation": "process" in
// its settings entry a script runs in a child process of the agent (the
// hidden `__jsext-serve` command) that serves the plugin protocol and has a
// memory limit.
package jsext

import (
	"context"
	"log/slog"
	"sync"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
)

// Runtime loads script extensions (extensions.Runtime).
type Runtime struct {
	Log         *slog.Logger
	HostVersion string
	AgentDir    string
	// Offline refuses scripts' network requests (fetch), as the agent's
	// --offline does.
	Offline bool
	// FlagValues are the command-line values of extension flags (name
	// without dashes → value).
	FlagValues map[string]string
	// CacheDir holds transformed scripts; "" means DefaultCacheDir().
	CacheDir string
	// Process loads scripts with "isolation": "process" (a gRPC plugin
	// runtime); nil runs them in process.
	Process extensions.Runtime
	// Executable is the atomic binary that serves isolated scripts
	// (default: this program).
	Executable string
	// MemoryLimit is the memory limit of a script, in bytes (default
	// DefaultMemoryLimit; an extension's memoryLimitMB overrides it): the
	// whole child process of an isolated script; for a script in process,
	// how much one of its jobs may grow the agent's live heap before it is
	// interrupted.
	MemoryLimit int64

	flagMu sync.Mutex // FlagValues change when an isolated script connects
	child  bool       // serving one script in a child process

	once   sync.Once
	tr     *Transformer
	shared *sharedBus
}

// DefaultMemoryLimit bounds a script's memory.
const DefaultMemoryLimit = 512 << 20

// scriptMemoryLimit is a script's memory budget in bytes.
func (rt *Runtime) scriptMemoryLimit(spec extensions.Spec) int64 {
	switch {
	case spec.Options.MemoryLimitMB > 0:
		return spec.Options.MemoryLimitMB << 20
	case rt.MemoryLimit > 0:
		return rt.MemoryLimit
	}
	return DefaultMemoryLimit
}

var _ extensions.Runtime = (*Runtime)(nil)

func (rt *Runtime) init() {
	rt.once.Do(func() {
		dir := rt.CacheDir
		if dir == "" {
			dir = DefaultCacheDir()
		}
		rt.tr = &Transformer{Dir: dir}
		rt.shared = &sharedBus{subs: map[string]map[*Script]bool{}}
	})
}

func (rt *Runtime) transformer() *Transformer {
	rt.init()
	return rt.tr
}

func (rt *Runtime) bus() *sharedBus {
	rt.init()
	return rt.shared
}

func (rt *Runtime) logger() *slog.Logger {
	if rt.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return rt.Log
}

func (rt *Runtime) flagValue(name string) (string, bool) {
	rt.flagMu.Lock()
	defer rt.flagMu.Unlock()
	v, ok := rt.FlagValues[name]
	return v, ok
}

func (rt *Runtime) setFlagValues(v map[string]string) {
	rt.flagMu.Lock()
	rt.FlagValues = v
	rt.flagMu.Unlock()
}

// Accepts implements extensions.Runtime.
func (rt *Runtime) Accepts(s *extensions.Spec) bool { return s.Kind == extensions.KindScript }

// Load implements extensions.Runtime.
func (rt *Runtime) Load(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	switch spec.Options.Isolation {
	case "", "none", "inprocess", "in-process":
		s, err := rt.loadScript(ctx, spec, host)
		if err != nil {
			return nil, err
		}
		return s, nil
	case "process":
		return rt.loadIsolated(ctx, spec, host)
	}
	return nil, errUnknownIsolation(spec.Options.Isolation)
}

type errUnknownIsolation string

func (e errUnknownIsolation) Error() string {
	return "unknown isolation " + `"` + string(e) + `"` + ` (use "process", or leave it out to run the script in the agent)`
}

// sharedBus is pi.events: channels shared by the scripts of this process.
// Data crosses runtimes as JSON; delivery to other scripts is
// asynchronous (on their loops).
type sharedBus struct {
	mu   sync.Mutex
	subs map[string]map[*Script]bool
}

func (b *sharedBus) listen(s *Script, channel string, on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	set := b.subs[channel]
	if on {
		if set == nil {
			set = map[*Script]bool{}
			b.subs[channel] = set
		}
		set[s] = true
		return
	}
	delete(set, s)
}

func (b *sharedBus) emit(from *Script, channel, payload string) {
	b.mu.Lock()
	var to []*Script
	for s := range b.subs[channel] {
		if s != from {
			to = append(to, s)
		}
	}
	b.mu.Unlock()
	for _, s := range to {
		s.vm.run(func(r *goja.Runtime) {
			if _, err := s.fn.deliverShared(goja.Undefined(), r.ToValue(channel), r.ToValue(payload)); err != nil {
				s.log.Warn("events handler failed", "channel", channel, "error", s.errText(err))
			}
		})
	}
}

func (b *sharedBus) remove(s *Script) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, set := range b.subs {
		delete(set, s)
	}
}
