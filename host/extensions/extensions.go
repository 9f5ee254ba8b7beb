// Package extensions finds extensions (command-line -e paths, the user's
// and the project's extension directories, settings), decides which may
// run (project trust), starts them through the runtime that understands
// them (grpcext for plugin executables, jsext for scripts) and exposes
// their hooks, commands and tools to the session runtime.
//
// Load order, which is also the order handlers run in:
//  1. -e / --extension paths, in argument order (an -e npm:… or git:…
//     package contributes its extensions at its position);
//  2. the extensions of packages (host/packages): the project settings'
//     "packages", then the user settings';
//  3. the project settings' "extensions" (./.atomic/settings.json);
//  4. the user settings' "extensions" (<agentDir>/settings.json);
//  5. ./.atomic/extensions/ (sorted by name);
//  6. <agentDir>/extensions/ (sorted by name).
//
// A path is loaded once (the first occurrence wins). --no-extensions keeps
// only 1. Project extensions (project packages, 3 and 5) load only when
// the project is trusted; otherwise they are listed as skipped.
package extensions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// Scopes of an extension.
const (
	ScopeTemporary = "temporary" // -e
	ScopeUser      = "user"
	ScopeProject   = "project"
)

// Kinds of entry.
const (
	KindPlugin = "plugin" // an executable speaking the gRPC plugin protocol
	KindScript = "script" // a .js or .ts file
)

// Spec is one extension to load.
type Spec struct {
	// Path is the absolute path the extension was found at (file or
	// directory); it is the extensionPath of its errors.
	Path string
	// Kind is KindPlugin or KindScript.
	Kind string
	// Command is the program and arguments that start a plugin.
	Command []string
	// Dir is the plugin's working directory (the extension's directory).
	Dir string
	// Scope is temporary, user or project.
	Scope string
	// Options come from an object entry in the settings.
	Options Options
	// Package is the package the extension comes from (nil for none).
	Package *PackageRef
}

// PackageRef names the package (host/packages) an extension comes from.
type PackageRef = rpcwire.ExtensionPackage

// PackageEntry is an extension path a package contributes.
type PackageEntry struct {
	Path    string
	Package PackageRef
}

// Options are per-extension settings.
type Options struct {
	// Timeouts per event (and "default"); they override the bus defaults
	// and what the extension asked for.
	Timeouts map[string]time.Duration
	// Isolation is "" (runtime default) or "process" (scripts).
	Isolation string
	// MemoryLimitMB bounds a script run with "isolation": "process" (0:
	// the runtime's default).
	MemoryLimitMB int64
	// Disabled skips the extension.
	Disabled bool
	// Runtime is the script runtime asked for: "auto" or "" (the
	// extensionRuntime setting decides), "goja" or "node".
	Runtime string
}

// Script runtime choices (the extensionRuntime setting and the "runtime"
// of an extension's settings entry).
const (
	RuntimeAuto = "auto"
	RuntimeGoja = "goja"
	RuntimeNode = "node"
)

// ValidRuntimeChoice reports whether s is a runtime choice ("" is auto).
func ValidRuntimeChoice(s string) bool {
	switch s {
	case "", RuntimeAuto, RuntimeGoja, RuntimeNode:
		return true
	}
	return false
}

// RuntimeNamer is implemented by extensions that tell which runtime runs
// them (shown by get_extensions).
type RuntimeNamer interface {
	RuntimeName() string
}

// RuntimeReasoner is implemented by extensions that tell why their
// runtime was chosen (get_extensions' runtimeReason): a setting, or what
// the auto choice found.
type RuntimeReasoner interface {
	RuntimeReason() string
}

// Runtime starts extensions of one kind.
type Runtime interface {
	// Accepts reports whether the runtime can load the spec.
	Accepts(spec *Spec) bool
	// Load starts the extension. host is how it calls back into the
	// session. Load must honour ctx (start-up deadline).
	Load(ctx context.Context, spec Spec, host Host) (Extension, error)
}

// Extension is a loaded extension, whatever runs it. Its hooks.Subscriber
// methods plug it into the bus.
type Extension interface {
	hooks.Subscriber
	// Name is the extension's own name.
	Name() string
	// Commands, Tools and Flags are what it registered.
	Commands() []CommandSpec
	Tools() []ToolSpec
	Flags() []FlagSpec
	// RunCommand runs a command (no deadline besides ctx).
	RunCommand(ctx context.Context, name, args string) error
	// Complete returns argument completions; none when the command has no
	// completer.
	Complete(ctx context.Context, name, prefix string) (items []Completion, none bool, err error)
	// ExecuteTool runs a tool; update receives partial results.
	ExecuteTool(ctx context.Context, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error)
	// Close stops the extension.
	Close() error
}

// CommandSpec is a registered slash command.
type CommandSpec struct {
	Name           string
	Description    string
	HasCompletions bool
}

