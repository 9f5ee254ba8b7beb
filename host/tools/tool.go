// Package tools defines the tool interface, the registry the agent loop
// uses, argument validation against each tool's JSON Schema, output
// truncation, and the built-in tools (read, write, edit, bash, grep, find,
// ls). Each built-in keeps its model-facing description in an embedded
// Markdown file beside its code.
package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools/toolargs"
)

// Call is one invocation of a tool.
type Call struct {
	ID   string
	Args map[string]any
	// Cwd is the session's working directory; relative paths resolve
	// against it.
	Cwd string
	// Env holds extra KEY=VALUE pairs for processes the tool starts.
	Env []string
	// Shell runs bash's commands (the settings' shellPath and
	// shellCommandPrefix).
	Shell Shell
	// OnUpdate, when set, receives the accumulated partial result.
	OnUpdate func(llm.ToolResult)
	// Files, when set, holds the files read, write and edit work on (a
	// client's); Runner, when set, runs bash's commands (see Files and
	// CommandRunner). Other tools ignore them.
	Files  Files
	Runner CommandRunner
}

// Update reports a partial result if anyone listens.
func (c *Call) Update(r llm.ToolResult) {
	if c.OnUpdate != nil {
		c.OnUpdate(r)
	}
}

// Tool is something the model can call. Execute returns an error to make
// the result an error result whose text is the error message.
type Tool interface {
	Name() string
	Description() string
	Parameters() json.RawMessage
	Execute(ctx context.Context, call Call) (llm.ToolResult, error)
}

// Prompted is implemented by tools that contribute to the system prompt: a
// one-line snippet for the tool list and guideline bullets.
type Prompted interface {
	PromptSnippet() string
	PromptGuidelines() []string
}

// Exposures of a tool (pi's): how the model and other tools reach it.
const (
	// ExposureDirect declares the tool to the model while it is active.
	ExposureDirect = "direct"
	// ExposureModelOnly: declared to the model, never called by tools.
	ExposureModelOnly = "model-only"
	// ExposureCodemode: reached from code mode, not declared.
	ExposureCodemode = "codemode"
	// ExposureDeferred: kept out of requests until a search loads it.
	ExposureDeferred = "deferred"
	// ExposureHidden: registered, reached by nothing.
	ExposureHidden = "hidden"
)

// Reached is implemented by tools registered with pi's reach settings
// (an extension's exposure and execution mode).
type Reached interface {
	// Exposure is "" (direct) or one of the Exposure constants.
	Exposure() string
	// Sequential: a batch holding the tool runs one call at a time.
	Sequential() bool
}

// CallableByTools reports whether another tool may call t (pi's
// ctx.executeTool): direct tools while active, codemode and deferred
// tools whenever registered, model-only and hidden tools never.
func CallableByTools(t Tool, active bool) bool {
	r, ok := t.(Reached)
	if !ok {
		return active
	}
	switch r.Exposure() {
	case ExposureModelOnly, ExposureHidden:
		return false
	case ExposureCodemode, ExposureDeferred:
		return true
	}
	return active
}

// Sequential reports whether t asks its batch to run one call at a time.
func Sequential(t Tool) bool {
	r, ok := t.(Reached)
	return ok && r.Sequential()
}

// ErrorWithResult is an error that also carries a result (for example the
// output a failed command printed before it exited).
type ErrorWithResult struct {
	Result llm.ToolResult
	Err    error
}

func (e *ErrorWithResult) Error() string { return e.Err.Error() }
func (e *ErrorWithResult) Unwrap() error { return e.Err }

// Registry holds the available tools and which of them are active.
type Registry struct {
	mu      sync.RWMutex
	order   []string
	tools   map[string]Tool
	active  map[string]bool
	schemas map[string]*toolargs.Schema
	exclude []string // SetExcluded's patterns
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]Tool{}, active: map[string]bool{}, schemas: map[string]*toolargs.Schema{}}
}

// Add registers a tool, replacing one with the same name, and activates it
// when active is true.
func (r *Registry) Add(t Tool, active bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := t.Name()
	if _, ok := r.tools[name]; !ok {
		r.order = append(r.order, name)
	}
	r.tools[name] = t
	delete(r.schemas, name)
	if active {
		r.active[name] = true
	}
}

// Remove drops a tool.
func (r *Registry) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return
	}
	delete(r.tools, name)
	delete(r.active, name)
	delete(r.schemas, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// Get returns a registered tool, active or not.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// All returns every registered tool in registration order.
func (r *Registry) All() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// SetExcluded keeps the tools whose names match one of patterns (`*`
// matches any characters) inactive, whatever else selects them: pi's
// --exclude-tools and --no-tools ("*"), applied after every other
// selection, to built-in, extension and MCP tools alike.
func (r *Registry) SetExcluded(patterns []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exclude = append([]string(nil), patterns...)
}

// excluded reports whether SetExcluded's patterns keep name inactive.
// Called with r.mu held.
func (r *Registry) excluded(name string) bool {
	for _, p := range r.exclude {
		if MatchToolPattern(p, name) {
			return true
		}
	}
	return false
}

// MatchToolPattern matches a tool name against a pattern in which `*`
// matches any run of characters and everything else itself.
func MatchToolPattern(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

// Active returns the active tools in registration order.
func (r *Registry) Active() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Tool
	for _, n := range r.order {
		if r.active[n] && !r.excluded(n) {
			out = append(out, r.tools[n])
		}
	}
	return out
}

// ActiveNames returns the names of the active tools.
func (r *Registry) ActiveNames() []string {
	var names []string
	for _, t := range r.Active() {
		names = append(names, t.Name())
	}
	return names
}

// IsActive reports whether a tool is active.
func (r *Registry) IsActive(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.active[name] && !r.excluded(name)
}

// SetActive makes exactly the named tools active; unknown names are
// ignored.
func (r *Registry) SetActive(names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active = map[string]bool{}
	for _, n := range names {
		if _, ok := r.tools[n]; ok {
			r.active[n] = true
		}
	}
}

// Specs returns the active tools as offered to the model.
func (r *Registry) Specs() []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, t := range r.Active() {
		out = append(out, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
	}
	return out
}
