package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/console"
	"github.com/dop251/goja_nodejs/require"
	"github.com/dop251/goja_nodejs/util"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
)

// Script is one loaded script extension running in this process.
type Script struct {
	rt    *Runtime
	spec  extensions.Spec
	entry string // the file the script starts from
	base  string // directory positions are shown relative to
	log   *slog.Logger
	vm    *vm

	hostMu sync.Mutex
	host   extensions.Host // for calls made outside a handler

	// Loop only.
	fn        jsFuncs
	nativeObj *goja.Object
	calls     map[int64]*call
	nextID    int64

	tokMu  sync.Mutex
	tokens map[int64]context.CancelFunc
	tokSeq int64

	mu       sync.Mutex
	events   []string
	commands []extensions.CommandSpec
	tools    []extensions.ToolSpec
	flags    []extensions.FlagSpec
	stops    []time.Time
	dead     error
	loaded   bool

	deadNoted atomic.Bool
}

// jsFuncs are the prelude's entry points (loop only).
type jsFuncs struct {
	dispatch, runCommand, complete, executeTool, deliverShared, finishLoading goja.Callable
	stringify                                                                 goja.Callable
	pi                                                                        goja.Value
}

// call is one handler, command or tool invocation in flight.
type call struct {
	ctx    context.Context
	host   extensions.Host
	update func(llm.ToolResult)
	stops  []func() bool
}

var _ extensions.Extension = (*Script)(nil)

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

// loadScript starts a script in this process: transform, runtime, module
// registry, the factory. host serves calls made outside a handler.
func (rt *Runtime) loadScript(ctx context.Context, spec extensions.Spec, host extensions.Host) (*Script, error) {
	entry := entryFile(spec)
	s := &Script{
		rt: rt, spec: spec, entry: entry, base: filepath.Dir(entry), host: host,
		log:    rt.logger(),
		calls:  map[int64]*call{},
		tokens: map[int64]context.CancelFunc{},
	}
	if !rt.child {
		// (A child's log lines are named by the agent that reads them.)
		s.log = s.log.With("extension", filepath.Base(spec.Path))
	}
	src, err := os.ReadFile(entry)
	if err != nil {
		return nil, fmt.Errorf("cannot read the script: %v", err)
	}
	// Transform first: a syntax or type error is reported with its
	// position before any runtime is made.
	if _, _, err := rt.transformer().Transform(entry, src); err != nil {
		return nil, s.displayError(err)
	}
	natives := nodeModules()
	natives["console"] = console.RequireWithPrinter(s.printer())
	natives["atomic:nodeutil"] = util.Require
	natives["atomic:internal"] = func(r *goja.Runtime, module *goja.Object) { module.Set("exports", s.natives(r)) }
	natives["atomic:fs"] = func(r *goja.Runtime, module *goja.Object) { module.Set("exports", s.fsNatives(r)) }
	reg := newRegistry(rt.transformer(), natives)
	s.vm = newVM(reg, s.log)
	s.vm.base = s.base
	_, err = s.vm.await(ctx, func(r *goja.Runtime) (goja.Value, error) {
		return s.start(r, reg)
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, fmt.Errorf("the extension's factory failed: %s", s.thrownText(val))
		}
		if _, err := s.fn.finishLoading(goja.Undefined()); err != nil {
			return nil, s.jsError(err)
		}
		return nil, nil
	})
	if err != nil {
		s.vm.close()
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the extension did not finish loading within the start-up deadline")
		}
		return nil, err
	}
	s.vm.onStop = s.noteStop
	s.mu.Lock()
	s.loaded = true
	s.mu.Unlock()
	return s, nil
}

