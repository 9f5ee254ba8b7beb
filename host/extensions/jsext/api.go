package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
)

// The native half of the extension API (the prelude's `native`): the
// registry, and the host calls. Values cross as JSON strings; functions
// that take a call id act for that handler call (its context, its host,
// its deadline), 0 meaning "no call".

var processStart = time.Now()

// jsErrorValue is a plain JavaScript Error with the message.
func jsErrorValue(r *goja.Runtime, msg string) goja.Value {
	e, err := r.New(r.Get("Error"), r.ToValue(msg))
	if err != nil {
		return r.ToValue(msg)
	}
	return e
}

// async runs work on its own goroutine and settles the returned promise
// on the loop with conv's result (ok) or rejection (fail).
func (s *Script) async(r *goja.Runtime, work func() (any, error), conv func(r *goja.Runtime, v any, err error) (ok, fail goja.Value)) goja.Value {
	p, resolve, reject := r.NewPromise()
	go func() {
		v, err := work()
		s.vm.run(func(r *goja.Runtime) {
			okv, failv := conv(r, v, err)
			if failv != nil {
				_ = reject(failv)
			} else {
				_ = resolve(okv)
			}
		})
	}()
	return r.ToValue(p)
}

// jsonResult settles with a JSON string or rejects with the error.
func jsonResult(r *goja.Runtime, v any, err error) (goja.Value, goja.Value) {
	if err != nil {
		return nil, jsErrorValue(r, err.Error())
	}
	switch x := v.(type) {
	case nil:
		return goja.Undefined(), nil
	case string:
		return r.ToValue(x), nil
	case json.RawMessage:
		if len(x) == 0 {
			return r.ToValue(""), nil
		}
		return r.ToValue(string(x)), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, jsErrorValue(r, err.Error())
	}
	return r.ToValue(string(b)), nil
}

func plainResult(r *goja.Runtime, v any, err error) (goja.Value, goja.Value) {
	if err != nil {
		return nil, jsErrorValue(r, err.Error())
	}
	if v == nil {
		return goja.Undefined(), nil
	}
	return r.ToValue(v), nil
}

func (s *Script) newToken() int64 {
	s.tokMu.Lock()
	defer s.tokMu.Unlock()
	s.tokSeq++
	return s.tokSeq
}

// tokenContext is a context cancelled by native.cancel(token).
func (s *Script) tokenContext(parent context.Context, token int64) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	s.tokMu.Lock()
	s.tokens[token] = cancel
	s.tokMu.Unlock()
	return ctx, func() {
		s.tokMu.Lock()
		delete(s.tokens, token)
		s.tokMu.Unlock()
		cancel()
	}
}