// ToolSpec is a registered tool.
type ToolSpec struct {
	Name             string
	Label            string
	Description      string
	Parameters       json.RawMessage
	PromptSnippet    string
	PromptGuidelines []string
	// Exposure is pi's (see ToolSpec.exposure in the plugin protocol):
	// "" means "direct".
	Exposure string
	// Inactive: not activated on registration (pi's defaultActive: false).
	Inactive bool
	// ExecutionMode "sequential" runs the tool's batch one call at a time.
	ExecutionMode string
	// Namespace and Annotations are pi's objects, as JSON (nil: none).
	Namespace, Annotations json.RawMessage
}

// ActiveOnRegistration reports whether the tool is activated when it is
// registered: direct and model-only tools, unless defaultActive is false.
func (t ToolSpec) ActiveOnRegistration() bool {
	switch t.Exposure {
	case "", tools.ExposureDirect, tools.ExposureModelOnly:
		return !t.Inactive
	}
	return false
}

// FlagSpec is a registered command-line flag.
type FlagSpec struct {
	Name, Description, Type, Default string
}

// ProviderSpec is a model provider an extension registers
// (pi.registerProvider): Config is one provider of models.json's form.
type ProviderSpec struct {
	Name   string
	Config json.RawMessage // nil: the provider only lists virtual models
	// VirtualModels are the virtual models listed under the provider
	// (the protocol's ProviderSpec.virtual_models_json).
	VirtualModels json.RawMessage
	// Streams: the extension streams the provider's answers itself (pi's
	// streamSimple), through ProviderStreamer.
	Streams bool
}

// ProviderStreamer is implemented by extensions that can stream a
// provider's answers themselves (ProviderSpec.Streams). It is a tool
// call's path (the protocol's ExecuteTool with its provider set): request
// is {model, context, options}; update gets each of pi-ai's stream events
// as a partial result's Details, and the final result's Details is the
// final assistant message.
type ProviderStreamer interface {
	StreamProvider(ctx context.Context, provider string, request map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error)
}

// ProviderRegistrar is implemented by extensions that can register model
// providers.
type ProviderRegistrar interface {
	Providers() []ProviderSpec
}

// ShortcutSpec is a key an extension binds (pi.registerShortcut): Key in
// pi's key syntax ("ctrl+shift+k"), as the extension wrote it.
type ShortcutSpec struct {
	Key, Description string
}

// ShortcutRunner is implemented by extensions that can register keyboard
// shortcuts; only the interactive terminal binds them.
type ShortcutRunner interface {
	Shortcuts() []ShortcutSpec
	// RunShortcut runs the handler of the shortcut registered as key, with
	// a command's context (no deadline besides ctx).
	RunShortcut(ctx context.Context, key string) error
}

// Wrapper is implemented by an extension that wraps another (to name its
// runtime, say): optional interfaces of the inner one are found through
// Unwrap (see As).
type Wrapper interface {
	Unwrap() Extension
}

// As finds the first extension in e's chain of wrappers that is a T.
func As[T any](e Extension) (T, bool) {
	for e != nil {
		if t, ok := e.(T); ok {
			return t, true
		}
		w, ok := e.(Wrapper)
		if !ok {
			break
		}
		e = w.Unwrap()
	}
	var zero T
	return zero, false
}

// Completion is one argument completion.
type Completion struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// HandlerContext is the snapshot of the session sent with every call.
type HandlerContext struct {
	Cwd, Mode              string
	HasUI                  bool
	SessionID, SessionFile string
	Model                  *llm.Model
	ThinkingLevel          string
	IsIdle                 bool
	ProjectTrusted         bool
}

// SessionQuery selects the parts of the session to read.
type SessionQuery struct {
	Entries, Branch, Tree bool
}

// SessionView is the session as JSON pieces (the protocol's shapes).
type SessionView struct {
	SessionID, SessionFile, Name, LeafID, Cwd string
	Header, Entries, Branch, Tree             json.RawMessage
}