// start sets up the runtime (globals, API, require) and runs the script
// and its factory; it returns the factory's result (maybe a promise).
func (s *Script) start(r *goja.Runtime, reg *require.Registry) (goja.Value, error) {
	rm := installRequire(r, reg)
	native := s.natives(r)
	if _, err := s.runBuiltin(r, "globals.js", native); err != nil {
		return nil, err
	}
	api, err := s.runBuiltin(r, "prelude.js", native)
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
		executeTool: get("executeTool"), deliverShared: get("deliverShared"), finishLoading: get("finishLoading"),
		pi: obj.Get("pi"),
	}
	s.fn.stringify, _ = goja.AssertFunction(r.Get("JSON").ToObject(r).Get("stringify"))

	exports, err := rm.Require(s.entry)
	if err != nil {
		return nil, s.jsError(err)
	}
	factory, ok := factoryOf(exports)
	if !ok {
		return nil, fmt.Errorf("%s does not export a factory function: write `export default function (pi) { … }` (or `module.exports = function (pi) { … }`)", displayPath(s.entry, s.base))
	}
	v, err := factory(goja.Undefined(), s.fn.pi)
	if err != nil {
		return nil, fmt.Errorf("the extension's factory failed: %s", s.errText(err))
	}
	return v, nil
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

func (s *Script) runBuiltin(r *goja.Runtime, file string, native goja.Value) (goja.Value, error) {
	p, err := program(file)
	if err != nil {
		return nil, err
	}
	fv, err := r.RunProgram(p)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(fv)
	return fn(goja.Undefined(), native)
}

// displayPath shows a path relative to the script's directory when it is
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
		s.dead = fmt.Errorf("extension disabled: it was stopped %d times in %v for running too long; restart the agent (or reload) to try again", len(s.stops), stopWindow)
	}
	s.mu.Unlock()
	if disable {
		s.log.Error("script disabled", "reason", s.disabled())
		s.rt.bus().remove(s)
		go s.vm.close()
	}
}

// invoke runs one call into the script: register the call, start it on
// the loop, wait for its settled result (bounded by ctx).
func (s *Script) invoke(ctx context.Context, host extensions.Host, update func(llm.ToolResult),
	startJS func(r *goja.Runtime, id goja.Value) (goja.Value, error),
	finish func(r *goja.Runtime, val goja.Value, rejected bool) (any, error)) (any, error) {
	if err := s.disabled(); err != nil {
		return nil, err
	}
	if host == nil {
		host = s.defaultHost()
	}
	var id int64 // loop only
	v, err := s.vm.await(ctx, func(r *goja.Runtime) (goja.Value, error) {
		s.nextID++
		id = s.nextID
		s.calls[id] = &call{ctx: ctx, host: host, update: update}
		val, err := startJS(r, r.ToValue(id))
		if err != nil {
			s.endCall(id)
			return nil, s.jsError(err)
		}
		return val, nil
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		s.endCall(id)
		return finish(r, val, rejected)
	})
	if ctx.Err() != nil {
		s.vm.run(func(*goja.Runtime) { s.endCall(id) })
	}
	if errors.Is(err, errClosed) {
		if d := s.disabled(); d != nil {
			return nil, d
		}
	}
	return v, err
}

func (s *Script) endCall(id int64) {
	c := s.calls[id]
	if c == nil {
		return
	}
	delete(s.calls, id)
	for _, stop := range c.stops {
		stop()
	}
}

// callOf returns the call with this id, or a background call for code
// running outside any handler (timers, late continuations).
func (s *Script) callOf(v goja.Value) *call {
	id := v.ToInteger()
	if c := s.calls[id]; c != nil && id != 0 {
		return c
	}
	return &call{ctx: context.Background(), host: s.defaultHost()}
}

// toJSON encodes a handler's result (nil for undefined and null).
func (s *Script) toJSON(val goja.Value) (json.RawMessage, error) {
	if val == nil || goja.IsUndefined(val) || goja.IsNull(val) {
		return nil, nil
	}
	out, err := s.fn.stringify(goja.Undefined(), val)
	if err != nil {
		return nil, fmt.Errorf("the handler's result cannot be sent as JSON: %s", s.errText(err))
	}
	if out == nil || goja.IsUndefined(out) {
		return nil, nil
	}
	return json.RawMessage(out.String()), nil
}

