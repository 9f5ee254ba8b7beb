package jsext

import (
	"context"
	"strings"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions/jsext/nodecompat"
)

// execAPI starts programs and tools: child_process (through the host's
// Exec, or spawned here), the built-in tools of the pi
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

// exec runs a program for child_process through the host port's Exec
// until the token is cancelled; the promise settles with the
// ExecResponse {stdout, stderr, code, killed} as JSON.
func (a execAPI) exec(token int64, command, argsJSON, cwd string, timeoutMs int64) goja.Value {
	return portAPI(a).hostAsync(a.r.ToValue(0), "Exec", execRequest(a.r, command, argsJSON, cwd, timeoutMs), token, false)
}

// execSync is exec for child_process's synchronous forms (blocks the loop).
func (a execAPI) execSync(command, argsJSON, cwd string, timeoutMs int64) string {
	return portAPI(a).host(a.r.ToValue(0), "Exec", execRequest(a.r, command, argsJSON, cwd, timeoutMs))
}

func execRequest(r *goja.Runtime, command, argsJSON, cwd string, timeoutMs int64) string {
	return jsString(map[string]any{"command": command, "args": mustJSON[[]string](r, "exec", argsJSON), "cwd": cwd, "timeout_ms": max(timeoutMs, 0)})
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
