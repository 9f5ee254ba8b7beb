package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/console"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/jsext/nodecompat"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// Script is one loaded script extension running in this process.
type Script struct {
	rt    *Runtime
	spec  extensions.Spec
	entry string // the file the script starts from
	cwd   string // process.cwd(): the session's directory when it was loaded
	base  string // directory positions are shown relative to
	log   *slog.Logger
	sends sendCount // messages sent and not yet taken by the host (runCommand waits)
	vm    *vm

	hostMu sync.Mutex
	host   extensions.Host // for calls made outside a handler

	// reregister tells the agent of what the script registered after
	// loading (an isolated script's child; nil in process); under mu.
	reregister func(context.Context) error

	// Loop only.
	fn        jsFuncs
	nativeObj *goja.Object
	calls     map[int64]*call
	nextID    int64

	tokMu  sync.Mutex
	tokens map[int64]context.CancelFunc
	tokSeq int64

	mu            sync.Mutex
	events        []string
	handlerCounts map[string]int // event → pi.on calls
	commands      []extensions.CommandSpec
	tools         []extensions.ToolSpec
	flags         []extensions.FlagSpec
	providers     []extensions.ProviderSpec
	shortcuts     []extensions.ShortcutSpec
	stops         []time.Time
	dead          error

	deadNoted atomic.Bool
}

// jsFuncs are the prelude's entry points (loop only).
type jsFuncs struct {
	dispatch, runCommand, complete, executeTool, streamProvider, deliverShared, finishLoading, describe goja.Callable
	stringify                                                                                           goja.Callable
	pi                                                                                                  goja.Value
}

var (
	_ extensions.Extension = (*Script)(nil)
	_ extensions.Disabler  = (*Script)(nil)
)

// Stop policy: a script interrupted this often within the window is
// disabled (its runtime is stopped) until the agent restarts or reloads.
const (
	maxStops   = 3
	stopWindow = 10 * time.Minute
)

// entryFile is the file a spec starts from (a directory's index file).
func entryFile(spec extensions.Spec) string {
	st, err := os.Stat(spec.Path)
	if err == nil && st.IsDir() {
		for _, c := range spec.Command {
			if isFile(c) {
				return c
			}
		}
		for _, idx := range []string{"index.ts", "index.js"} {
			if p := filepath.Join(spec.Path, idx); isFile(p) {
				return p
			}
		}
	}
	return spec.Path
}

// scriptName is the extension's name: the file name without extension,
// or the directory name for an index file.
func scriptName(entry string) string {
	base := filepath.Base(entry)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "index" {
		return filepath.Base(filepath.Dir(entry))
	}
	return name
}

// scriptCwd is a script's process.cwd(): the session's directory, as
// an isolated child and Node's process have it (they start there), or
// this process's.
func scriptCwd(host extensions.Host) string {
	if d := host.HandlerContext().Cwd; filepath.IsAbs(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	d, _ := os.Getwd()
	return d
}

// loadScript starts a script in this process: transform, runtime, module
// registry, the factory. host serves calls made outside a handler.
func (rt *Runtime) loadScript(ctx context.Context, spec extensions.Spec, host extensions.Host) (*Script, error) {
	entry := entryFile(spec)
	s := &Script{
		rt: rt, spec: spec, entry: entry, base: filepath.Dir(entry), host: host,
		log:    rt.logger(),
		cwd:    scriptCwd(host),
		calls:  map[int64]*call{},
		tokens: map[int64]context.CancelFunc{},
	}
	if !rt.child {
		// (A child's log lines are named by the agent that reads them.)
		s.log = s.log.With("extension", filepath.Base(spec.Path))
	}
	src, err := ReadSource(entry)
	if err != nil {
		return nil, fmt.Errorf("cannot read the script: %w", err)
	}
	// Transform first: a syntax or type error is reported with its
	// position before any runtime is made.
	if _, _, err := rt.transformer().Transform(entry, src); err != nil {
		return nil, s.displayError(err)
	}
	natives := nodecompat.Modules()
	maps.Copy(natives, nodecompat.Internals(nodeHost{s}))
	natives["console"] = console.RequireWithPrinter(s.printer())
	natives["atomic:internal"] = func(r *goja.Runtime, module *goja.Object) { module.Set("exports", s.natives(r)) }
	mods := newRegistry(rt.transformer(), entry, natives)
	s.vm = newVM(mods.reg, s.log)
	s.vm.base = s.base
	if !rt.child {
		// (An isolated script's child process has a hard limit instead.)
		s.vm.memLimit = rt.scriptMemoryLimit(spec)
	}
	_, err = s.vm.await(ctx, func(r *goja.Runtime) (goja.Value, error) {
		return s.start(r, mods)
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, fmt.Errorf("the extension's factory failed: %s", s.thrownText(val))
		}
		if _, err := s.fn.finishLoading(goja.Undefined()); err != nil {
			return nil, s.jsError(err)
		}
		return nil, s.takeRegistrations()
	})
	if err != nil {
		// Disposed of completely: its pi.events subscriptions and pending
		// host calls too, not only its loop (the auto runtime choice may
		// load it in Node next).
		_ = s.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the extension did not finish loading within the start-up deadline")
		}
		return nil, err
	}
	s.vm.onStop = s.noteStop
	return s, nil
}