// ToolInfo describes a tool for getAllTools.
type ToolInfo struct {
	Name             string          `json:"name"`
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters,omitempty"`
	PromptGuidelines []string        `json:"promptGuidelines,omitempty"`
	// Exposure is pi's ("direct" when the tool did not say).
	Exposure    string          `json:"exposure"`
	Namespace   json.RawMessage `json:"namespace,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// UIAnswer is a dialog's outcome.
type UIAnswer struct {
	Cancelled bool
	Value     string
	HasValue  bool
	Confirmed bool
}

// ExecResult is the outcome of Host.Exec.
type ExecResult struct {
	Stdout, Stderr string
	Code           int
	Killed         bool
}

// HostState is the live part of the session an extension may ask for.
type HostState struct {
	IsIdle, HasPendingMessages bool
	SystemPrompt               string
}

// Host is the session as extensions see it (implemented by the session
// runtime; served to plugins over gRPC and to scripts directly).
type Host interface {
	HandlerContext() HandlerContext
	SendMessage(ctx context.Context, msg hooks.CustomMessage, triggerTurn bool, deliverAs string) error
	SendUserMessage(ctx context.Context, content llm.Content, deliverAs string) error
	AppendEntry(ctx context.Context, customType string, data json.RawMessage) (string, error)
	SetSessionName(ctx context.Context, name string) error
	SetLabel(ctx context.Context, entryID, label string) error
	Session(ctx context.Context, q SessionQuery) (SessionView, error)
	ContextUsage(ctx context.Context) json.RawMessage
	Tools(ctx context.Context) (active []string, all []ToolInfo)
	SetActiveTools(ctx context.Context, names []string)
	Model(ctx context.Context) (*llm.Model, string)
	SetModel(ctx context.Context, provider, id string) (bool, error)
	SetThinkingLevel(ctx context.Context, level string) string
	Abort(ctx context.Context)
	UI(ctx context.Context, method string, params map[string]any) (UIAnswer, error)
	Exec(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (ExecResult, error)
	Commands(ctx context.Context) json.RawMessage
	State(ctx context.Context) HostState
	// Compact compacts the session now and returns the result as JSON.
	Compact(ctx context.Context) (json.RawMessage, error)
}

// ToolCaller is implemented by hosts that let a running tool call other
// tools through the agent's pipeline (pi's ctx.executeTool); ctx is the
// call's, which carries the calling tool.
type ToolCaller interface {
	CallTool(ctx context.Context, name string, args map[string]any) ToolCallOutcome
}

// ToolCallOutcome is a nested call's outcome (pi's AgentToolCallOutcome).
type ToolCallOutcome struct {
	ID         string
	Result     llm.ToolResult
	IsError    bool
	DurationMs *int64 // nil when the tool did not run
}

// SettingsHost is implemented by hosts that give extensions the effective
// settings (pi.getSettings()): a JSON object.
type SettingsHost interface {
	Settings() json.RawMessage
}

// SystemPromptHost is implemented by hosts that show extensions the
// structured inputs of the system prompt (ctx.getSystemPromptOptions()):
// a JSON object.
type SystemPromptHost interface {
	SystemPromptOptions() json.RawMessage
}

// ModelHost is implemented by hosts that let extensions use the agent's
// models (ctx.modelRegistry): the catalogue, a provider's credentials for
// the extension's own requests, and requests through the agent's
// providers.
type ModelHost interface {
	// Models returns every known model and those usable now.
	Models(ctx context.Context) (all, available []llm.Model)
	// ModelAuth resolves the credentials of a model's provider.
	ModelAuth(ctx context.Context, provider, id string) ModelAuth
	// CompleteModel sends one request and returns the assistant message;
	// a failure is the message's error (stopReason "error"), as pi's
	// complete() reports it.
	CompleteModel(ctx context.Context, provider, id string, call ModelCall) llm.Message
}

// ScopedModelHost is implemented by model hosts that also know the
// session's scoped models (ctx.scopedModels).
type ScopedModelHost interface {
	ScopedModels() []llm.ScopedModel
}

// ModelAuth is pi's ResolvedRequestAuth: OK with the key, headers and
// base URL, or the reason in Error.
type ModelAuth struct {
	OK      bool
	APIKey  string
	Headers map[string]string
	BaseURL string
	Error   string
}

// ModelCall is one model request of an extension (pi's Context and the
// stream options atomic applies).
type ModelCall struct {
	SystemPrompt string
	Messages     []llm.Message
	Tools        []llm.ToolSpec
	// MaxTokens caps the answer (0: the model's limit).
	MaxTokens int
	// Reasoning is a thinking level ("" or "off": none).
	Reasoning string
}

// ShutdownRequester is implemented by hosts that let an extension end the
// agent (ctx.shutdown()): the agent finishes the run in flight, then exits
// as if its input had ended.
type ShutdownRequester interface {
	RequestShutdown()
}

// Entry is the file a script extension starts from: the file itself, or
// for a directory the index file discovery found (its Command).
func (s Spec) Entry() string {
	if st, err := os.Stat(s.Path); err == nil && st.IsDir() {
		for _, c := range s.Command {
			if st, err := os.Stat(c); err == nil && !st.IsDir() {
				return c
			}
		}
		for _, idx := range []string{"index.ts", "index.js"} {
			if st, err := os.Stat(filepath.Join(s.Path, idx)); err == nil && !st.IsDir() {
				return filepath.Join(s.Path, idx)
			}
		}
	}
	return s.Path
}

// ToolRefresher is implemented by hosts that take tools an extension
// registers after it loaded (from session_start, a command, …): the
// extension calls RefreshExtensionTools after registering, and the next
// model request offers the tool (active, as when registered at load).
type ToolRefresher interface {
	RefreshExtensionTools()
}

// OfflineEnv is what an offline agent adds to the environment that
// extensions see (process.env, and so the programs they start), as pi's
// --offline sets it in pi's own process: packages skip their start-up
// network work (and programs such as `npm root -g`) on PI_OFFLINE.
func OfflineEnv() []string { return []string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1"} }