// handle runs the script's handlers for one event.
func (s *Script) handle(ctx context.Context, host extensions.Host, ev *hooks.Event) (json.RawMessage, error) {
	if err := s.disabled(); err != nil && hooks.Kinds[ev.Name] == hooks.Notify && s.deadNoted.Swap(true) {
		// A disabled script is reported once for notifications (they
		// would flood the client); intercepting events keep failing.
		return nil, nil
	}
	payload, err := ev.JSON()
	if err != nil {
		return nil, err
	}
	name := ev.Name
	v, err := s.invoke(ctx, host, nil, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.dispatch(goja.Undefined(), id, r.ToValue(name), r.ToValue(string(payload)))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, errors.New(s.thrownText(val))
		}
		return s.toJSON(val)
	})
	if err != nil {
		return nil, err
	}
	raw, _ := v.(json.RawMessage)
	return raw, nil
}

// Handle implements hooks.Subscriber.
func (s *Script) Handle(ctx context.Context, ev *hooks.Event) (json.RawMessage, error) {
	return s.handle(ctx, nil, ev)
}

// RunCommand implements extensions.Extension.
func (s *Script) RunCommand(ctx context.Context, name, args string) error {
	return s.runCommand(ctx, nil, name, args)
}

func (s *Script) runCommand(ctx context.Context, host extensions.Host, name, args string) error {
	_, err := s.invoke(ctx, host, nil, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.runCommand(goja.Undefined(), id, r.ToValue(name), r.ToValue(args))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, errors.New(s.thrownText(val))
		}
		return nil, nil
	})
	return err
}

// Complete implements extensions.Extension.
func (s *Script) Complete(ctx context.Context, name, prefix string) ([]extensions.Completion, bool, error) {
	return s.complete(ctx, nil, name, prefix)
}

func (s *Script) complete(ctx context.Context, host extensions.Host, name, prefix string) ([]extensions.Completion, bool, error) {
	v, err := s.invoke(ctx, host, nil, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.complete(goja.Undefined(), id, r.ToValue(name), r.ToValue(prefix))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, errors.New(s.thrownText(val))
		}
		return s.toJSON(val)
	})
	if err != nil {
		return nil, true, err
	}
	raw, _ := v.(json.RawMessage)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true, nil
	}
	var items []struct {
		Value       any    `json:"value"`
		Label       string `json:"label"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, true, fmt.Errorf("getArgumentCompletions must return an array of {value, label, description?} or null")
	}
	out := make([]extensions.Completion, 0, len(items))
	for _, it := range items {
		value := fmt.Sprint(it.Value)
		if s, ok := it.Value.(string); ok {
			value = s
		}
		label := it.Label
		if label == "" {
			label = value
		}
		out = append(out, extensions.Completion{Value: value, Label: label, Description: it.Description})
	}
	return out, false, nil
}

// ExecuteTool implements extensions.Extension.
func (s *Script) ExecuteTool(ctx context.Context, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return s.executeTool(ctx, nil, name, callID, args, update)
}

func (s *Script) executeTool(ctx context.Context, host extensions.Host, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	params, err := json.Marshal(args)
	if err != nil {
		return llm.ToolResult{}, err
	}
	if args == nil {
		params = []byte("{}")
	}
	v, err := s.invoke(ctx, host, update, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.executeTool(goja.Undefined(), id, r.ToValue(name), r.ToValue(callID), r.ToValue(string(params)))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			s.log.Info("tool failed", "tool", name, "error", s.thrownText(val))
			return nil, errors.New(thrownMessage(val))
		}
		return s.toJSON(val)
	})
	if err != nil {
		return llm.ToolResult{}, err
	}
	raw, _ := v.(json.RawMessage)
	return toolResultFrom(raw)
}

// toolResultFrom reads a tool's result: {content, details}; a plain
// string is taken as text.
func toolResultFrom(raw json.RawMessage) (llm.ToolResult, error) {
	var res llm.ToolResult
	if len(raw) == 0 {
		res.Content = []llm.ContentBlock{}
		return res, nil
	}
	if raw[0] == '"' {
		var text string
		_ = json.Unmarshal(raw, &text)
		return llm.TextResult(text), nil
	}
	var r struct {
		Content llm.Content `json:"content"`
		Details any         `json:"details"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return res, fmt.Errorf("the tool's result must be {content: [...], details?}: %v", err)
	}
	res.Content, res.Details = r.Content.Blocks, r.Details
	if res.Content == nil {
		res.Content = []llm.ContentBlock{}
	}
	return res, nil
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