// takeRegistrations reads what the factory registered (loop only).
func (s *Script) takeRegistrations() error {
	v, err := s.fn.describe(goja.Undefined())
	if err != nil {
		return s.jsError(err)
	}
	var d pb.DescribeResponse
	if err := decodeMessage(d.ProtoReflect(), json.RawMessage(v.String())); err != nil {
		return fmt.Errorf("the extension's registrations: %w", err)
	}
	return s.setRegistrations(&d)
}

// start sets up the runtime (globals, API, require) and runs the script
// and its factory; it returns the factory's result (maybe a promise).
func (s *Script) start(r *goja.Runtime, mods *scriptModules) (goja.Value, error) {
	rm := installRequire(r, mods)
	native := s.natives(r)
	if _, err := s.runBuiltin(r, "globals.js", native, s.webNatives(r)); err != nil {
		return nil, err
	}
	sessionControl, err := builtinModule(r, "sessionctl.js")
	if err != nil {
		return nil, err
	}
	ui, err := builtinModule(r, "ui.js")
	if err != nil {
		return nil, err
	}
	makeAPI, err := builtinModule(r, "api.js")
	if err != nil {
		return nil, err
	}
	api, err := s.runBuiltin(r, "prelude.js", native, makeAPI, sessionControl, ui)
	if err != nil {
		return nil, err
	}
	obj := api.ToObject(r)
	get := func(name string) goja.Callable {
		f, _ := goja.AssertFunction(obj.Get(name))
		return f
	}
	s.fn = jsFuncs{
		dispatch: get("dispatch"), runCommand: get("runCommand"), complete: get("complete"),
		executeTool: get("executeTool"), streamProvider: get("streamProvider"), deliverShared: get("deliverShared"), finishLoading: get("finishLoading"),
		describe: get("describe"), pi: obj.Get("pi"),
	}
	s.fn.stringify, _ = goja.AssertFunction(r.Get("JSON").ToObject(r).Get("stringify"))

	exports, err := rm.Require(s.entry)
	if err != nil {
		return nil, s.jsError(err)
	}
	settled, _ := goja.AssertFunction(r.Get("__atomicSettled"))
	if wait, err := settled(goja.Undefined()); err == nil && wait != nil && !goja.IsUndefined(wait) {
		// Top-level await: the factory runs when the modules are ready.
		then, _ := goja.AssertFunction(wait.ToObject(r).Get("then"))
		return then(wait, r.ToValue(func(goja.FunctionCall) goja.Value {
			factory, ok := factoryOf(exports)
			if !ok {
				panic(r.NewGoError(s.noFactory()))
			}
			v, err := factory(goja.Undefined(), s.fn.pi)
			if ex, isEx := err.(*goja.Exception); isEx {
				panic(ex) // rejected with the script's own error
			} else if err != nil {
				panic(r.NewGoError(err))
			}
			return v
		}))
	}
	return s.runFactory(exports)
}

// runFactory calls the factory the entry module exports.
func (s *Script) runFactory(exports goja.Value) (goja.Value, error) {
	factory, ok := factoryOf(exports)
	if !ok {
		return nil, s.noFactory()
	}
	v, err := factory(goja.Undefined(), s.fn.pi)
	if err != nil {
		return nil, fmt.Errorf("the extension's factory failed: %s", s.errText(err))
	}
	return v, nil
}

