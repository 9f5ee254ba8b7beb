package jsext

import (
	"context"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/jsext/nodecompat"
)

// execAPI starts programs and tools: pi.exec and child_process (through
// the host's Exec, or spawned here), the built-in tools of the pi
// package, and the cancellation tokens their JavaScript side holds.
type execAPI struct {
	s *Script
	r *goja.Runtime
}

func (a execAPI) exports() map[string]any {
	return map[string]any{
		"newToken":        a.s.newToken,
		"cancel":          a.s.cancelToken,
		"exec":            a.exec,
		"execSync":        a.execSync,
		"spawn":           a.spawn,
		"builtinToolInfo": builtinToolInfo,
		"runBuiltinTool":  a.runBuiltinTool,
	}
}

// exec runs a program through the host until the token is cancelled; the
// promise settles with {stdout, stderr, code, killed} as JSON.
func (a execAPI) exec(token int64, command, argsJSON, cwd string, timeoutMs int64) goja.Value {
	s := a.s
	args := mustJSON[[]string](a.r, "exec", argsJSON)
	checkExecPaths(a.r, command, cwd)
	host := s.defaultHost()
	ctx, done := s.tokenContext(context.Background(), token)
	return s.async(a.r, func() (any, error) {
		defer done()
		res, err := host.Exec(ctx, command, args, cwd, time.Duration(timeoutMs)*time.Millisecond)
		if err != nil {
			return nil, err
		}
		return execJSON(res), nil
	}, jsonResult)
}

// execSync is exec for child_process's synchronous forms (blocks the loop).
func (a execAPI) execSync(command, argsJSON, cwd string, timeoutMs int64) string {
	args := mustJSON[[]string](a.r, "execSync", argsJSON)
	checkExecPaths(a.r, command, cwd)
	res, err := a.s.defaultHost().Exec(context.Background(), command, args, cwd, time.Duration(timeoutMs)*time.Millisecond)
	if err != nil {
		panic(jsErrorValue(a.r, err.Error()))
	}
	return jsString(execJSON(res))
}

func (a execAPI) spawn(file, argsJSON, cwd, envJSON string, onEvent goja.Callable) goja.Value {
	args := mustJSON[[]string](a.r, "spawn", argsJSON)
	var env map[string]string
	if envJSON != "" {
		env = mustJSON[map[string]string](a.r, "spawn", envJSON)
	}
	checkExecPaths(a.r, file, cwd)
	return nodecompat.Spawn(a.r, nodeHost{a.s}, file, args, cwd, env, onEvent)
}

func (a execAPI) runBuiltinTool(token int64, name, cwd, argsJSON, envJSON string, onUpdate goja.Value) goja.Value {
	return a.s.runBuiltinTool(a.r, token, name, cwd, argsJSON, envJSON, onUpdate)
}

func execJSON(res extensions.ExecResult) map[string]any {
	return map[string]any{"stdout": res.Stdout, "stderr": res.Stderr, "code": res.Code, "killed": res.Killed}
}

// checkExecPaths applies checkScriptPath to the paths a program is started
// with: its working directory and the program when given as a path.
func checkExecPaths(r *goja.Runtime, command, cwd string) {
	for _, p := range []string{cwd, command} {
		if p == command && !strings.Contains(p, "/") {
			continue
		}
		if err := checkScriptPath(p); err != nil {
			panic(nodecompat.RefusedPath(r, err, p))
		}
	}
}

// Cancellation tokens: the JavaScript side of a dialog, an exec or a
// built-in tool holds a token and calls native.cancel(token) to stop it.

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

// nodeHost is what nodecompat's modules use of a script: its loop and the
// path rule.
type nodeHost struct{ s *Script }

var _ nodecompat.Host = nodeHost{}

func (h nodeHost) Run(fn func(*goja.Runtime)) bool { return h.s.vm.run(fn) }
func (h nodeHost) Done() <-chan struct{}           { return h.s.vm.done }
func (h nodeHost) CheckPath(p string) error        { return checkScriptPath(p) }
func (h nodeHost) Warn(msg string, err error)      { h.s.log.Warn(msg, "error", h.s.errText(err)) }
func (h nodeHost) Async(r *goja.Runtime, work func() (any, error), conv func(r *goja.Runtime, v any, err error) (ok, fail goja.Value)) goja.Value {
	return h.s.async(r, work, conv)
}
