package rpc

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/mcp"
	"github.com/atomic-go/atomic/host/resources"
	"github.com/atomic-go/atomic/host/session"
)

// The server reaches the session runtime through one small interface per
// area, each listing just what that area's handlers (cmd_<area>.go) call;
// a handler uses only its own area's interface. *app.Runtime satisfies
// them all (NewServer takes it and fills a backend with it); an in-package
// test may fill a backend with fakes instead.

// serverCore is what the server itself needs: events out, the extension
// UI in, the logger, and the runtime's lifecycle.
type serverCore interface {
	Subscribe(fn events.Sink) func()
	SetUI(ui app.UI)
	Log() *slog.Logger
	StartMCP()
	Close()
}

// promptArea: prompt, steer, follow_up, abort, the queues and their
// modes (cmd_prompt.go).
type promptArea interface {
	Submit(in app.PromptInput) (app.Accepted, error)
	Queue(steer bool, text string, images []llm.ContentBlock) (string, error)
	CancelTurn() bool
	ContinueQueued()
	ClearQueue() (steering, followUp []string)
	PauseQueued()
	ResumeQueued() (released bool)
	SetSteeringMode(mode string) error
	SetFollowUpMode(mode string) error
}

// sessionArea: session replacement, the tree, names and labels, stats,
// export and the session list (cmd_session.go).
type sessionArea interface {
	ListSessions(scope string) ([]session.Info, error)
	NewSession(parentSession string) (cancelled bool, err error)
	SwitchSession(path string) (cancelled bool, err error)
	ImportSession(inputPath, cwdOverride string) (cancelled bool, err error)
	Fork(entryID string) (app.ForkResult, error)
	Clone() (cancelled bool, err error)
	ForkMessages() ([]session.UserMessage, error)
	Entries(since string) ([]json.RawMessage, string, error)
	Tree() (session.Tree, string, error)
	NavigateTree(targetID string, opts app.NavigateOptions) (app.NavigateResult, error)
	SetLabel(entryID string, label *string) error
	SetSessionName(name string) error
	SessionStats() app.SessionStats
	ExportHTML(outputPath string) (string, error)
}

// modelArea: models, providers, thinking levels and the retry of a
// failed call (cmd_model.go).
type modelArea interface {
	SetModel(provider, id string, persist bool) (llm.Model, error)
	CycleModel(direction string, persist bool) (*app.CycleResult, error)
	AvailableModels() []llm.Model
	ScopedModels() []app.ScopedModel
	LogoutProvider(provider string) (app.LogoutResult, error)
	SetThinkingLevel(level string, persist bool) (app.ThinkingAck, error)
	CycleThinkingLevel() (string, bool)
	AvailableThinkingLevels() []string
	AbortRetry()
}

// bashArea: direct bash commands (cmd_bash.go).
type bashArea interface {
	RunBash(ctx context.Context, req app.BashRequest) (app.BashResult, error)
	PruneBashOutput()
}

// compactArea: manual compaction (cmd_compact.go).
type compactArea interface {
	CompactWith(ctx context.Context, instructions string) (*compaction.Result, error)
	AbortCompaction()
}

// stateArea: the state and messages, and the automatic behaviours'
// switches (cmd_state.go).
type stateArea interface {
	State() app.State
	Messages() []llm.Message
	LastAssistantText() (string, bool)
	SetAutoCompaction(on bool)
	SetAutoRetry(on bool)
}

// commandsArea: slash commands, completions, reload and resource
// diagnostics (cmd_commands.go).
type commandsArea interface {
	// StartedCommands is Commands once the start-up session_start has
	// been handled (what it registers is listed, as in pi).
	StartedCommands() []app.SlashCommand
	CommandCompletions(ctx context.Context, command, argumentPrefix string) []app.Completion
	Reload(ctx context.Context) error
	ResourceDiagnostics() []resources.Diagnostic
}

// extensionsArea: extension statuses and project trust
// (cmd_extensions.go).
type extensionsArea interface {
	ExtensionStatuses() []extensions.Status
	ProjectTrusted() bool
	TrustProject(ctx context.Context) (int, error)
}

// mcpArea: MCP servers (cmd_mcp.go).
type mcpArea interface {
	MCPServers() ([]mcp.Status, []string)
	ReconnectMCP(ctx context.Context, name string) (mcp.Status, error)
}

// backend is the runtime as the server sees it, one field per area.
type backend struct {
	core       serverCore
	prompt     promptArea
	session    sessionArea
	model      modelArea
	bash       bashArea
	compact    compactArea
	state      stateArea
	commands   commandsArea
	extensions extensionsArea
	mcp        mcpArea
}

// runtimeBackend serves every area from one runtime.
func runtimeBackend(rt *app.Runtime) backend {
	return backend{
		core: rt, prompt: rt, session: rt, model: rt, bash: rt, compact: rt,
		state: rt, commands: rt, extensions: rt, mcp: rt,
	}
}