func (s *Script) cancelToken(token int64) {
	s.tokMu.Lock()
	cancel := s.tokens[token]
	delete(s.tokens, token)
	s.tokMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func mustJSON[T any](r *goja.Runtime, what, s string) T {
	var v T
	if s == "" {
		return v
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(r.NewTypeError(fmt.Sprintf("%s: %v", what, err)))
	}
	return v
}

func jsString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type toolSpecJSON struct {
	Name             string          `json:"name"`
	Label            string          `json:"label"`
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters"`
	PromptSnippet    string          `json:"promptSnippet"`
	PromptGuidelines []string        `json:"promptGuidelines"`
}

type handlerContextJSON struct {
	Cwd            string `json:"cwd"`
	Mode           string `json:"mode"`
	HasUI          bool   `json:"hasUI"`
	SessionID      string `json:"sessionId"`
	SessionFile    string `json:"sessionFile,omitempty"`
	ThinkingLevel  string `json:"thinkingLevel"`
	IsIdle         bool   `json:"isIdle"`
	ProjectTrusted bool   `json:"projectTrusted"`
}

type sessionJSON struct {
	SessionID   string          `json:"sessionId"`
	SessionFile string          `json:"sessionFile,omitempty"`
	Name        string          `json:"name,omitempty"`
	LeafID      string          `json:"leafId,omitempty"`
	Cwd         string          `json:"cwd"`
	Header      json.RawMessage `json:"header,omitempty"`
	Entries     json.RawMessage `json:"entries,omitempty"`
	Branch      json.RawMessage `json:"branch,omitempty"`
	Tree        json.RawMessage `json:"tree,omitempty"`
}

// natives returns the script's native object (one per runtime; loop
// only).
func (s *Script) natives(r *goja.Runtime) *goja.Object {
	if s.nativeObj != nil {
		return s.nativeObj
	}
	lazy := &lazyObject{r: r, defs: map[string]any{}, vals: map[string]goja.Value{}}
	o := r.NewDynamicObject(lazy)
	s.nativeObj = o
	set := func(name string, fn any) { lazy.defs[name] = fn }
	rt := s.rt

	// Registration.
	set("subscribe", func(event string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.events {
			if e == event {
				return
			}
		}
		s.events = append(s.events, event)
		if s.loaded {
			s.log.Warn("pi.on() after loading: the handler is only called for events the extension already handled at load time", "event", event)
		}
		if _, ok := hooks.Kinds[event]; !ok {
			s.log.Warn("pi.on(): atomic never sends this event", "event", event)
		}
	})
	set("registerCommand", func(name, description string, completions bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		spec := extensions.CommandSpec{Name: name, Description: description, HasCompletions: completions}
		for i, c := range s.commands {
			if c.Name == name {
				s.commands[i] = spec
				return
			}
		}
		s.commands = append(s.commands, spec)
	})
	set("registerTool", func(specJSON string) {
		t := mustJSON[toolSpecJSON](r, "registerTool", specJSON)
		var schema map[string]any
		if err := json.Unmarshal(t.Parameters, &schema); err != nil || schema == nil {
			panic(r.NewTypeError(fmt.Sprintf("registerTool(%q): parameters must be a JSON Schema object (for example Type.Object({...}))", t.Name)))
		}
		spec := extensions.ToolSpec{Name: t.Name, Label: t.Label, Description: t.Description, Parameters: t.Parameters,
			PromptSnippet: t.PromptSnippet, PromptGuidelines: t.PromptGuidelines}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.loaded {
			s.log.Warn("registerTool() after loading: the model sees the tool only after a reload", "tool", t.Name)
		}
		for i, x := range s.tools {
			if x.Name == t.Name {
				s.tools[i] = spec
				return
			}
		}
		s.tools = append(s.tools, spec)
	})
	set("registerFlag", func(name, description, typ, def string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		spec := extensions.FlagSpec{Name: name, Description: description, Type: typ, Default: def}
		for i, f := range s.flags {
			if f.Name == name {
				s.flags[i] = spec
				return
			}
		}
		s.flags = append(s.flags, spec)
	})
	set("flagValue", func(name string) goja.Value {
		if v, ok := rt.flagValue(name); ok {
			return r.ToValue(v)
		}
		return goja.Undefined()
	})

	// Session and agent.
	set("handlerContext", func(id goja.Value) string {
		hc := s.callOf(id).host.HandlerContext()
		return jsString(handlerContextJSON{Cwd: hc.Cwd, Mode: hc.Mode, HasUI: hc.HasUI, SessionID: hc.SessionID,
			SessionFile: hc.SessionFile, ThinkingLevel: hc.ThinkingLevel, IsIdle: hc.IsIdle, ProjectTrusted: hc.ProjectTrusted})
	})
	set("sendMessage", func(id goja.Value, msgJSON string, trigger bool, deliverAs string) goja.Value {
		c := s.callOf(id)
		msg := mustJSON[hooks.CustomMessage](r, "sendMessage", msgJSON)
		return s.async(r, func() (any, error) {
			return nil, c.host.SendMessage(context.WithoutCancel(c.ctx), msg, trigger, deliverAs)
		}, plainResult)
	})
	set("sendUserMessage", func(id goja.Value, contentJSON, deliverAs string) goja.Value {
		c := s.callOf(id)
		content := mustJSON[llm.Content](r, "sendUserMessage", contentJSON)
		return s.async(r, func() (any, error) {
			return nil, c.host.SendUserMessage(context.WithoutCancel(c.ctx), content, deliverAs)
		}, plainResult)
	})
	set("appendEntry", func(id goja.Value, customType, dataJSON string) string {
		c := s.callOf(id)
		entryID, err := c.host.AppendEntry(context.WithoutCancel(c.ctx), customType, json.RawMessage(dataJSON))
		if err != nil {
			panic(jsErrorValue(r, "appendEntry: "+err.Error()))
		}
		return entryID
	})
	set("setSessionName", func(id goja.Value, name string) {
		c := s.callOf(id)
		if err := c.host.SetSessionName(context.WithoutCancel(c.ctx), name); err != nil {
			panic(jsErrorValue(r, "setSessionName: "+err.Error()))
		}
	})
	set("setLabel", func(id goja.Value, entryID, label string) {
		c := s.callOf(id)
		if err := c.host.SetLabel(context.WithoutCancel(c.ctx), entryID, label); err != nil {
			panic(jsErrorValue(r, err.Error()))
		}
	})
	set("session", func(id goja.Value, entries, branch, tree bool) string {
		c := s.callOf(id)
		v, err := c.host.Session(context.WithoutCancel(c.ctx), extensions.SessionQuery{Entries: entries, Branch: branch, Tree: tree})
		if err != nil {
			panic(jsErrorValue(r, "reading the session: "+err.Error()))
		}
		return jsString(sessionJSON{SessionID: v.SessionID, SessionFile: v.SessionFile, Name: v.Name, LeafID: v.LeafID,
			Cwd: v.Cwd, Header: v.Header, Entries: v.Entries, Branch: v.Branch, Tree: v.Tree})
	})
	set("tools", func(id goja.Value) string {
		c := s.callOf(id)
		active, all := c.host.Tools(context.WithoutCancel(c.ctx))
		if active == nil {
			active = []string{}
		}
		if all == nil {
			all = []extensions.ToolInfo{}
		}
		return jsString(map[string]any{"active": active, "all": all})
	})
	set("setActiveTools", func(id goja.Value, namesJSON string) {
		c := s.callOf(id)
		c.host.SetActiveTools(context.WithoutCancel(c.ctx), mustJSON[[]string](r, "setActiveTools", namesJSON))
	})
	set("model", func(id goja.Value) string {
		c := s.callOf(id)
		m, level := c.host.Model(context.WithoutCancel(c.ctx))
		return jsString(map[string]any{"model": m, "thinkingLevel": level})
	})
	set("setModel", func(id goja.Value, provider, modelID string) goja.Value {
		c := s.callOf(id)
		return s.async(r, func() (any, error) {
			return c.host.SetModel(context.WithoutCancel(c.ctx), provider, modelID)
		}, plainResult)
	})
	set("setThinkingLevel", func(id goja.Value, level string) string {
		if !llm.IsThinkingLevel(level) {
			panic(r.NewTypeError(fmt.Sprintf("setThinkingLevel: unknown level %q", level)))
		}
		c := s.callOf(id)
		return c.host.SetThinkingLevel(context.WithoutCancel(c.ctx), level)
	})
	set("abort", func(id goja.Value) {
		c := s.callOf(id)
		// Abort waits for the run to stop, which may be waiting for this
		// very script: never block the loop on it.
		go c.host.Abort(context.Background())
	})
	set("shutdown", func(id goja.Value) {
		c := s.callOf(id)
		if sr, ok := c.host.(extensions.ShutdownRequester); ok {
			go sr.RequestShutdown()
			return
		}
		s.log.Warn("ctx.shutdown() is not available here; ignored")
	})
	set("state", func(id goja.Value) string {
		c := s.callOf(id)
		st := c.host.State(context.WithoutCancel(c.ctx))
		return jsString(map[string]any{"isIdle": st.IsIdle, "hasPendingMessages": st.HasPendingMessages, "systemPrompt": st.SystemPrompt})
	})
	set("contextUsage", func(id goja.Value) string {
		c := s.callOf(id)
		return string(c.host.ContextUsage(context.WithoutCancel(c.ctx)))
	})
	set("commands", func(id goja.Value) string {
		c := s.callOf(id)
		raw := c.host.Commands(context.WithoutCancel(c.ctx))
		if len(raw) == 0 || string(raw) == "null" {
			return "[]"
		}
		return string(raw)
	})
	set("compact", func(id goja.Value) goja.Value {
		c := s.callOf(id)
		return s.async(r, func() (any, error) {
			return c.host.Compact(context.WithoutCancel(c.ctx))
		}, jsonResult)
	})
	set("waitForIdle", func(id goja.Value) goja.Value {
		c := s.callOf(id)
		return s.async(r, func() (any, error) {
			for {
				if c.host.State(c.ctx).IsIdle {
					return nil, nil
				}
				select {
				case <-c.ctx.Done():
					return nil, c.ctx.Err()
				case <-time.After(25 * time.Millisecond):
				}
			}
		}, plainResult)
	})

	// UI. Dialogs pause the deadline of the call they are made for.
	set("ui", func(id goja.Value, token int64, method, paramsJSON string) goja.Value {
		c := s.callOf(id)
		params := mustJSON[map[string]any](r, "ui."+method, paramsJSON)
		ctx, done := s.tokenContext(c.ctx, token)
		return s.async(r, func() (any, error) {
			defer done()
			resume := hooks.PauseDeadline(c.ctx)
			defer resume()
			a, err := c.host.UI(ctx, method, params)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"cancelled": a.Cancelled}
			if a.HasValue {
				out["value"] = a.Value
			}
			if method == "confirm" {
				out["confirmed"] = a.Confirmed
			}
			return out, nil
		}, jsonResult)
	})
	set("uiNotify", func(id goja.Value, method, paramsJSON string) {
		c := s.callOf(id)
		params := mustJSON[map[string]any](r, "ui."+method, paramsJSON)
		if _, err := c.host.UI(context.WithoutCancel(c.ctx), method, params); err != nil {
			panic(jsErrorValue(r, "ui."+method+": "+err.Error()))
		}
	})

	// Programs.
	set("newToken", s.newToken)
	set("cancel", s.cancelToken)
	set("exec", func(token int64, command, argsJSON, cwd string, timeoutMs int64) goja.Value {
		args := mustJSON[[]string](r, "exec", argsJSON)
		host := s.defaultHost()
		ctx, done := s.tokenContext(context.Background(), token)
		return s.async(r, func() (any, error) {
			defer done()
			res, err := host.Exec(ctx, command, args, cwd, time.Duration(timeoutMs)*time.Millisecond)
			if err != nil {
				return nil, err
			}
			return execJSON(res), nil
		}, jsonResult)
	})
	set("execSync", func(command, argsJSON, cwd string, timeoutMs int64) string {
		args := mustJSON[[]string](r, "execSync", argsJSON)
		res, err := s.defaultHost().Exec(context.Background(), command, args, cwd, time.Duration(timeoutMs)*time.Millisecond)
		if err != nil {
			panic(jsErrorValue(r, err.Error()))
		}
		return jsString(execJSON(res))
	})

	// Calls in flight.
	set("toolUpdate", func(id goja.Value, partialJSON string) {
		c := s.callOf(id)
		if c.update == nil {
			return
		}
		res, err := toolResultFrom(json.RawMessage(partialJSON))
		if err != nil {
			s.log.Warn("onUpdate: " + err.Error())
			return
		}
		c.update(res)
	})
	set("bindSignal", func(id goja.Value, fnv goja.Value) {
		c := s.calls[id.ToInteger()]
		fn, ok := goja.AssertFunction(fnv)
		if c == nil || !ok {
			return
		}
		ctx := c.ctx
		stop := context.AfterFunc(ctx, func() {
			reason := "aborted"
			if errors.Is(context.Cause(ctx), hooks.ErrTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
				reason = "deadline exceeded"
			}
			s.vm.run(func(r *goja.Runtime) {
				if _, err := fn(goja.Undefined(), r.ToValue(reason)); err != nil {
					s.log.Warn("abort listener failed", "error", s.errText(err))
				}
			})
		})
		c.stops = append(c.stops, stop)
	})
	set("reportError", func(event string, errVal goja.Value) {
		s.rt.report(hooks.ExtensionError{ExtensionPath: s.spec.Path, Event: event, Error: s.thrownText(errVal)}, s.log)
	})

	// Shared events.
	set("listen", func(channel string, on bool) { rt.bus().listen(s, channel, on) })
	set("emit", func(channel, payload string) { rt.bus().emit(s, channel, payload) })

	// Environment and helpers.
	set("log", func(level, msg string) { s.log.Log(context.Background(), logLevel(level), msg) })
	set("utf8Encode", func(str string) goja.ArrayBuffer { return r.NewArrayBuffer([]byte(str)) })
	set("utf8Decode", func(b goja.ArrayBuffer) string {
		data := b.Bytes()
		if utf8.Valid(data) {
			return string(data)
		}
		return string([]rune(string(data)))
	})
	set("byteLength", func(str string) int { return len(str) })
	set("environ", func() map[string]any {
		env := map[string]any{}
		for _, kv := range os.Environ() {
			for i := 0; i < len(kv); i++ {
				if kv[i] == '=' {
					env[kv[:i]] = kv[i+1:]
					break
				}
			}
		}
		return env
	})
	set("cwd", func() string { d, _ := os.Getwd(); return d })
	set("nanotime", func() float64 { return float64(time.Since(processStart).Nanoseconds()) })
	set("scriptPath", s.entry)
	exe, _ := os.Executable()
	set("execPath", exe)
	set("pid", os.Getpid())
	set("platform", nodePlatform())
	set("arch", nodeArch())
	set("version", rt.HostVersion)
	set("agentDir", rt.AgentDir)
	return o
}