func (s *Script) noFactory() error {
	return fmt.Errorf("%s does not export a factory function: write `export default function (pi) { … }` (or `module.exports = function (pi) { … }`)", displayPath(s.entry, s.base))
}

func factoryOf(exports goja.Value) (goja.Callable, bool) {
	if exports == nil {
		return nil, false
	}
	if f, ok := goja.AssertFunction(exports); ok {
		return f, true
	}
	if obj, ok := exports.(*goja.Object); ok {
		if f, ok := goja.AssertFunction(obj.Get("default")); ok {
			return f, true
		}
		// A default export that is itself a CommonJS module object.
		if d, ok := obj.Get("default").(*goja.Object); ok {
			if f, ok := goja.AssertFunction(d.Get("default")); ok {
				return f, true
			}
		}
	}
	return nil, false
}

// inside it.
func displayPath(p, base string) string {
	if base != "" {
		if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

func (s *Script) displayError(err error) error {
	var te *TransformError
	if errors.As(err, &te) {
		c := *te
		c.File = displayPath(te.File, s.base)
		return &c
	}
	return err
}

// errText describes an error from goja with a source-mapped position.
func (s *Script) errText(err error) string { return errorText(err, s.base) }

func (s *Script) jsError(err error) error { return errors.New(s.errText(err)) }

// thrownText describes a value a promise was rejected with.
func (s *Script) thrownText(val goja.Value) string { return thrownText(val, s.base) }

// Path implements hooks.Subscriber.
func (s *Script) Path() string { return s.spec.Path }

// Name implements extensions.Extension.
func (s *Script) Name() string { return scriptName(s.entry) }

// Events implements hooks.Subscriber.
func (s *Script) Events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

// Commands implements extensions.Extension.
func (s *Script) Commands() []extensions.CommandSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]extensions.CommandSpec(nil), s.commands...)
}

// Tools implements extensions.Extension.
func (s *Script) Tools() []extensions.ToolSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]extensions.ToolSpec(nil), s.tools...)
}

// Flags implements extensions.Extension.
func (s *Script) Flags() []extensions.FlagSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]extensions.FlagSpec(nil), s.flags...)
}

// Providers implements extensions.ProviderRegistrar.
func (s *Script) Providers() []extensions.ProviderSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]extensions.ProviderSpec(nil), s.providers...)
}

// Shortcuts implements extensions.ShortcutRunner.
func (s *Script) Shortcuts() []extensions.ShortcutSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]extensions.ShortcutSpec(nil), s.shortcuts...)
}

func (s *Script) defaultHost() extensions.Host {
	s.hostMu.Lock()
	defer s.hostMu.Unlock()
	return s.host
}

func (s *Script) setDefaultHost(h extensions.Host) {
	s.hostMu.Lock()
	s.host = h
	s.hostMu.Unlock()
}

// Disabled reports why the script was disabled (nil while it runs), for
// get_extensions (extensions.Disabler).
func (s *Script) Disabled() error { return s.disabled() }

func (s *Script) disabled() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// noteStop counts an interrupted job and disables the script when it
// keeps getting stuck.
func (s *Script) noteStop() {
	s.mu.Lock()
	now := time.Now()
	var recent []time.Time
	for _, t := range s.stops {
		if now.Sub(t) < stopWindow {
			recent = append(recent, t)
		}
	}
	s.stops = append(recent, now)
	disable := len(s.stops) >= maxStops && s.dead == nil
	if disable {
		s.dead = fmt.Errorf("extension disabled: it was stopped %d times in %v for running too long or using too much memory; restart the agent (or reload) to try again", len(s.stops), stopWindow)
	}
	s.mu.Unlock()
	if disable {
		s.log.Error("script disabled", "reason", s.disabled())
		s.rt.bus().remove(s)
		go s.vm.close()
	}
}

// Close implements extensions.Extension.
func (s *Script) Close() error {
	s.rt.bus().remove(s)
	s.tokMu.Lock()
	for _, cancel := range s.tokens {
		cancel()
	}
	s.tokens = map[int64]context.CancelFunc{}
	s.tokMu.Unlock()
	s.vm.close()
	return nil
}