// lazyObject is an object whose members are turned into JavaScript values
// on first use (a script uses a few of the native functions; making all of
// them up front is a measurable part of its start-up). Read-only.
type lazyObject struct {
	r    *goja.Runtime
	defs map[string]any
	vals map[string]goja.Value
}

func (l *lazyObject) Get(key string) goja.Value {
	if v, ok := l.vals[key]; ok {
		return v
	}
	d, ok := l.defs[key]
	if !ok {
		return nil
	}
	v := l.r.ToValue(d)
	l.vals[key] = v
	return v
}

func (l *lazyObject) Set(string, goja.Value) bool { return false }
func (l *lazyObject) Has(key string) bool         { _, ok := l.defs[key]; return ok }
func (l *lazyObject) Delete(string) bool          { return false }
func (l *lazyObject) Keys() []string {
	keys := make([]string, 0, len(l.defs))
	for k := range l.defs {
		keys = append(keys, k)
	}
	return keys
}

func execJSON(res extensions.ExecResult) map[string]any {
	return map[string]any{"stdout": res.Stdout, "stderr": res.Stderr, "code": res.Code, "killed": res.Killed}
}

func logLevel(level string) slog.Level {
	switch level {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// printer sends console output to the log (never to standard output).
type printer struct {
	log *slog.Logger
	rl  *rateLimiter
}

func (s *Script) printer() *printer {
	return &printer{log: s.log, rl: newRateLimiter(s.log)}
}

func (p *printer) emit(level slog.Level, msg string) {
	if p.rl.allow() {
		p.log.Log(context.Background(), level, msg, "source", "console")
	}
}

func (p *printer) Log(msg string)   { p.emit(slog.LevelInfo, msg) }
func (p *printer) Warn(msg string)  { p.emit(slog.LevelWarn, msg) }
func (p *printer) Error(msg string) { p.emit(slog.LevelError, msg) }
